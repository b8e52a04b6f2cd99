import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { Periodic } from '../../lib/periodic.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';

/** What the notice section tells consoles through. */
export type NoticeEvents = Pick<LiveEvents, 'publishAll'>;

/** The advisory lock key of the notice sweep (a constant of its own): one node announces at a time. */
const NOTICE_SWEEP_LOCK = 0x4e4f_5443; // "NOTC"
/** How often a node looks for scheduled notices whose time came (and ends that passed). */
export const NOTICE_SWEEP_MS = 5_000;

/**
 * Tells every console of the published notices whose scheduled time came, or whose end passed, since the last
 * sweep: once across nodes (a transaction-scoped advisory lock; `announced_at` / `end_announced_at` remember what
 * was told). Returns the ids announced.
 */
export async function sweepNotices(db: Db, events: NoticeEvents): Promise<number[]> {
  const ids = await db.transaction().execute(async (trx) => {
    const { rows: lock } = await sql<{
      ok: boolean;
    }>`select pg_try_advisory_xact_lock(${NOTICE_SWEEP_LOCK}) as ok`.execute(trx);
    if (!lock[0]?.ok) return [];
    const { rows } = await sql<{ id: string | number }>`
      with went_live as (
        update notices set announced_at = now()
        where state = 'published' and announced_at is null and published_at <= now()
        returning id
      ),
      ended as (
        update notices set end_announced_at = now()
        where state = 'published' and end_announced_at is null and ends_at <= now()
        returning id
      )
      select id from went_live union select id from ended`.execute(trx);
    return rows.map((r) => Number(r.id));
  });
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
