import { defineModule } from '../../plugins/module.ts';
import { UpgradeService, upgradeRoutes, upgradeUpkeep } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    upgrades: UpgradeService;
  }
}

/** Firmware releases: moved on by their tasks' changes and a periodic reconcile (one node at a time). */
export const upgradeModule = defineModule({
  name: 'upgrade',
  dependencies: ['task'],
  async setup(app, { db, events }) {
    const upgrades = new UpgradeService(db, app.tasks, events, app.log.child({ module: 'upgrade' }));
    app.tasks.onChange((row) => upgrades.onTaskChange(row));
    // releases are heard by the consoles that see them in their lists
    events.entityReach('upgrade', (access, ids) => upgrades.visibleIds(access, ids));
    app.decorate('upgrades', upgrades);
    await app.register(upgradeUpkeep, { upgrades });
  },
  api: async (api) => {
    await api.register(upgradeRoutes, { upgrades: api.upgrades });
  },
});
