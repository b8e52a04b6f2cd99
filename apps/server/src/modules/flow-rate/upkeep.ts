import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { MESSAGES } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import { Periodic } from '../../lib/periodic.ts';
import type { EventSink } from '../task/index.ts';
import { FlowRateRepository } from './repository.ts';

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
  const done = await new FlowRateRepository(db).transaction(async (repo) => {
    if (!(await repo.tryLockSweep())) return null;
    const expired = await repo.expirePlans();
    const alerts = await repo.alertChanged(TITLES);
    let pruned = 0;
    for (;;) {
      const n = await repo.pruneUsage(PRUNE_BATCH);
      pruned += n;
      if (n < PRUNE_BATCH) break;
    }
    return { expired, alerts, pruned };
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
