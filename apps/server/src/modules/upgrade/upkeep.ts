import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Periodic } from '../../lib/periodic.ts';
import type { UpgradeService } from './service.ts';

export const UPGRADE_RECONCILE_MS = 5_000;

/**
 * Every node hears its own task changes (`tasks.onChange`); this periodic reconcile, one node at a time, catches
 * what no node heard (a node died, a soak time ran out, a maintenance window opened, a release expired).
 */
export const upgradeUpkeep = fp<{ upgrades: UpgradeService; everyMs?: number }>(
  async (app: FastifyInstance, { upgrades, everyMs = UPGRADE_RECONCILE_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `upgrades: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'upgrades',
    });
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'reconcile', () => upgrades.reconcileAll(), 'cluster');
    });
    app.addHook('onClose', async () => {
      await periodic.stop();
      await upgrades.settle();
    });
  },
  { name: 'upgrade-upkeep' },
);
