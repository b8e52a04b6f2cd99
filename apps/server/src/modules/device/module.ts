import { defineModule } from '../../plugins/module.ts';
import { GroupService } from './group-service.ts';
import { deviceRoutes } from './routes.ts';
import { DeviceService } from './service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    devices: DeviceService;
  }
}

/** Devices: binding, lists, detail, groups and commands. */
export const deviceModule = defineModule({
  name: 'device',
  dependencies: ['task'],
  setup(app, { db }) {
    app.decorate('devices', new DeviceService(db, app.tasks));
  },
  api: async (api) => {
    await api.register(deviceRoutes, { devices: api.devices, groups: new GroupService(api.core.db) });
  },
});
