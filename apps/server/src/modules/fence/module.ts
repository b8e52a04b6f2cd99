import { defineModule } from '../../plugins/module.ts';
import { FenceService, fenceRoutes, fenceUpkeep } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    fences: FenceService;
  }
}

/** Geofencing: each location report (heard on the device bus, after presence stored it) against the device's fences. */
export const fenceModule = defineModule({
  name: 'fence',
  dependencies: ['integration'],
  async setup(app, { db, events, bus, config }) {
    const fences = new FenceService(db, events, app.webhooks, config);
    bus.on('location', (deviceId, msg) => fences.onLocation(deviceId, msg));
    app.decorate('fences', fences);
    await app.register(fenceUpkeep, { fences, dwellCheckMs: config.FENCE_DWELL_CHECK_MS });
  },
  api: async (api) => {
    await api.register(fenceRoutes, { fences: api.fences });
  },
});
