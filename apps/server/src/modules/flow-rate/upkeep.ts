import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import { PERMISSIONS, SIM_EXPIRY_REMIND_DAYS, SIM_USAGE_KEEP_DAYS } from '@cpc/contracts';
import { MESSAGES } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import { Periodic } from '../../lib/periodic.ts';
import { readersOf } from '../../lib/data-scope.ts';
import type { EventSink } from '../task/index.ts';

/** The advisory lock key of the SIM sweep (a constant of its own): one node sweeps at a time. */
const SIM_SWEEP_LOCK = 0x5349_4d53; // "SIMS"
/** How often a node tries the sweep: expiry, alerts, pruning. */
export const SIM_SWEEP_MS = 60_000;
/** Daily rows deleted per statement when pruning past SIM_USAGE_KEEP_DAYS. */
const PRUNE_BATCH = 10_000;

const TITLES = {
  low: MESSAGES['flowRate.lowTitle'].en,
  exhausted: MESSAGES['flowRate.exhaustedTitle'].en,
  expiring: MESSAGES['flowRate.expiringTitle'].en,
  expired: MESSAGES['flowRate.expiredTitle'].en,
};

export interface SimSweepResult {
  /** SIMs whose plan expired in this sweep. */
  expired: number;
  /** SIMs alerted (one message per SIM and change, to each user that reads the traffic query). */
  alerted: number;
  /** Daily usage rows pruned. */
  pruned: number;
}

/**
 * The SIMs' periodic work (issue 13), once across nodes (a transaction-scoped advisory lock; another node's sweep
 * under way makes this one skip):
 * - a plan whose expiry has passed turns `expired` (the state trigger of 0017 decides, touched by `state = state`);
 * - each SIM whose alert (low, exhausted, expiring within SIM_EXPIRY_REMIND_DAYS, expired) differs from the one
 *   last sent gets ONE message per user of its account who holds flowRate:view and whose data scope reaches the
 *   SIM's device (the main account always), and
 *   `alerted_state` remembers it: not one per heartbeat. Back to active (a top-up) clears it silently;
 * - daily usage rows older than SIM_USAGE_KEEP_DAYS are deleted.
 * Consoles hear `sim` (the SIMs changed) and `message` (a user's new messages) events.
 */
export async function sweepSims(db: Db, events: EventSink): Promise<SimSweepResult> {
  const done = await db.transaction().execute(async (trx) => {
    const { rows: lock } = await sql<{
      ok: boolean;
    }>`select pg_try_advisory_xact_lock(${SIM_SWEEP_LOCK}) as ok`.execute(trx);
    if (!lock[0]?.ok) return null;
    const expired = await sql<{ tenant_id: number | null; iccid: string }>`
      update sims set state = state
      where expires_at <= now() and state not in ('expired', 'suspended')
      returning tenant_id, iccid`.execute(trx);
    const alerts = await sql<{ tenant_id: number; iccid: string; user_id: number | null; kind: string | null }>`
      with k as (
        select s.id, s.tenant_id, s.iccid, s.device_id,
          case when s.state = 'expired' then 'expired'
               when s.state = 'exhausted' then 'exhausted'
               when s.state <> 'suspended' and s.expires_at <= now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS}) then 'expiring'
               when s.state = 'low' then 'low'
               else '' end as kind
        from sims s
        where s.tenant_id is not null
          and ((s.state <> 'active' or s.alerted_state <> '')
            or s.expires_at <= now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS}))
      ),
      changed as (
        update sims s set alerted_state = k.kind from k
        where s.id = k.id and s.alerted_state <> k.kind
        returning s.tenant_id, s.iccid, s.device_id, k.kind
      ),
      sent as (
        insert into messages (tenant_id, user_id, kind, title, body, link)
        select c.tenant_id, u.id, 'sim.' || c.kind,
          case c.kind when 'low' then ${TITLES.low} when 'exhausted' then ${TITLES.exhausted}
            when 'expiring' then ${TITLES.expiring} else ${TITLES.expired} end,
          'ICCID ' || c.iccid || coalesce(' · ' || d.sn, '') || coalesce(' · ' || nullif(d.name, ''), ''),
          '/flowRate/flowRateSearch?keyword=' || c.iccid
        from changed c
        left join devices d on d.id = c.device_id
        -- who reads the traffic query and reaches the SIM's device (a SIM in no device: the account's readers of scope all)
        join lateral (${readersOf({
          tenantId: sql.ref('c.tenant_id'),
          departmentId: sql.ref('d.department_id'),
          ownerId: sql.ref('d.owner_id'),
          permission: PERMISSIONS.flowRateView,
        })}) u on true
        where c.kind <> ''
        returning tenant_id, user_id
      )
      select c.tenant_id, c.iccid, null::bigint as user_id, c.kind from changed c
      union all
      select distinct tenant_id, null, user_id, null from sent`.execute(trx);
    let pruned = 0;
    for (;;) {
      const res = await sql`
        delete from sim_usage_daily where ctid in (
          select ctid from sim_usage_daily where day < (now() at time zone 'Asia/Shanghai')::date - ${SIM_USAGE_KEEP_DAYS}::int
          limit ${PRUNE_BATCH})`.execute(trx);
      const n = Number(res.numAffectedRows ?? 0);
      pruned += n;
      if (n < PRUNE_BATCH) break;
    }
    return { expired: expired.rows, alerts: alerts.rows, pruned };
  });
  if (!done) return { expired: 0, alerted: 0, pruned: 0 };
  const sims = new Map<number, Set<string>>();
  const users = new Map<number, number>();
  for (const r of done.expired) {
    if (r.tenant_id !== null) sims.set(r.tenant_id, (sims.get(r.tenant_id) ?? new Set()).add(r.iccid));
  }
  let alerted = 0;
  for (const r of done.alerts) {
    if (r.user_id !== null) users.set(r.user_id, r.tenant_id);
    else if (r.kind) alerted++;
  }
  for (const [tenantId, iccids] of sims) events.publish(tenantId, { type: 'sim', data: { iccids: [...iccids] } });
  for (const [userId, tenantId] of users) events.publish(tenantId, { type: 'message', data: { userId } });
  return { expired: done.expired.length, alerted, pruned: done.pruned };
}

/** Sweeps the SIMs every SIM_SWEEP_MS on every node (the lock makes it once across nodes). */
export const simUpkeep = fp<{ db: Db; events: EventSink; everyMs?: number }>(
  async (app: FastifyInstance, { db, events, everyMs = SIM_SWEEP_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `sims: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'sims',
    });
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'sweep', () => sweepSims(db, events), 'cluster');
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'sim-upkeep' },
);
