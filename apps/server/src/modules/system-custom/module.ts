import { defineModule } from '../../plugins/module.ts';
import {
  SystemCustomService,
  profileMediaRoutes,
  profileMediaUrl,
  systemCustomRoutes,
  systemCustomUpkeep,
} from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    systemCustom: SystemCustomService;
  }
}

/**
 * System customization: profiles resolved per device, apply_profile tasks carrying fresh media links, each
 * device's report of its effective configuration (heard on the device bus) compared for drift.
 */
export const systemCustomModule = defineModule({
  name: 'system-custom',
  dependencies: ['task'],
  async setup(app, { db, storage, events, bus, origin }) {
    const custom = new SystemCustomService(db, storage, app.tasks, events);
    app.tasks.onChange((row) => {
      custom.onTaskChange(row).catch((err: unknown) => app.log.warn({ err }, 'system-custom: task change failed'));
    });
    app.tasks.addAtDelivery(['apply_profile'], (row) =>
      custom.withLinks(row.params, (part) => profileMediaUrl(storage, row.id, part, new Date(row.expire_at), origin())),
    );
    bus.on('profile', (deviceId, msg) => custom.onReport(deviceId, msg));
    app.decorate('systemCustom', custom);
    await app.register(systemCustomUpkeep, { db, custom });
  },
  api: async (api) => {
    await api.register(systemCustomRoutes, { custom: api.systemCustom });
    await api.register(profileMediaRoutes, { storage: api.core.storage, custom: api.systemCustom });
  },
});
