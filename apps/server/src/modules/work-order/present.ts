import {
  PERMISSIONS,
  type WorkOrderAttachment,
  type WorkOrderDetail,
  type WorkOrderEvent,
  type WorkOrderItem,
  type WorkOrderState,
} from '@cpc/contracts';
import { presentRichHtml } from '../../lib/rich-html.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { hasPermission } from '../../plugins/auth.ts';
import type { Caller } from './caller.ts';
import { allows, reopenUntil } from './machine.ts';
import type { NamedOrder, WorkOrderCrossingsRepository, WorkOrderRepository } from './repository/index.ts';
import { isOverdue } from './sla.ts';

export const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());
export const nameOf = (u: { nickname: string | null; username: string | null } | null | undefined) =>
  u ? u.nickname || u.username || '' : '';

type Rows<T, M extends keyof T> = T[M] extends (...a: never[]) => Promise<infer R> ? R : never;
/** What the detail shows beside the order: what it names, its attachments and timeline, as read for `c`. */
export interface DetailParts {
  devices: Rows<WorkOrderCrossingsRepository, 'devicesNamed'>;
  orders: Rows<WorkOrderCrossingsRepository, 'ordersNamed'>;
  attachments: Rows<WorkOrderRepository, 'attachmentsOf'>;
  events: Rows<WorkOrderRepository, 'eventsOf'>;
}

/** Whether the reader's side has something new: the other side wrote after the reader's side last read. */
const isUnread = (r: NamedOrder, staff: boolean) => {
  const other = staff ? r.last_customer_at : r.last_staff_at;
  const read = staff ? r.staff_read_at : r.customer_read_at;
  return other != null && (read == null || new Date(other) > new Date(read));
};

export function presentItem(r: NamedOrder, staff: boolean): WorkOrderItem {
  return {
    id: r.id,
    orderNo: r.order_no,
    tenantId: r.tenant_id,
    tenantName: r.tenant_name,
    type: r.type,
    priority: r.priority,
    state: r.state,
    title: r.title,
    openedBy: r.user_id
      ? { id: r.user_id, name: nameOf({ nickname: r.opener_nickname, username: r.opener_username }) }
      : null,
    assignee: r.assignee_id
      ? { id: r.assignee_id, name: nameOf({ nickname: r.assignee_nickname, username: r.assignee_username }) }
      : null,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    responseDueAt: iso(r.response_due_at)!,
    resolveDueAt: iso(r.resolve_due_at)!,
    firstResponseAt: iso(r.first_response_at),
    resolvedAt: iso(r.resolved_at),
    overdue: isOverdue(r),
    unread: isUnread(r, staff),
    rating: r.rating,
  };
}

/** One order as `c` reads it, with its parts (`DetailParts`). */
export function presentDetail(c: Caller, r: NamedOrder, parts: DetailParts, storage: ObjectStorage): WorkOrderDetail {
  const present = (a: DetailParts['attachments'][number]): WorkOrderAttachment => ({
    id: a.id,
    name: a.name,
    size: Number(a.size),
    mime: a.mime,
    url: storage.signedUrl(a.object_key),
  });
  const byEvent = new Map<number, WorkOrderAttachment[]>();
  for (const a of parts.attachments) {
    if (a.event_id != null) byEvent.set(a.event_id, [...(byEvent.get(a.event_id) ?? []), present(a)]);
  }
  const resolvedAt = r.resolved_at ? new Date(r.resolved_at) : null;
  const until = r.state === 'resolved' && resolvedAt ? reopenUntil(resolvedAt) : null;
  return {
    ...presentItem(r, c.staff),
    descriptionHtml: presentRichHtml(r.description_html, storage),
    devices: parts.devices.map((d) => ({ id: d.id, sn: d.sn, name: d.name })),
    orders: parts.orders.map((o) => ({ id: o.id, orderNo: o.order_no })),
    attachments: parts.attachments.filter((a) => a.event_id == null).map(present),
    events: parts.events.map((e): WorkOrderEvent => ({
      id: e.id,
      kind: e.kind,
      side: e.side,
      author: e.author_id ? { id: e.author_id, name: nameOf(e) } : null,
      bodyHtml: presentRichHtml(e.body_html, storage),
      fromState: (e.from_state as WorkOrderState | null) ?? null,
      toState: (e.to_state as WorkOrderState | null) ?? null,
      data: (e.data ?? {}) as Record<string, unknown>,
      attachments: byEvent.get(e.id) ?? [],
      createdAt: iso(e.created_at)!,
    })),
    ratingComment: r.rating_comment,
    closedAt: iso(r.closed_at),
    reopenUntil: until && until.getTime() > Date.now() ? until.toISOString() : null,
    can: may(c, r, until),
  };
}

/** What `c` may do to the order now (the detail's `can`): its side's permission and the state machine. */
function may(c: Caller, r: NamedOrder, until: Date | null): WorkOrderDetail['can'] {
  const state = r.state;
  const customerMay = !c.staff && hasPermission(c.user, PERMISSIONS.workOrderEdit);
  const staffMay = c.staff && hasPermission(c.user, PERMISSIONS.workOrderHandle);
  return {
    edit: customerMay && allows('edit', state),
    withdraw: customerMay && allows('withdraw', state),
    reply: (customerMay && allows('customerReply', state)) || (staffMay && allows('reply', state)),
    reopen: customerMay && allows('reopen', state) && until != null && until.getTime() > Date.now(),
    close: customerMay && allows('close', state),
    rate: customerMay && allows('rate', state) && r.rating == null,
    take: staffMay && allows('take', state) && r.assignee_id !== c.user.id,
    assign: staffMay && allows('assign', state),
    resolve: staffMay && allows('resolve', state),
  };
}
