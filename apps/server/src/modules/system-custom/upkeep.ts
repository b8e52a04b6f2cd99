import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Periodic } from '../../lib/periodic.ts';
import type { Db } from '../../db/database.ts';
import type { SystemCustomService } from './service.ts';

/** How often every tenant's devices are resolved again (default 1 minute). */
export const PROFILE_RECONCILE_MS = 60_000;
const LOCK = 0x5c0517;

/**
 * Resolution runs after every change of profiles and assignments; this runs it again now and then, so a device moved
 * to another group, a new device in an assigned group, or a deleted group is picked up without a console action.
 * One node at a time (a session advisory lock; the others skip the round), and each tenant's resolution takes its
 * own transaction lock as well.
 */
export const systemCustomUpkeep = fp<{ db: Db; custom: SystemCustomService; everyMs?: number }>(
  async (app: FastifyInstance, { db, custom, everyMs = PROFILE_RECONCILE_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `system-custom: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'system-custom',
    });
    app.addHook('onReady', async () => {
      periodic.every(
        everyMs,
        'reconcile',
        () =>
          db.connection().execute(async (conn) => {
            const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${LOCK}) AS ok`.execute(conn);
            if (!rows[0]?.ok) return;
            try {
              await custom.reconcileAll();
            } finally {
              await sql`SELECT pg_advisory_unlock(${LOCK})`.execute(conn);
            }
          }),
        'cluster',
      );
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'system-custom-upkeep' },
);
