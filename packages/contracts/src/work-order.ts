import { z } from 'zod';
import { id, keywordField, pageFields, queryId, textLine } from './device.ts';

/**
 * Work orders (issue 14; `/workOrder`): a customer's request to the platform and the conversation about it.
 *
 * | call | permission | request | data |
 * |---|---|---|---|
 * | GET /workOrder/list | workOrder:view (own tenant, data scope) or workOrder:handle (staff: every tenant) | workOrderListQuery | { list: WorkOrderItem[], total } |
 * | GET /workOrder/detail | as list | { id } | WorkOrderDetail (staff also see notes) |
 * | POST /workOrder/create | workOrder:edit | workOrderBody | WorkOrderDetail |
 * | POST /workOrder/update | workOrder:edit, only while `submitted` | workOrderEditBody | WorkOrderDetail |
 * | POST /workOrder/withdraw, /reopen, /close | workOrder:edit | { id } | WorkOrderDetail |
 * | POST /workOrder/reply | workOrder:edit (customer) or workOrder:handle (staff) | workOrderReplyBody | WorkOrderDetail |
 * | POST /workOrder/rate | workOrder:edit, only `closed` | workOrderRateBody | WorkOrderDetail |
 * | POST /workOrder/read | as list | { id } | null (marks the caller's side read) |
 * | POST /workOrder/take, /assign, /resolve | workOrder:handle (staff) | { id }, workOrderAssignBody, workOrderReplyBody | WorkOrderDetail |
 * | GET /workOrder/assignees | workOrder:handle | – | { id, name }[] (staff who may handle) |
 * | GET /workOrder/targets, POST /workOrder/targets | workOrder:handle (read), workOrder:settings (write) | –, workOrderTargetsBody | WorkOrderTarget[] |
 * | GET /workOrder/canned/list, POST /workOrder/canned/create, /update, /delete | workOrder:handle (own), workOrder:settings (shared) | – | CannedReply[] |
 * | GET /workOrder/options | workOrder:edit | { keyword } | { devices, orders } the customer may name |
 *
 * One set of routes answers by who calls: a customer (its tenant, its roles' data scope) reads with workOrder:view
 * and writes with workOrder:edit; staff (the platform tenant) reach every tenant's orders with workOrder:handle only
 * (a staff member without it gets 403 on every call). For staff `/workOrder/list` is the queue: `tenantId`,
 * `assignee` and `overdue` apply (customers' are ignored), the keyword also finds the account's name.
 * Refused transitions answer 409 with a message naming the state (`data.state`). Attachments are uploaded with an
 * upload token of the `attachment` bucket (`GET /user/v1/user/getQnToken?bucket=attachment`): images, pdf, zip and
 * UTF-8 text, each checked by its bytes against its name's extension; then named by their keys here.
 */

export const WORK_ORDER_TYPES = ['device', 'printing', 'traffic', 'billing', 'account', 'other'] as const;
export type WorkOrderType = (typeof WORK_ORDER_TYPES)[number];
export const WORK_ORDER_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type WorkOrderPriority = (typeof WORK_ORDER_PRIORITIES)[number];
/**
 * submitted → processing (staff took it) → waiting (staff asked the customer) → processing (the customer answered)
 * → resolved → closed (by the customer, or by itself after WORK_ORDER_REOPEN_DAYS); resolved → processing when the
 * customer reopens it within WORK_ORDER_REOPEN_DAYS; submitted → withdrawn by the customer.
 */
export const WORK_ORDER_STATES = ['submitted', 'processing', 'waiting', 'resolved', 'closed', 'withdrawn'] as const;
export type WorkOrderState = (typeof WORK_ORDER_STATES)[number];
/** The states in which nobody has to do anything any more. */
export const WORK_ORDER_DONE_STATES: readonly WorkOrderState[] = ['closed', 'withdrawn'];
/** A resolved order can be reopened by the customer this many days after it was resolved; then it closes. */
export const WORK_ORDER_REOPEN_DAYS = 7;
/** The most attachments of one order or one reply, and the largest attachment (bytes, checked by its bytes). */
export const WORK_ORDER_ATTACHMENTS_MAX = 10;
export const WORK_ORDER_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
/** The longest description or reply, in characters of sanitised HTML. */
export const WORK_ORDER_HTML_MAX = 50_000;
/**
 * A customer's list's `total` is exact up to this many orders and this number beyond; the staff queue's up to
 * WORK_ORDER_QUEUE_TOTAL_CAP (counting a million-row queue for every page would cost more than the page): the pager
 * offers pages up to it, and the filters (state, time, tenant…) narrow the rest.
 */
export const WORK_ORDER_TOTAL_CAP = 10_000;
export const WORK_ORDER_QUEUE_TOTAL_CAP = 1_000;
/** The most devices and orders one work order may name. */
export const WORK_ORDER_SUBJECTS_MAX = 20;
/** Who wrote a timeline entry. */
export const WORK_ORDER_SIDES = ['customer', 'staff', 'system'] as const;
export type WorkOrderSide = (typeof WORK_ORDER_SIDES)[number];
export const WORK_ORDER_EVENT_KINDS = ['reply', 'note', 'state', 'assign', 'edit', 'rating'] as const;
export type WorkOrderEventKind = (typeof WORK_ORDER_EVENT_KINDS)[number];

export const workOrderType = z.enum(WORK_ORDER_TYPES);
export const workOrderPriority = z.enum(WORK_ORDER_PRIORITIES);
export const workOrderState = z.enum(WORK_ORDER_STATES);

/** Rich text as the editor wrote it; the server sanitises it before it is stored. */
export const richHtml = z.string().max(WORK_ORDER_HTML_MAX, 'rule.maxChars');
/** An uploaded object (from the upload-token flow) attached by its key. */
export const attachmentKeys = z
  .array(
    z
      .string()
      .max(300)
      // the shape of a key the upload answers: day folder, random folder, a safe name
      .regex(/^\d{8}\/[0-9a-f]{16}\/[\p{L}\p{N}._-]{1,100}$/u, 'workOrder.attachmentMissing'),
  )
  .max(WORK_ORDER_ATTACHMENTS_MAX);
const subjectIds = z.array(id).max(WORK_ORDER_SUBJECTS_MAX);

export const workOrderBody = z
  .object({
    type: workOrderType,
    priority: workOrderPriority.default('normal'),
    title: textLine(100).min(1, 'rule.titleRequired'),
    descriptionHtml: richHtml.default(''),
    deviceIds: subjectIds.default([]),
    orderIds: subjectIds.default([]),
    attachments: attachmentKeys.default([]),
    /**
     * The form's own id of this submission (a random string made when the form opens): sending it again (a double
     * click, a retry after a lost answer) answers the order the first one opened instead of opening another.
     */
    clientRequestId: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{8,64}$/, 'rule.requestId')
      .optional(),
  })
  .strict();
export type WorkOrderBody = z.input<typeof workOrderBody>;

export const workOrderEditBody = z
  .object({
    id,
    type: workOrderType.optional(),
    priority: workOrderPriority.optional(),
    title: textLine(100).min(1, 'rule.titleRequired').optional(),
    descriptionHtml: richHtml.optional(),
    deviceIds: subjectIds.optional(),
    orderIds: subjectIds.optional(),
    /** The order's attachments after the edit (keys of existing ones stay, new keys are added, missing ones go). */
    attachments: attachmentKeys.optional(),
  })
  .strict();
export type WorkOrderEditBody = z.input<typeof workOrderEditBody>;

/**
 * A reply. A customer's reply to a `waiting` order moves it back to `processing`. Staff choose what the reply
 * does: `reply` (an answer), `ask` (a question: the order waits for the customer), `note` (internal, never shown
 * to the customer, no state change) or `resolve`.
 */
export const WORK_ORDER_REPLY_ACTIONS = ['reply', 'ask', 'note', 'resolve'] as const;
export const workOrderReplyBody = z
  .object({
    id,
    bodyHtml: richHtml,
    attachments: attachmentKeys.default([]),
    action: z.enum(WORK_ORDER_REPLY_ACTIONS).default('reply'),
  })
  .strict();
export type WorkOrderReplyBody = z.input<typeof workOrderReplyBody>;

export const workOrderRateBody = z
  .object({ id, rating: z.number().int().min(1).max(5), comment: textLine(500).default('') })
  .strict();
export type WorkOrderRateBody = z.input<typeof workOrderRateBody>;

/** Assign to a staff member (null: back to the unassigned queue). */
export const workOrderAssignBody = z.object({ id, assigneeId: id.nullable() }).strict();
export type WorkOrderAssignBody = z.infer<typeof workOrderAssignBody>;

const dateTime = z.string().datetime({ offset: true });
export const workOrderListQuery = z
  .object({
    ...pageFields,
    /** One state or several, comma separated. */
    state: z
      .string()
      .trim()
      .regex(new RegExp(`^(${WORK_ORDER_STATES.join('|')})(,(${WORK_ORDER_STATES.join('|')}))*$`), 'workOrder.states')
      .optional(),
    type: workOrderType.optional(),
    priority: workOrderPriority.optional(),
    from: dateTime.optional(),
    to: dateTime.optional(),
    /** Order number, title or (staff) the account's name. */
    keyword: keywordField,
    /** Only orders with replies the caller's side has not read. */
    unread: z.enum(['true', 'false']).optional(),
    // staff only (ignored for customers)
    tenantId: queryId.optional(),
    /** A staff member's id, or `none` for the unassigned, or `me`. */
    assignee: z
      .string()
      .trim()
      .regex(/^(none|me|\d{1,15})$/, 'workOrder.assignee')
      .optional(),
    overdue: z.enum(['true', 'false']).optional(),
  })
  .strict();
export type WorkOrderListQuery = z.input<typeof workOrderListQuery>;

export const workOrderAttachment = z.object({
  id: z.number().int(),
  name: z.string(),
  size: z.number().int(),
  mime: z.string(),
  /** A signed, expiring URL of the object. */
  url: z.string(),
});
export type WorkOrderAttachment = z.infer<typeof workOrderAttachment>;

export const workOrderItem = z.object({
  id: z.number().int(),
  orderNo: z.string(),
  tenantId: z.number().int(),
  /** The account's name (staff views). */
  tenantName: z.string(),
  type: workOrderType,
  priority: workOrderPriority,
  state: workOrderState,
  title: z.string(),
  openedBy: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  assignee: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  responseDueAt: z.string(),
  resolveDueAt: z.string(),
  firstResponseAt: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  /** Past a target (first response or resolution) and not yet done. */
  overdue: z.boolean(),
  /** The other side wrote after the caller's side last read it. */
  unread: z.boolean(),
  rating: z.number().int().nullable(),
});
export type WorkOrderItem = z.infer<typeof workOrderItem>;

export const workOrderEvent = z.object({
  id: z.number().int(),
  kind: z.enum(WORK_ORDER_EVENT_KINDS),
  side: z.enum(WORK_ORDER_SIDES),
  author: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  bodyHtml: z.string(),
  fromState: workOrderState.nullable(),
  toState: workOrderState.nullable(),
  /** assign: { assigneeId, assigneeName }; edit: { fields }; rating: { rating, comment }. */
  data: z.record(z.string(), z.unknown()),
  attachments: z.array(workOrderAttachment),
  createdAt: z.string(),
});
export type WorkOrderEvent = z.infer<typeof workOrderEvent>;

export const workOrderDetail = workOrderItem.extend({
  descriptionHtml: z.string(),
  devices: z.array(z.object({ id: z.number().int(), sn: z.string(), name: z.string() })),
  orders: z.array(z.object({ id: z.number().int(), orderNo: z.string() })),
  attachments: z.array(workOrderAttachment),
  /** The timeline, oldest first; internal notes only for staff. */
  events: z.array(workOrderEvent),
  ratingComment: z.string(),
  closedAt: z.string().nullable(),
  /** Until when the customer may reopen it (resolved orders), else null. */
  reopenUntil: z.string().nullable(),
  /** What the caller may do now (the server decides; the page shows the buttons). */
  can: z.object({
    edit: z.boolean(),
    withdraw: z.boolean(),
    reply: z.boolean(),
    reopen: z.boolean(),
    close: z.boolean(),
    rate: z.boolean(),
    take: z.boolean(),
    assign: z.boolean(),
    resolve: z.boolean(),
  }),
});
export type WorkOrderDetail = z.infer<typeof workOrderDetail>;

export const workOrderTarget = z.object({
  priority: workOrderPriority,
  responseMinutes: z.number().int().min(1).max(525_600),
  resolveMinutes: z.number().int().min(1).max(525_600),
});
export type WorkOrderTarget = z.infer<typeof workOrderTarget>;
export const workOrderTargetsBody = z
  .object({ targets: z.array(workOrderTarget.strict()).min(1).max(WORK_ORDER_PRIORITIES.length) })
  .strict();
export type WorkOrderTargetsBody = z.infer<typeof workOrderTargetsBody>;

export const cannedReply = z.object({
  id: z.number().int(),
  title: z.string(),
  bodyHtml: z.string(),
  /** Shared with every staff member (owner null) or one's own. */
  shared: z.boolean(),
});
export type CannedReply = z.infer<typeof cannedReply>;
export const cannedReplyBody = z
  .object({ title: textLine(50).min(1, 'rule.titleRequired'), bodyHtml: richHtml, shared: z.boolean().default(false) })
  .strict();
export type CannedReplyBody = z.input<typeof cannedReplyBody>;
export const cannedReplyEditBody = z
  .object({
    id,
    title: textLine(50).min(1, 'rule.titleRequired').optional(),
    bodyHtml: richHtml.optional(),
  })
  .strict();
export type CannedReplyEditBody = z.input<typeof cannedReplyEditBody>;
