import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../../db/database.ts';
import { Periodic } from '../../lib/periodic.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { NoticeRepository } from './repository.ts';

/** What the notice section tells consoles through. */
export type NoticeEvents = Pick<LiveEvents, 'publishAll'>;

/** How often a node looks for scheduled notices whose time came (and ends that passed). */
export const NOTICE_SWEEP_MS = 5_000;

/**
 * Tells every console of the published notices whose scheduled time came, or whose end passed, since the last
 * sweep: once across nodes (a transaction-scoped advisory lock; `announced_at` / `end_announced_at` remember what
 * was told). Returns the ids announced.
 */
export async function sweepNotices(db: Db, events: NoticeEvents): Promise<number[]> {
  const ids = await new NoticeRepository(db).markDueAnnounced();
  for (const id of ids) events.publishAll({ type: 'notice', data: { id } });
  return ids;
}

/** Sweeps every NOTICE_SWEEP_MS on every node (the lock makes it once across nodes). */
export const noticeUpkeep = fp<{ db: Db; events: NoticeEvents; everyMs?: number }>(
  async (app: FastifyInstance, { db, events, everyMs = NOTICE_SWEEP_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `notices: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'notices',
    });
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'sweep', () => sweepNotices(db, events), 'cluster');
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'notice-upkeep' },
);
