import { defineModule } from '../../plugins/module.ts';
import { ApplicationService, applicationRoutes, applicationUpkeep } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    applications: ApplicationService;
  }
}

/** Application management: each device's inventory (heard on the device bus) is stored and the policy applied. */
export const applicationModule = defineModule({
  name: 'application',
  dependencies: ['task'],
  async setup(app, { db, events, bus }) {
    const apps = new ApplicationService(db, app.tasks, events);
    bus.on('inventory', (deviceId, msg) => apps.onInventory(deviceId, msg));
    app.decorate('applications', apps);
    await app.register(applicationUpkeep, { apps });
  },
  api: async (api) => {
    await api.register(applicationRoutes, { apps: api.applications });
  },
});
