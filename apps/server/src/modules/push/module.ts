import { defineModule } from '../../plugins/module.ts';
import { PushService, pushRoutes, pushUpkeep } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    pushes: PushService;
  }
}

/** Push messages: each delivery a push_message task; an image push carries a fresh signed image link. */
export const pushModule = defineModule({
  name: 'push',
  dependencies: ['task'],
  async setup(app, { db, events, storage, bus, config, origin }) {
    const pushes = new PushService(db, app.tasks, events, app.log.child({ module: 'push' }), config.PUSH_EVENT_MS);
    app.tasks.onChange((row) => pushes.onTaskChange(row));
    // pushes are heard by the consoles that see them in their lists
    events.entityReach('push', (access, ids) => pushes.visibleIds(access, ids));
    app.tasks.addAtDelivery(['push_message'], (row) => {
      const key = (row.params as { imageKey?: unknown } | null)?.imageKey;
      return typeof key === 'string' ? { imageUrl: origin() + storage.signedUrl(key, 86_400) } : {};
    });
    // devices say when a push was clicked
    bus.on('event', (deviceId, msg) => pushes.onEvent(deviceId, msg));
    app.decorate('pushes', pushes);
    await app.register(pushUpkeep, { pushes, everyMs: config.PUSH_TICK_MS });
  },
  api: async (api) => {
    await api.register(pushRoutes, { pushes: api.pushes, storage: api.core.storage });
  },
});
