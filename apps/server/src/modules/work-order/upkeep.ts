import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sql } from 'kysely';
import { WORK_ORDER_REOPEN_DAYS } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { audit } from '../../lib/audit.ts';
import { Periodic } from '../../lib/periodic.ts';
import type { WorkOrderService } from './service.ts';

/** The advisory lock key of the work-order sweep (a constant of its own): one node sweeps at a time. */
const WORK_ORDER_SWEEP_LOCK = 0x574f_5243; // "WORC"
export const WORK_ORDER_SWEEP_MS = 60_000;

/**
 * Closes resolved work orders WORK_ORDER_REOPEN_DAYS after their resolution (the customer may reopen one until
 * then), once across nodes (a transaction-scoped advisory lock; another node's sweep under way makes this one skip).
 * Each gets a `state` event by the system, a line in the system log, and the consoles hear it.
 */
export async function closeResolvedOrders(db: Db, orders: Pick<WorkOrderService, 'announce'>): Promise<number> {
  const closed = await db.transaction().execute(async (trx) => {
    const { rows: lock } = await sql<{ ok: boolean }>`
      select pg_try_advisory_xact_lock(${WORK_ORDER_SWEEP_LOCK}) as ok`.execute(trx);
    if (!lock[0]?.ok) return [];
    const { rows } = await sql<{ id: number; tenant_id: number; order_no: string }>`
      with done as (
        update work_orders set state = 'closed', closed_at = now(), updated_at = now()
        where state = 'resolved' and resolved_at < now() - make_interval(days => ${WORK_ORDER_REOPEN_DAYS})
        returning id, tenant_id, order_no
      ), logged as (
        insert into work_order_events (work_order_id, tenant_id, kind, side, from_state, to_state)
        select id, tenant_id, 'state', 'system', 'resolved', 'closed' from done
      )
      select id, tenant_id, order_no from done`.execute(trx);
    return rows;
  });
  for (const r of closed) {
    await audit(db, {
      tenantId: r.tenant_id,
      userId: null,
      ip: '',
      action: 'workOrder.autoClose',
      resource: 'workOrder',
      resourceId: r.id,
      result: 'ok',
      details: { orderNo: r.order_no, afterDays: WORK_ORDER_REOPEN_DAYS },
      changes: { state: { before: 'resolved', after: 'closed' } },
    });
    await orders.announce(r.id, r.tenant_id, 'closed');
  }
  return closed.length;
}

/** Runs the sweep every WORK_ORDER_SWEEP_MS on every node (the lock makes it once across nodes). */
export const workOrderUpkeep = fp<{ db: Db; orders: WorkOrderService; everyMs?: number }>(
  async (app: FastifyInstance, { db, orders, everyMs = WORK_ORDER_SWEEP_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `work orders: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'work orders',
    });
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'close-resolved', () => closeResolvedOrders(db, orders), 'cluster');
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'work-order-upkeep' },
);
