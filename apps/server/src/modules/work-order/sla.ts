import { WORK_ORDER_REOPEN_DAYS, type WorkOrderState, type WorkOrderTarget } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { changedFields } from '../../lib/audit.ts';
import { badRequest } from '../../plugins/errors.ts';
import type { Caller } from './caller.ts';
import { WorkOrderRepository, type OrderRow } from './repository/index.ts';

const OPEN_STATES: WorkOrderState[] = ['submitted', 'processing', 'waiting'];
const PRIORITY_ORDER = ['urgent', 'high', 'normal', 'low'];

/** Not finished, and past the first-response target unanswered or past the resolution target. */
export const isOverdue = (r: OrderRow, now = Date.now()) =>
  OPEN_STATES.includes(r.state as WorkOrderState) &&
  ((r.first_response_at == null && new Date(r.response_due_at).getTime() < now) ||
    new Date(r.resolve_due_at).getTime() < now);

/** The first-response and resolution targets per priority, which set an order's due times when it is opened. */
export class WorkOrderSla {
  constructor(private repo: WorkOrderRepository) {}

  async targets(): Promise<WorkOrderTarget[]> {
    const rows = await this.repo.settings.targets();
    return rows
      .sort((a, b) => PRIORITY_ORDER.indexOf(a.priority) - PRIORITY_ORDER.indexOf(b.priority))
      .map((r) => ({ priority: r.priority, responseMinutes: r.response_minutes, resolveMinutes: r.resolve_minutes }));
  }

  /** New targets: they apply to orders opened from now on (an open order keeps the due times it was given). */
  async setTargets(c: Caller, targets: WorkOrderTarget[]): Promise<WorkOrderTarget[]> {
    const seen = new Set<string>();
    targets.forEach((t, i) => {
      if (seen.has(t.priority)) throw badRequest(`targets.${i}.priority`, 'workOrder.targetsDuplicate');
      seen.add(t.priority);
      if (t.resolveMinutes < t.responseMinutes)
        throw badRequest(`targets.${i}.resolveMinutes`, 'workOrder.resolveBeforeResponse');
    });
    const before = await this.targets();
    await this.repo.settings.updateTargets(targets, c.user.id);
    const after = await this.targets();
    const flat = (ts: WorkOrderTarget[]) =>
      Object.fromEntries(ts.map((t) => [t.priority, `${t.responseMinutes}/${t.resolveMinutes}`]));
    await this.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.targets',
      resource: 'workOrderTargets',
      result: 'ok',
      changes: changedFields(flat(before), flat(after)),
    });
    return after;
  }
}

/**
 * Closes resolved work orders WORK_ORDER_REOPEN_DAYS after their resolution (the customer may reopen one until
 * then), once across nodes (a transaction-scoped advisory lock; another node's sweep under way makes this one skip).
 * Each gets a `state` event by the system, a line in the system log, and the consoles hear it.
 */
export async function closeResolvedOrders(
  db: Db,
  orders: { announce(id: number, tenantId: number, state: WorkOrderState): Promise<void> },
): Promise<number> {
  const repo = new WorkOrderRepository(db);
  const closed = await repo.closeResolved(WORK_ORDER_REOPEN_DAYS);
  for (const r of closed) {
    await repo.crossings.audit({
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
