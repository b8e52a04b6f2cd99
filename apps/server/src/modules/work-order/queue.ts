import {
  WORK_ORDER_QUEUE_TOTAL_CAP,
  WORK_ORDER_TOTAL_CAP,
  type WorkOrderDetail,
  type WorkOrderItem,
} from '@cpc/contracts';
import { changedFields } from '../../lib/audit.ts';
import { badRequest, notFound } from '../../plugins/errors.ts';
import { assertStaff, type Caller } from './caller.ts';
import { messageTo, stateEvent, type WorkOrderContext } from './context.ts';
import { transition } from './machine.ts';
import { nameOf, presentDetail, presentItem } from './present.ts';
import type { ListQuery } from './repository/index.ts';

/**
 * The orders as lists and one by one: a customer's within its data scope, staff's queue of every tenant with its
 * filters; and the staff side of handling one: taking it, assigning it, the staff who may.
 */
export class WorkOrderQueue {
  constructor(private ctx: WorkOrderContext) {}

  async list(c: Caller, q: ListQuery): Promise<{ list: WorkOrderItem[]; total: number }> {
    const { pageNo, pageSize } = q;
    const cap = c.staff ? WORK_ORDER_QUEUE_TOTAL_CAP : WORK_ORDER_TOTAL_CAP;
    const offset = (pageNo - 1) * pageSize;
    const { rows, total } = await this.ctx.repo.listPage(c, q, { offset, pageSize, cap });
    return { list: rows.map((r) => presentItem(r, c.staff)), total };
  }

  /** One order as `c` reads it (404 outside its reach). */
  async detail(c: Caller, id: number): Promise<WorkOrderDetail> {
    const { repo } = this.ctx;
    const r = await repo.findNamed(c, id);
    if (!r) throw notFound('work order');
    // the order may name devices and orders outside a customer reader's data scope (a colleague of wider scope
    // filed it in the reader's department): those are left out
    const access = c.staff ? null : c.access;
    const [devices, orders, attachments, events] = await Promise.all([
      r.device_ids.length ? repo.crossings.devicesNamed(r.tenant_id, r.device_ids, access) : [],
      r.order_ids.length ? repo.crossings.ordersNamed(r.tenant_id, r.order_ids, access) : [],
      repo.attachmentsOf(r.id),
      // internal notes never leave the staff side
      repo.eventsOf(r.id, c.staff),
    ]);
    return presentDetail(c, r, { devices, orders, attachments, events }, this.ctx.storage);
  }

  /** Staff take an order: it is assigned to them (and leaves `submitted`), under the row lock. */
  async take(c: Caller, id: number): Promise<void> {
    assertStaff(c);
    const { row, to } = await this.ctx.repo.lockedOrder(c, id, async (repo, row) => {
      const to = transition('take', row);
      const now = new Date();
      await repo.updateOrder(row.id, {
        state: to,
        updated_at: now,
        assignee_id: c.user.id,
        taken_at: row.taken_at ?? now,
      });
      await stateEvent(repo, row, row.state, to, 'staff', c.user.id);
      if (row.assignee_id !== c.user.id) {
        await repo.insertEvent({
          work_order_id: row.id,
          tenant_id: row.tenant_id,
          kind: 'assign',
          side: 'staff',
          author_id: c.user.id,
          data: JSON.stringify({ assigneeId: c.user.id, assigneeName: c.user.username }),
        });
      }
      return { row, to };
    });
    await this.ctx.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.take',
      resource: 'workOrder',
      resourceId: id,
      result: 'ok',
      details: { orderNo: row.order_no, tenantId: row.tenant_id },
      changes: changedFields({ state: row.state, assignee_id: row.assignee_id }, { state: to, assignee_id: c.user.id }),
    });
    await this.ctx.announce(row.id, row.tenant_id, to);
  }

  /** Assigns an order to a staff member who may handle it (who hears of it), or back to the queue (null). */
  async assign(c: Caller, id: number, assigneeId: number | null): Promise<void> {
    assertStaff(c);
    let assigneeName = '';
    if (assigneeId != null) {
      const staff = await this.assignees([assigneeId]);
      if (!staff.length) throw badRequest('assigneeId', 'workOrder.assigneeNotStaff');
      assigneeName = staff[0].name;
    }
    const { row, to, announce } = await this.ctx.repo.lockedOrder(c, id, async (repo, row) => {
      const to = transition(assigneeId == null ? 'unassign' : 'assign', row);
      const now = new Date();
      await repo.updateOrder(row.id, {
        state: to,
        assignee_id: assigneeId,
        updated_at: now,
        ...(assigneeId != null && !row.taken_at ? { taken_at: now } : {}),
      });
      await stateEvent(repo, row, row.state, to, 'staff', c.user.id);
      await repo.insertEvent({
        work_order_id: row.id,
        tenant_id: row.tenant_id,
        kind: 'assign',
        side: 'staff',
        author_id: c.user.id,
        data: JSON.stringify({ assigneeId, assigneeName }),
      });
      const notify =
        assigneeId != null && assigneeId !== c.user.id && assigneeId !== row.assignee_id
          ? [await messageTo(repo, assigneeId, row, 'workOrder.assigned', 'workOrder.assignedTitle')]
          : [];
      return { row, to, announce: await repo.crossings.sendMessages(notify) };
    });
    announce(this.ctx.events);
    await this.ctx.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.assign',
      resource: 'workOrder',
      resourceId: id,
      result: 'ok',
      details: { orderNo: row.order_no, tenantId: row.tenant_id },
      changes: changedFields(
        { state: row.state, assignee_id: row.assignee_id },
        { state: to, assignee_id: assigneeId },
      ),
    });
    await this.ctx.announce(row.id, row.tenant_id, to);
  }

  /** Active staff users who hold workOrder:handle (the Admin role holds all); only `ids` when given. */
  async assignees(ids?: number[]): Promise<Array<{ id: number; name: string }>> {
    const rows = await this.ctx.repo.crossings.handlers(ids);
    return rows.map((r) => ({ id: r.id, name: nameOf(r) }));
  }
}
