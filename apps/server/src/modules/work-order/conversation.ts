import { PERMISSIONS, type CannedReply } from '@cpc/contracts';
import { changedFields } from '../../lib/audit.ts';
import { presentRichHtml, sanitizeRichHtml } from '../../lib/rich-html.ts';
import { hasPermission } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { NewMessage } from '../inbox/index.ts';
import { assertStaff, type Caller } from './caller.ts';
import { messageTo, stateEvent, type WorkOrderContext } from './context.ts';
import { transition, type WorkOrderAction } from './machine.ts';
import type { OrderRow, WorkOrderRepository } from './repository/index.ts';

export interface ReplyBody {
  id: number;
  bodyHtml: string;
  attachments: string[];
  action: 'reply' | 'ask' | 'note' | 'resolve';
}

/** Writer's rich text, sanitised; its images must be objects of the writer's tenant (400 naming `field`). */
export async function sanitized(repo: WorkOrderRepository, writerTenant: number, html: string, field: string) {
  // NUL cannot be stored in text (PostgreSQL refuses it): it goes with the rest of what is not kept
  const clean = sanitizeRichHtml(html.replaceAll('\u0000', ''));
  await repo.crossings.assertOwnObjects(writerTenant, clean.objectKeys, field);
  return clean;
}

/** Attachment keys must be objects of the writer's tenant uploaded to the `attachment` bucket. */
export async function attachmentObjects(repo: WorkOrderRepository, writerTenant: number, keys: string[]) {
  const unique = [...new Set(keys)];
  if (!unique.length) return [];
  const rows = await repo.crossings.uploadedAttachments(writerTenant, unique);
  if (rows.length !== unique.length) throw badRequest('attachments', 'workOrder.attachmentMissing');
  return rows;
}

/** The conversation of an order: replies with their attachments, read marks, and staff's canned replies. */
export class WorkOrderConversation {
  constructor(private ctx: WorkOrderContext) {}

  /** Marks the caller's side read. */
  async read(c: Caller, id: number): Promise<void> {
    if (!(await this.ctx.repo.reaches(c, id))) throw notFound('work order');
    await this.ctx.repo.markRead(id, c.staff);
  }

  /**
   * A reply: a customer's (`reply` only), or staff's `reply`, `ask`, `note` (internal) or `resolve`. The text is
   * sanitised, its images must be the writer's tenant's objects, its attachments the writer's uploads.
   */
  async reply(c: Caller, body: ReplyBody): Promise<void> {
    if (c.staff) assertStaff(c);
    else if (body.action !== 'reply') throw badRequest('action', 'workOrder.customerAction');
    const action: WorkOrderAction = c.staff ? body.action : 'customerReply';
    const { row, to, announce } = await this.ctx.repo.lockedOrder(c, body.id, (repo, row) =>
      this.writeReply(repo, c, row, action, body),
    );
    announce(this.ctx.events);
    await this.ctx.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: `workOrder.${action === 'customerReply' ? 'reply' : action}`,
      resource: 'workOrder',
      resourceId: body.id,
      result: 'ok',
      details: { orderNo: row.order_no, tenantId: row.tenant_id, attachments: body.attachments.length },
      changes: changedFields({ state: row.state }, { state: to }),
    });
    await this.ctx.announce(row.id, row.tenant_id, to, action === 'note');
  }

  /** Under the row lock: the machine decides, the text, its attachments and the new state are written. */
  private async writeReply(
    repo: WorkOrderRepository,
    c: Caller,
    row: OrderRow,
    action: WorkOrderAction,
    body: ReplyBody,
  ) {
    const to = transition(action, row);
    const side = c.staff ? 'staff' : 'customer';
    const writer = c.user.tenantId;
    const clean = await sanitized(repo, writer, body.bodyHtml, 'bodyHtml');
    const objects = await attachmentObjects(repo, writer, body.attachments);
    const hasText = clean.hasContent || objects.length > 0;
    if (!hasText && action !== 'resolve') throw badRequest('bodyHtml', 'workOrder.emptyReply');
    const now = new Date();
    const set: Partial<OrderRow> = { state: to, updated_at: now };
    if (c.staff && action !== 'note') {
      set.last_staff_at = now;
      set.staff_read_at = now;
      if (!row.first_response_at) set.first_response_at = now;
      if (!row.assignee_id) set.assignee_id = c.user.id;
      if (!row.taken_at) set.taken_at = now;
      if (to === 'resolved') set.resolved_at = now;
    }
    if (!c.staff) {
      set.last_customer_at = now;
      set.customer_read_at = now;
    }
    await repo.updateOrder(row.id, set);
    if (hasText) {
      const eventId = await repo.insertReply({
        work_order_id: row.id,
        tenant_id: row.tenant_id,
        kind: action === 'note' ? 'note' : 'reply',
        side,
        author_id: c.user.id,
        body_html: clean.html,
        data: JSON.stringify(c.staff ? { action } : {}),
      });
      await repo.insertAttachments({ workOrderId: row.id, tenantId: row.tenant_id, eventId }, objects);
    }
    await stateEvent(repo, row, row.state, to, side, c.user.id);
    const notify = await this.replyMessages(repo, c, row, action);
    return { row, to, announce: await repo.crossings.sendMessages(notify) };
  }

  /** Who hears of a reply: the customer side of staff's (not of a note), the assignee of a customer's. */
  private async replyMessages(
    repo: WorkOrderRepository,
    c: Caller,
    row: OrderRow,
    action: WorkOrderAction,
  ): Promise<NewMessage[]> {
    const notify: NewMessage[] = [];
    if (c.staff && action !== 'note') {
      const [kind, title] =
        action === 'ask'
          ? (['workOrder.asked', 'workOrder.askedTitle'] as const)
          : action === 'resolve'
            ? (['workOrder.resolved', 'workOrder.resolvedTitle'] as const)
            : (['workOrder.replied', 'workOrder.repliedTitle'] as const);
      for (const userId of await repo.crossings.customerRecipients(row.tenant_id, row.user_id)) {
        notify.push({
          tenantId: row.tenant_id,
          userId,
          kind,
          title,
          body: `${row.order_no} · ${row.title}`,
          link: `/workOrder/detail?id=${row.id}`,
        });
      }
    }
    if (!c.staff && row.assignee_id)
      notify.push(
        await messageTo(repo, row.assignee_id, row, 'workOrder.customerReplied', 'workOrder.customerRepliedTitle'),
      );
    return notify;
  }

  // -------------------------------------------------------------------------------------------------------------
  // canned replies (staff)

  async cannedList(c: Caller): Promise<CannedReply[]> {
    const rows = await this.ctx.repo.settings.cannedFor(c.user.id);
    return rows.map((r) => this.canned(r));
  }

  private canned(r: { id: number; title: string; body_html: string; owner_id: number | null }): CannedReply {
    return {
      id: r.id,
      title: r.title,
      bodyHtml: presentRichHtml(r.body_html, this.ctx.storage),
      shared: r.owner_id == null,
    };
  }

  /** Shared replies need workOrder:settings; one's own workOrder:handle. */
  private mayWriteCanned(c: Caller, shared: boolean) {
    const needed = shared ? PERMISSIONS.workOrderSettings : PERMISSIONS.workOrderHandle;
    if (!hasPermission(c.user, needed)) {
      if (shared) throw new AppError(403, 'workOrder.sharedNeedsSettings');
      throw new AppError(403, 'auth.permissionRequired', { permission: needed });
    }
  }

  async cannedCreate(c: Caller, body: { title: string; bodyHtml: string; shared: boolean }): Promise<CannedReply> {
    this.mayWriteCanned(c, body.shared);
    const clean = await sanitized(this.ctx.repo, c.user.tenantId, body.bodyHtml, 'bodyHtml');
    const row = await this.ctx.repo.settings.insertCanned({
      owner_id: body.shared ? null : c.user.id,
      title: body.title,
      body_html: clean.html,
    });
    await this.ctx.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.cannedCreate',
      resource: 'workOrderCanned',
      resourceId: row.id,
      result: 'ok',
      changes: changedFields({}, { title: row.title, body_html: row.body_html, shared: body.shared }),
    });
    return this.canned(row);
  }

  private async cannedOf(c: Caller, id: number) {
    const row = await this.ctx.repo.settings.findCanned(id, c.user.id);
    if (!row) throw notFound('canned reply');
    this.mayWriteCanned(c, row.owner_id == null);
    return row;
  }

  async cannedUpdate(c: Caller, body: { id: number; title?: string; bodyHtml?: string }): Promise<CannedReply> {
    const before = await this.cannedOf(c, body.id);
    const set: { title?: string; body_html?: string } = {};
    if (body.title !== undefined) set.title = body.title;
    if (body.bodyHtml !== undefined)
      set.body_html = (await sanitized(this.ctx.repo, c.user.tenantId, body.bodyHtml, 'bodyHtml')).html;
    const row = await this.ctx.repo.settings.updateCanned(body.id, set);
    await this.ctx.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.cannedUpdate',
      resource: 'workOrderCanned',
      resourceId: row.id,
      result: 'ok',
      changes: changedFields({ title: before.title, body_html: before.body_html }, set),
    });
    return this.canned(row);
  }

  async cannedDelete(c: Caller, id: number): Promise<void> {
    const before = await this.cannedOf(c, id);
    await this.ctx.repo.settings.deleteCanned(id);
    await this.ctx.repo.crossings.audit({
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.cannedDelete',
      resource: 'workOrderCanned',
      resourceId: id,
      result: 'ok',
      changes: changedFields({ title: before.title, body_html: before.body_html }, {}),
    });
  }
}
