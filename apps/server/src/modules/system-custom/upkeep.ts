import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Periodic } from '../../lib/periodic.ts';
import type { Db } from '../../db/database.ts';
import { SystemCustomRepository } from './repository/index.ts';
import type { SystemCustomService } from './service.ts';

/** How often every tenant's devices are resolved again (default 1 minute). */
export const PROFILE_RECONCILE_MS = 60_000;

/**
 * Resolution runs after every change of profiles and assignments; this runs it again now and then, so a device moved
 * to another group, a new device in an assigned group, or a deleted group is picked up without a console action.
 * One node at a time (a session advisory lock; the others skip the round), and each tenant's resolution takes its
 * own transaction lock as well.
 */
export const systemCustomUpkeep = fp<{ db: Db; custom: SystemCustomService; everyMs?: number }>(
  async (app: FastifyInstance, { db, custom, everyMs = PROFILE_RECONCILE_MS }) => {
    const repo = new SystemCustomRepository(db);
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `system-custom: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'system-custom',
    });
    app.addHook('onReady', async () => {
      periodic.every(
        everyMs,
        'reconcile',
        () => repo.states.whileUpkeepLockHeld(() => custom.reconcileAll()),
        'cluster',
      );
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'system-custom-upkeep' },
);
