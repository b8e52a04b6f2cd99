import type { WorkOrderPriority } from '@cpc/contracts';
import { changedFields } from '../../lib/audit.ts';
import { AppError, badRequest } from '../../plugins/errors.ts';
import type { NewMessage } from '../inbox/index.ts';
import { assertCustomer, type Caller } from './caller.ts';
import { messageTo, stateEvent, type WorkOrderContext } from './context.ts';
import { attachmentObjects, sanitized } from './conversation.ts';
import { transition } from './machine.ts';
import type { OrderRow, WorkOrderRepository } from './repository/index.ts';

export interface CreateBody {
  type: OrderRow['type'];
  priority: WorkOrderPriority;
  title: string;
  descriptionHtml: string;
  deviceIds: number[];
  orderIds: number[];
  attachments: string[];
  clientRequestId?: string;
}

export interface EditBody {
  id: number;
  type?: OrderRow['type'];
  priority?: WorkOrderPriority;
  title?: string;
  descriptionHtml?: string;
  deviceIds?: number[];
  orderIds?: number[];
  attachments?: string[];
}

type Edited = Partial<Pick<OrderRow, 'type' | 'priority' | 'title' | 'description_html' | 'device_ids' | 'order_ids'>>;

/** The devices (within the caller's data scope) and orders a customer names, each once; 400 for any other. */
async function checkSubjects(repo: WorkOrderRepository, c: Caller, deviceIds: number[], orderIds: number[]) {
  const devices = [...new Set(deviceIds)];
  const orders = [...new Set(orderIds)];
  if (devices.length && (await repo.crossings.countDevicesInScope(c.access, devices)) !== devices.length)
    throw badRequest('deviceIds', 'workOrder.deviceNotYours');
  if (orders.length && (await repo.crossings.countOrdersOfTenant(c.user.tenantId, orders)) !== orders.length)
    throw badRequest('orderIds', 'workOrder.orderNotYours');
  return { devices, orders };
}

/** The customer's side of an order's life: opening, editing, withdrawing, reopening, closing and rating it. */
export class WorkOrderLifecycle {
  constructor(private ctx: WorkOrderContext) {}

  async create(c: Caller, body: CreateBody): Promise<number> {
    assertCustomer(c);
    const tenantId = c.user.tenantId;
    const sent = async () =>
      body.clientRequestId ? await this.ctx.repo.findByClientRequest(tenantId, body.clientRequestId) : undefined;
    // the same submission again (a double click, a retry): the order it opened
    const again = await sent();
    if (again) return again.id;
    const { id, order_no, after } = await this.ctx.repo.transaction((repo) => this.insert(repo, c, body, sent));
    if (!after) return id;
    await this.ctx.repo.crossings.audit({
      tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.create',
      resource: 'workOrder',
      resourceId: id,
      result: 'ok',
      details: { orderNo: order_no },
      changes: changedFields({}, after),
    });
    await this.ctx.announce(id, tenantId, 'submitted');
    return id;
  }

  /** In one transaction: the order, its first `state` event, its attachments; `after` null when it was a repeat. */
  private async insert(
    repo: WorkOrderRepository,
    c: Caller,
    body: CreateBody,
    sent: () => Promise<{ id: number } | undefined>,
  ) {
    const tenantId = c.user.tenantId;
    const description = await sanitized(repo, tenantId, body.descriptionHtml, 'descriptionHtml');
    const { devices, orders } = await checkSubjects(repo, c, body.deviceIds, body.orderIds);
    const objects = await attachmentObjects(repo, tenantId, body.attachments);
    const values = {
      type: body.type,
      priority: body.priority,
      title: body.title,
      description_html: description.html,
      device_ids: devices,
      order_ids: orders,
    };
    const row = await repo.insertOrder({
      ...values,
      tenant_id: tenantId,
      user_id: c.user.id,
      department_id: c.user.departmentId,
      client_request_id: body.clientRequestId ?? null,
    });
    // two of the same submission at once: one insert wins, the other answers its order
    if (!row) return { id: (await sent())!.id, order_no: '', after: null };
    await repo.insertEvent({
      work_order_id: row.id,
      tenant_id: tenantId,
      kind: 'state',
      side: 'customer',
      author_id: c.user.id,
      to_state: 'submitted',
    });
    await repo.insertAttachments({ workOrderId: row.id, tenantId }, objects);
    return { ...row, after: { ...values, attachments: objects.map((o) => o.key) } };
  }

  async update(c: Caller, body: EditBody): Promise<void> {
    assertCustomer(c);
    const tenantId = c.user.tenantId;
    const { before, after, row } = await this.ctx.repo.lockedOrder(c, body.id, (repo, row) =>
      this.edit(repo, c, row, body),
    );
    await this.ctx.repo.crossings.audit({
      tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.update',
      resource: 'workOrder',
      resourceId: body.id,
      result: 'ok',
      changes: changedFields(before, after),
    });
    await this.ctx.announce(row.id, tenantId, row.state);
  }

  /** Under the row lock: the fields given, checked; an `edit` event naming the fields that changed. */
  private async edit(repo: WorkOrderRepository, c: Caller, row: OrderRow, body: EditBody) {
    transition('edit', row);
    const set = await this.editedFields(repo, c, body);
    const { beforeKeys, afterKeys } = await this.editAttachments(repo, c.user.tenantId, row, body.attachments);
    const beforeValues: Record<string, unknown> = {
      type: row.type,
      priority: row.priority,
      title: row.title,
      description_html: row.description_html,
      device_ids: row.device_ids,
      order_ids: row.order_ids,
      attachments: beforeKeys,
    };
    const afterValues: Record<string, unknown> = {
      ...set,
      ...(body.attachments !== undefined ? { attachments: afterKeys } : {}),
    };
    const changes = changedFields(beforeValues, afterValues);
    if (Object.keys(changes).length) {
      // a new priority takes today's targets for it, counted from when the order was opened
      const retarget = set.priority && set.priority !== row.priority ? set.priority : undefined;
      await repo.updateOrder(row.id, { ...set, updated_at: new Date() }, retarget);
      await repo.insertEvent({
        work_order_id: row.id,
        tenant_id: c.user.tenantId,
        kind: 'edit',
        side: 'customer',
        author_id: c.user.id,
        data: JSON.stringify({ fields: Object.keys(changes) }),
      });
    }
    return { before: beforeValues, after: afterValues, row };
  }

  /** The order's fields an edit gives, its text sanitised and what it names checked. */
  private async editedFields(repo: WorkOrderRepository, c: Caller, body: EditBody): Promise<Edited> {
    const set: Edited = {};
    if (body.type !== undefined) set.type = body.type;
    if (body.priority !== undefined) set.priority = body.priority;
    if (body.title !== undefined) set.title = body.title;
    if (body.descriptionHtml !== undefined)
      set.description_html = (await sanitized(repo, c.user.tenantId, body.descriptionHtml, 'descriptionHtml')).html;
    if (body.deviceIds !== undefined || body.orderIds !== undefined) {
      const { devices, orders } = await checkSubjects(repo, c, body.deviceIds ?? [], body.orderIds ?? []);
      if (body.deviceIds !== undefined) set.device_ids = devices;
      if (body.orderIds !== undefined) set.order_ids = orders;
    }
    return set;
  }

  /** The order's own attachments before, and after `keys` (when given) replaced them. */
  private async editAttachments(
    repo: WorkOrderRepository,
    tenantId: number,
    row: OrderRow,
    keys: string[] | undefined,
  ): Promise<{ beforeKeys: string[]; afterKeys: string[] }> {
    const current = await repo.bodyAttachments(row.id);
    const beforeKeys = current.map((a) => a.object_key);
    if (keys === undefined) return { beforeKeys, afterKeys: beforeKeys };
    const keep = new Set(keys);
    const added = keys.filter((k) => !beforeKeys.includes(k));
    const objects = await attachmentObjects(repo, tenantId, added);
    const gone = current.filter((a) => !keep.has(a.object_key)).map((a) => a.id);
    if (gone.length) await repo.deleteAttachments(gone);
    await repo.insertAttachments({ workOrderId: row.id, tenantId }, objects);
    return { beforeKeys, afterKeys: [...beforeKeys.filter((k) => keep.has(k)), ...objects.map((o) => o.key)] };
  }

  /**
   * A customer's state change without a text: withdraw, reopen, close. Under the row lock: the machine decides,
   * the timestamps follow, a `state` event is written, the system log and the consoles hear it.
   */
  async change(c: Caller, id: number, action: 'withdraw' | 'reopen' | 'close'): Promise<void> {
    assertCustomer(c);
    const { row, to, announce } = await this.ctx.repo.lockedOrder(c, id, async (repo, row) => {
      const to = transition(action, row);
      const now = new Date();
      const set: Partial<OrderRow> = { state: to, updated_at: now };
      const notify: NewMessage[] = [];
      if (action === 'withdraw') set.withdrawn_at = now;
      if (action === 'close') set.closed_at = now;
      if (action === 'reopen') {
        set.resolved_at = null;
        set.last_customer_at = now;
        if (row.assignee_id)
          notify.push(await messageTo(repo, row.assignee_id, row, 'workOrder.reopened', 'workOrder.reopenedTitle'));
      }
      await repo.updateOrder(row.id, set);
      await stateEvent(repo, row, row.state, to, 'customer', c.user.id);
      return { row, to, announce: await repo.crossings.sendMessages(notify) };
    });
    announce(this.ctx.events);
    await this.ctx.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: `workOrder.${action}`,
      resource: 'workOrder',
      resourceId: id,
      result: 'ok',
      details: { orderNo: row.order_no, tenantId: row.tenant_id },
      changes: changedFields({ state: row.state, assignee_id: row.assignee_id }, { state: to }),
    });
    await this.ctx.announce(row.id, row.tenant_id, to);
  }

  async rate(c: Caller, id: number, rating: number, comment: string): Promise<void> {
    assertCustomer(c);
    const row = await this.ctx.repo.lockedOrder(c, id, async (repo, row) => {
      transition('rate', row);
      if (row.rating != null) throw new AppError(409, 'workOrder.alreadyRated');
      await repo.updateOrder(row.id, {
        rating,
        rating_comment: comment,
        rated_at: new Date(),
        updated_at: new Date(),
      });
      await repo.insertEvent({
        work_order_id: row.id,
        tenant_id: row.tenant_id,
        kind: 'rating',
        side: 'customer',
        author_id: c.user.id,
        data: JSON.stringify({ rating, comment }),
      });
      return row;
    });
    await this.ctx.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.rate',
      resource: 'workOrder',
      resourceId: id,
      result: 'ok',
      changes: changedFields({ rating: null, rating_comment: '' }, { rating, rating_comment: comment }),
    });
    await this.ctx.announce(row.id, row.tenant_id, row.state);
  }

  /** The devices (in the caller's data scope) and orders a customer may name, 20 of each. */
  async options(c: Caller, keyword: string | undefined) {
    assertCustomer(c);
    const [devices, orders] = await this.ctx.repo.crossings.subjectOptions(c.access, keyword);
    return {
      devices: devices.map((d) => ({ id: d.id, sn: d.sn, name: d.name })),
      orders: orders.map((o) => ({ id: o.id, orderNo: o.order_no })),
    };
  }
}
