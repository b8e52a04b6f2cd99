import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../../db/database.ts';
import { Periodic } from '../../lib/periodic.ts';
import { SystemLogRepository } from './repository.ts';

const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * Deletes system-log entries older than `retentionDays`, `batch` at a time (each its own statement, so no long
 * lock and no huge transaction), while holding a session advisory lock: when several nodes run it at once, one
 * prunes and the others skip. Returns how many were deleted (0 when another node holds the lock).
 */
export function pruneSystemLog(db: Db, retentionDays: number, batch = 5000): Promise<number> {
  return new SystemLogRepository(db).prune(retentionDays, batch);
}

/** Prunes the system log every hour on every node (the lock makes it once across nodes), and once at start. */
export const systemLogRetention = fp<{ db: Db; retentionDays: number }>(
  async (app: FastifyInstance, { db, retentionDays }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `system log: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'system log',
    });
    const prune = async () => {
      const n = await pruneSystemLog(db, retentionDays);
      if (n) app.log.info({ deleted: n, retentionDays }, 'system log pruned');
    };
    app.addHook('onReady', async () => {
      periodic.every(PRUNE_EVERY_MS, 'pruning', prune, 'cluster');
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'system-log-retention' },
);
