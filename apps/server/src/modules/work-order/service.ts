import { sql, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import {
  PERMISSIONS,
  WORK_ORDER_QUEUE_TOTAL_CAP,
  WORK_ORDER_TOTAL_CAP,
  type CannedReply,
  type WorkOrderAttachment,
  type WorkOrderDetail,
  type WorkOrderEvent,
  type WorkOrderItem,
  type workOrderListQuery,
  type WorkOrderPriority,
  type WorkOrderState,
  type WorkOrderTarget,
} from '@cpc/contracts';
import type { PlainKey } from '@cpc/contracts/messages';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { WorkOrders } from '../../db/generated.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { dataAccessOf, inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { assertOwnObjects, presentRichHtml, sanitizeRichHtml } from '../../lib/rich-html.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import { sendMessages, type NewMessage } from '../inbox/index.ts';
import type { EventSink } from '../task/index.ts';
import { allows, reopenUntil, transition, type WorkOrderAction } from './machine.ts';

type Row = Selectable<WorkOrders>;
type Trx = Kysely<Database>;

/** Who calls: a customer (its tenant, its data scope) or staff holding workOrder:handle (every tenant). */
export interface Caller {
  user: AuthUser;
  staff: boolean;
  access: DataAccess;
  ip: string;
}

export function callerOf(user: AuthUser, ip: string): Caller {
  return { user, staff: user.tenantKind === 'platform', access: dataAccessOf(user), ip };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');
const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());
const OPEN_STATES: WorkOrderState[] = ['submitted', 'processing', 'waiting'];
const nameOf = (u: { nickname: string | null; username: string | null } | null | undefined) =>
  u ? u.nickname || u.username || '' : '';

/**
 * The orders a customer reaches within its data scope (the one rule of lib/data-scope.ts): `all` every order of
 * its tenant, `department` those filed under its department's subtree, `own` those it opened.
 */
const orderInScope = (access: DataAccess, alias = 'wo'): RawBuilder<boolean> => inDataScope(access, alias, 'user_id');

/** The condition of the overdue orders: not finished, past the first-response target unanswered or past resolution. */
const OVERDUE = sql<boolean>`(wo.state in ('submitted', 'processing', 'waiting') and ((wo.first_response_at is null and wo.response_due_at < now()) or wo.resolve_due_at < now()))`;
/** Unread by staff: the customer wrote after staff last read (the partial index of 0023 has this predicate). */
const STAFF_UNREAD = sql<boolean>`(wo.staff_read_at is null or wo.last_customer_at > wo.staff_read_at)`;
const CUSTOMER_UNREAD = sql<boolean>`(wo.last_staff_at is not null and (wo.customer_read_at is null or wo.last_staff_at > wo.customer_read_at))`;

const isOverdue = (r: Row, now = Date.now()) =>
  OPEN_STATES.includes(r.state as WorkOrderState) &&
  ((r.first_response_at == null && new Date(r.response_due_at).getTime() < now) ||
    new Date(r.resolve_due_at).getTime() < now);
const isUnread = (r: Row, staff: boolean) => {
  const other = staff ? r.last_customer_at : r.last_staff_at;
  const read = staff ? r.staff_read_at : r.customer_read_at;
  return other != null && (read == null || new Date(other) > new Date(read));
};

interface Named {
  tenant_name: string;
  opener_nickname: string | null;
  opener_username: string | null;
  assignee_nickname: string | null;
  assignee_username: string | null;
}

export class WorkOrderService {
  private platformTenant: Promise<number | null> | undefined;

  constructor(
    private db: Db,
    private storage: ObjectStorage,
    private events: EventSink | undefined,
  ) {}

  // ---------------------------------------------------------------------------------------------------------------
  // reading

  /** The orders `c` reaches: a customer's within its tenant and data scope, staff's of every tenant. */
  private visible(c: Caller, db: Trx = this.db) {
    let q = db.selectFrom('work_orders as wo');
    if (!c.staff) q = q.where('wo.tenant_id', '=', c.user.tenantId).where(orderInScope(c.access));
    return q;
  }

  async list(c: Caller, q: z.output<typeof workOrderListQuery>): Promise<{ list: WorkOrderItem[]; total: number }> {
    const { pageNo, pageSize } = q;
    let base = this.visible(c);
    if (q.state) base = base.where('wo.state', 'in', q.state.split(',') as WorkOrderState[]);
    if (q.type) base = base.where('wo.type', '=', q.type);
    if (q.priority) base = base.where('wo.priority', '=', q.priority);
    if (q.from) base = base.where('wo.created_at', '>=', new Date(q.from));
    if (q.to) base = base.where('wo.created_at', '<', new Date(q.to));
    if (q.unread === 'true') base = base.where(c.staff ? STAFF_UNREAD : CUSTOMER_UNREAD);
    if (q.unread === 'false') base = base.where(sql<boolean>`not ${c.staff ? STAFF_UNREAD : CUSTOMER_UNREAD}`);
    if (c.staff) {
      if (q.tenantId) base = base.where('wo.tenant_id', '=', q.tenantId);
      if (q.assignee === 'none') base = base.where('wo.assignee_id', 'is', null);
      else if (q.assignee === 'me') base = base.where('wo.assignee_id', '=', c.user.id);
      else if (q.assignee) base = base.where('wo.assignee_id', '=', Number(q.assignee));
      if (q.overdue === 'true') base = base.where(OVERDUE);
      if (q.overdue === 'false') base = base.where(sql<boolean>`not ${OVERDUE}`);
    }
    const cap = c.staff ? WORK_ORDER_QUEUE_TOTAL_CAP : WORK_ORDER_TOTAL_CAP;
    const offset = (pageNo - 1) * pageSize;
    if (q.keyword) {
      const like = `%${escapeLike(q.keyword)}%`;
      // staff also find an account by its name: its ids first, so the order's own condition keeps its index
      const tenants = c.staff
        ? (
            await this.db
              .selectFrom('tenants')
              .select('id')
              .where('name', 'ilike', like)
              .where('kind', '<>', 'platform')
              .limit(100)
              .execute()
          ).map((t) => t.id)
        : [];
      // a whole order number is looked up by its unique index (its trigrams are in every order's number)
      const text = /^WO\d{14,}$/i.test(q.keyword)
        ? sql<boolean>`wo.order_no = ${q.keyword.toUpperCase()}`
        : sql<boolean>`(wo.order_no || ' ' || wo.title) ilike ${like}`;
      if (tenants.length) {
        // the text's matches and the accounts' orders: each walked on its own index (see below)
        const accounts = sql<boolean>`wo.tenant_id = any(${tenants}::bigint[])`;
        return this.listOfTwo(c, base.where(text), base.where(accounts), { offset, pageSize, cap });
      }
      base = base.where(text);
    }
    const [rows, count] = await Promise.all([
      this.named(base)
        .selectAll('wo')
        .orderBy('wo.created_at', 'desc')
        .orderBy('wo.id', 'desc')
        .limit(pageSize)
        .offset(offset)
        .execute(),
      this.db
        .selectFrom(
          base
            .select(sql`1`.as('one'))
            // in the page's order: the count walks the index the page walks, and stops at the cap
            .orderBy('wo.created_at', 'desc')
            .orderBy('wo.id', 'desc')
            .limit(cap)
            .as('page'),
        )
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { list: rows.map((r) => this.item(r, c.staff)), total: Number(count.n) };
  }

  /**
   * The orders of either of two queries, newest first: a keyword that matches an order's text OR names accounts.
   * One query with the OR makes PostgreSQL walk the whole queue and filter (it cannot tell a small account from a
   * large one); two index walks, each cut at the page's end (or the count's cap), and their union, read a page.
   */
  private async listOfTwo(
    c: Caller,
    a: ReturnType<WorkOrderService['visible']>,
    b: ReturnType<WorkOrderService['visible']>,
    { offset, pageSize, cap }: { offset: number; pageSize: number; cap: number },
  ): Promise<{ list: WorkOrderItem[]; total: number }> {
    const walk = (q: typeof a, n: number) =>
      q.select(['wo.id', 'wo.created_at']).orderBy('wo.created_at', 'desc').orderBy('wo.id', 'desc').limit(n);
    const both = (n: number) => sql<{ id: number; created_at: Date }>`(${walk(a, n)} union ${walk(b, n)})`.as('u');
    const ids = this.db
      .selectFrom(both(offset + pageSize))
      .select('u.id')
      .orderBy('u.created_at', 'desc')
      .orderBy('u.id', 'desc')
      .limit(pageSize)
      .offset(offset);
    const [rows, count] = await Promise.all([
      this.named(this.db.selectFrom('work_orders as wo').where('wo.id', 'in', ids))
        .selectAll('wo')
        .orderBy('wo.created_at', 'desc')
        .orderBy('wo.id', 'desc')
        .execute(),
      this.db
        .selectFrom(both(cap))
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { list: rows.map((r) => this.item(r, c.staff)), total: Math.min(cap, Number(count.n)) };
  }

  /** Joins the account's name, the opener's and the assignee's. */
  private named<QB extends ReturnType<WorkOrderService['visible']>>(q: QB) {
    return q
      .innerJoin('tenants as t', 't.id', 'wo.tenant_id')
      .leftJoin('users as op', 'op.id', 'wo.user_id')
      .leftJoin('users as asg', 'asg.id', 'wo.assignee_id')
      .select([
        't.name as tenant_name',
        'op.nickname as opener_nickname',
        'op.username as opener_username',
        'asg.nickname as assignee_nickname',
        'asg.username as assignee_username',
      ]);
  }

  private item(r: Row & Named, staff: boolean): WorkOrderItem {
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

  /** One order as `c` reads it (404 outside its reach). */
  async detail(c: Caller, id: number): Promise<WorkOrderDetail> {
    const r = await this.named(this.visible(c).where('wo.id', '=', id))
      .selectAll('wo')
      .executeTakeFirst();
    if (!r) throw notFound('work order');
    // the order may name devices and orders outside a customer reader's data scope (a colleague of wider scope
    // filed it in the reader's department): those are left out
    const [devices, orders, attachments, events] = await Promise.all([
      r.device_ids.length
        ? this.db
            .selectFrom('devices')
            .select(['id', 'sn', 'name'])
            .where('tenant_id', '=', r.tenant_id)
            .where('id', 'in', r.device_ids)
            .$if(!c.staff, (q) => q.where(inDataScope(c.access, 'devices')))
            .orderBy('id')
            .execute()
        : [],
      r.order_ids.length
        ? this.db
            .selectFrom('orders')
            .select(['id', 'order_no'])
            .where('tenant_id', '=', r.tenant_id)
            .where('id', 'in', r.order_ids)
            .$if(!c.staff, (q) => q.where(inDataScope(c.access, 'orders')))
            .orderBy('id')
            .execute()
        : [],
      this.db
        .selectFrom('work_order_attachments')
        .selectAll()
        .where('work_order_id', '=', r.id)
        .orderBy('id')
        .execute(),
      this.db
        .selectFrom('work_order_events as e')
        .leftJoin('users as u', 'u.id', 'e.author_id')
        .selectAll('e')
        .select(['u.nickname', 'u.username'])
        .where('e.work_order_id', '=', r.id)
        // internal notes never leave the staff side
        .$if(!c.staff, (q) => q.where('e.kind', '<>', 'note'))
        .orderBy('e.id')
        .execute(),
    ]);
    const present = (a: (typeof attachments)[number]): WorkOrderAttachment => ({
      id: a.id,
      name: a.name,
      size: Number(a.size),
      mime: a.mime,
      url: this.storage.signedUrl(a.object_key),
    });
    const byEvent = new Map<number, WorkOrderAttachment[]>();
    for (const a of attachments) {
      if (a.event_id != null) byEvent.set(a.event_id, [...(byEvent.get(a.event_id) ?? []), present(a)]);
    }
    const state = r.state;
    const customerMay = !c.staff && hasPermission(c.user, PERMISSIONS.workOrderEdit);
    const staffMay = c.staff && hasPermission(c.user, PERMISSIONS.workOrderHandle);
    const resolvedAt = r.resolved_at ? new Date(r.resolved_at) : null;
    const until = state === 'resolved' && resolvedAt ? reopenUntil(resolvedAt) : null;
    return {
      ...this.item(r, c.staff),
      descriptionHtml: presentRichHtml(r.description_html, this.storage),
      devices: devices.map((d) => ({ id: d.id, sn: d.sn, name: d.name })),
      orders: orders.map((o) => ({ id: o.id, orderNo: o.order_no })),
      attachments: attachments.filter((a) => a.event_id == null).map(present),
      events: events.map((e): WorkOrderEvent => ({
        id: e.id,
        kind: e.kind,
        side: e.side,
        author: e.author_id ? { id: e.author_id, name: nameOf(e) } : null,
        bodyHtml: presentRichHtml(e.body_html, this.storage),
        fromState: (e.from_state as WorkOrderState | null) ?? null,
        toState: (e.to_state as WorkOrderState | null) ?? null,
        data: (e.data ?? {}) as Record<string, unknown>,
        attachments: byEvent.get(e.id) ?? [],
        createdAt: iso(e.created_at)!,
      })),
      ratingComment: r.rating_comment,
      closedAt: iso(r.closed_at),
      reopenUntil: until && until.getTime() > Date.now() ? until.toISOString() : null,
      can: {
        edit: customerMay && allows('edit', state),
        withdraw: customerMay && allows('withdraw', state),
        reply: (customerMay && allows('customerReply', state)) || (staffMay && allows('reply', state)),
        reopen: customerMay && allows('reopen', state) && until != null && until.getTime() > Date.now(),
        close: customerMay && allows('close', state),
        rate: customerMay && allows('rate', state) && r.rating == null,
        take: staffMay && allows('take', state) && r.assignee_id !== c.user.id,
        assign: staffMay && allows('assign', state),
        resolve: staffMay && allows('resolve', state),
      },
    };
  }

  /** Marks the caller's side read. */
  async read(c: Caller, id: number): Promise<void> {
    const found = await this.visible(c).select('wo.id').where('wo.id', '=', id).executeTakeFirst();
    if (!found) throw notFound('work order');
    await this.db
      .updateTable('work_orders')
      .set(c.staff ? { staff_read_at: new Date() } : { customer_read_at: new Date() })
      .where('id', '=', id)
      .execute();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // checks of what a customer names

  private async checkSubjects(c: Caller, tx: TenantScope, deviceIds: number[], orderIds: number[]) {
    const devices = [...new Set(deviceIds)];
    const orders = [...new Set(orderIds)];
    if (devices.length) {
      const found = await tx
        .selectFrom('devices')
        .select('devices.id')
        .where('devices.id', 'in', devices)
        .where(inDataScope(c.access, 'devices'))
        .execute();
      if (found.length !== devices.length) throw badRequest('deviceIds', 'workOrder.deviceNotYours');
    }
    if (orders.length) {
      const found = await tx.selectFrom('orders').select('orders.id').where('orders.id', 'in', orders).execute();
      if (found.length !== orders.length) throw badRequest('orderIds', 'workOrder.orderNotYours');
    }
    return { devices, orders };
  }

  /** Attachment keys must be objects of the writer's tenant uploaded to the `attachment` bucket. */
  private async attachmentObjects(writerTenant: number, db: Trx, keys: string[]) {
    const unique = [...new Set(keys)];
    if (!unique.length) return [];
    const rows = await new TenantScope(db, writerTenant)
      .selectFrom('objects')
      .select(['objects.key', 'objects.original_name', 'objects.size', 'objects.mime'])
      .where('objects.key', 'in', unique)
      .where('objects.bucket', '=', 'attachment')
      .execute();
    if (rows.length !== unique.length) throw badRequest('attachments', 'workOrder.attachmentMissing');
    return rows;
  }

  /** Attaches checked objects (`attachmentObjects`) to an order, or to one of its timeline events. */
  private async attach(
    db: Trx,
    to: { workOrderId: number; tenantId: number; eventId?: number },
    objects: Awaited<ReturnType<WorkOrderService['attachmentObjects']>>,
  ): Promise<void> {
    if (!objects.length) return;
    await db
      .insertInto('work_order_attachments')
      .values(
        objects.map((o) => ({
          work_order_id: to.workOrderId,
          event_id: to.eventId ?? null,
          tenant_id: to.tenantId,
          object_key: o.key,
          name: o.original_name || o.key.split('/').pop()!,
          size: o.size,
          mime: o.mime,
        })),
      )
      .execute();
  }

  private async sanitized(writerTenant: number, db: Trx, html: string, field: string) {
    // NUL cannot be stored in text (PostgreSQL refuses it): it goes with the rest of what is not kept
    const clean = sanitizeRichHtml(html.replaceAll('\u0000', ''));
    await assertOwnObjects(new TenantScope(db, writerTenant), clean.objectKeys, field);
    return clean;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // writing

  /** Runs `work` on the order locked (`FOR UPDATE`) within `c`'s reach; 404 outside it. */
  private async locked<T>(
    c: Caller | null,
    id: number,
    work: (trx: Transaction<Database>, row: Row) => Promise<T>,
  ): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      let q = trx.selectFrom('work_orders as wo').selectAll('wo').where('wo.id', '=', id);
      if (c && !c.staff) q = q.where('wo.tenant_id', '=', c.user.tenantId).where(orderInScope(c.access));
      const row = await q.forUpdate().executeTakeFirst();
      if (!row) throw notFound('work order');
      return work(trx, row);
    });
  }

  private async stateEvent(
    trx: Trx,
    row: Row,
    from: WorkOrderState | null,
    to: WorkOrderState,
    side: 'customer' | 'staff' | 'system',
    authorId: number | null,
  ) {
    if (from === to) return;
    await trx
      .insertInto('work_order_events')
      .values({
        work_order_id: row.id,
        tenant_id: row.tenant_id,
        kind: 'state',
        side,
        author_id: authorId,
        from_state: from,
        to_state: to,
      })
      .execute();
  }

  /** Tells the order's tenant's consoles and staff's (a note only staff's). */
  async announce(id: number, tenantId: number, state: WorkOrderState, staffOnly = false) {
    const event = { type: 'workOrder' as const, data: { id, tenantId, state } };
    if (!staffOnly) {
      // heard by the tenant's consoles whose data scope reaches the order (as its list answers them)
      const row = await this.db
        .selectFrom('work_orders')
        .select(['department_id', 'user_id'])
        .where('id', '=', id)
        .executeTakeFirst();
      this.events?.publish(tenantId, event, {
        filed: { departmentId: row?.department_id ?? null, ownerId: row?.user_id ?? null },
      });
    }
    const platform = await this.platformTenantId();
    if (platform != null && (platform !== tenantId || staffOnly)) this.events?.publish(platform, event);
  }

  private platformTenantId(): Promise<number | null> {
    this.platformTenant ??= this.db
      .selectFrom('tenants')
      .select('id')
      .where('kind', '=', 'platform')
      .orderBy('id')
      .executeTakeFirst()
      .then((r) => r?.id ?? null);
    return this.platformTenant;
  }

  private assertCustomer(c: Caller) {
    if (c.staff) throw new AppError(403, 'workOrder.customersOnly');
  }

  async create(
    c: Caller,
    body: {
      type: Row['type'];
      priority: WorkOrderPriority;
      title: string;
      descriptionHtml: string;
      deviceIds: number[];
      orderIds: number[];
      attachments: string[];
      clientRequestId?: string;
    },
  ): Promise<number> {
    this.assertCustomer(c);
    const tenantId = c.user.tenantId;
    const sent = async (db: Trx) =>
      body.clientRequestId
        ? await new TenantScope(db, tenantId)
            .selectFrom('work_orders')
            .select('work_orders.id')
            .where('work_orders.client_request_id', '=', body.clientRequestId)
            .executeTakeFirst()
        : undefined;
    // the same submission again (a double click, a retry): the order it opened
    const again = await sent(this.db);
    if (again) return again.id;
    const created = await c.user.scope.transaction(async (tx) => {
      const description = await this.sanitized(tenantId, tx.db, body.descriptionHtml, 'descriptionHtml');
      const { devices, orders } = await this.checkSubjects(c, tx, body.deviceIds, body.orderIds);
      const objects = await this.attachmentObjects(tenantId, tx.db, body.attachments);
      const values = {
        type: body.type,
        priority: body.priority,
        title: body.title,
        description_html: description.html,
        device_ids: devices,
        order_ids: orders,
      };
      const row = await tx.db
        .insertInto('work_orders')
        .values({
          ...values,
          tenant_id: tenantId,
          user_id: c.user.id,
          department_id: c.user.departmentId,
          order_no: sql<string>`'WO' || to_char(now() at time zone 'Asia/Shanghai', 'YYYYMMDD') || lpad(nextval('work_order_no_seq')::text, 6, '0')`,
          response_due_at: sql<Date>`now() + make_interval(mins => (select response_minutes from work_order_targets where priority = ${body.priority}))`,
          resolve_due_at: sql<Date>`now() + make_interval(mins => (select resolve_minutes from work_order_targets where priority = ${body.priority}))`,
          customer_read_at: sql<Date>`now()`,
          client_request_id: body.clientRequestId ?? null,
        })
        // two of the same submission at once: one insert wins, the other answers its order
        .onConflict((oc) => oc.columns(['tenant_id', 'client_request_id']).doNothing())
        .returning(['id', 'order_no', 'tenant_id'])
        .executeTakeFirst();
      if (!row) return { id: (await sent(this.db))!.id, order_no: '', after: null };
      await tx.db
        .insertInto('work_order_events')
        .values({
          work_order_id: row.id,
          tenant_id: tenantId,
          kind: 'state',
          side: 'customer',
          author_id: c.user.id,
          to_state: 'submitted',
        })
        .execute();
      await this.attach(tx.db, { workOrderId: row.id, tenantId }, objects);
      return { ...row, after: { ...values, attachments: objects.map((o) => o.key) } };
    });
    const { id, order_no, after } = created;
    if (!after) return id;
    await audit(this.db, {
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
    await this.announce(id, tenantId, 'submitted');
    return id;
  }

  async update(
    c: Caller,
    body: {
      id: number;
      type?: Row['type'];
      priority?: WorkOrderPriority;
      title?: string;
      descriptionHtml?: string;
      deviceIds?: number[];
      orderIds?: number[];
      attachments?: string[];
    },
  ): Promise<void> {
    this.assertCustomer(c);
    const tenantId = c.user.tenantId;
    const { before, after, row } = await this.locked(c, body.id, async (trx, row) => {
      transition('edit', row);
      const tx = new TenantScope(trx, tenantId);
      const set: Partial<Pick<Row, 'type' | 'priority' | 'title' | 'description_html' | 'device_ids' | 'order_ids'>> =
        {};
      if (body.type !== undefined) set.type = body.type;
      if (body.priority !== undefined) set.priority = body.priority;
      if (body.title !== undefined) set.title = body.title;
      if (body.descriptionHtml !== undefined)
        set.description_html = (await this.sanitized(tenantId, trx, body.descriptionHtml, 'descriptionHtml')).html;
      if (body.deviceIds !== undefined || body.orderIds !== undefined) {
        const { devices, orders } = await this.checkSubjects(c, tx, body.deviceIds ?? [], body.orderIds ?? []);
        if (body.deviceIds !== undefined) set.device_ids = devices;
        if (body.orderIds !== undefined) set.order_ids = orders;
      }
      const current = await trx
        .selectFrom('work_order_attachments')
        .select(['id', 'object_key'])
        .where('work_order_id', '=', row.id)
        .where('event_id', 'is', null)
        .execute();
      const beforeKeys = current.map((a) => a.object_key);
      let afterKeys = beforeKeys;
      if (body.attachments !== undefined) {
        const keep = new Set(body.attachments);
        const added = body.attachments.filter((k) => !beforeKeys.includes(k));
        const objects = await this.attachmentObjects(tenantId, trx, added);
        const gone = current.filter((a) => !keep.has(a.object_key)).map((a) => a.id);
        if (gone.length) await trx.deleteFrom('work_order_attachments').where('id', 'in', gone).execute();
        await this.attach(trx, { workOrderId: row.id, tenantId }, objects);
        afterKeys = [...beforeKeys.filter((k) => keep.has(k)), ...objects.map((o) => o.key)];
      }
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
        await trx
          .updateTable('work_orders')
          .set({
            ...set,
            updated_at: new Date(),
            // a new priority takes today's targets for it, counted from when the order was opened
            ...(set.priority && set.priority !== row.priority
              ? {
                  response_due_at: sql<Date>`created_at + make_interval(mins => (select response_minutes from work_order_targets where priority = ${set.priority}))`,
                  resolve_due_at: sql<Date>`created_at + make_interval(mins => (select resolve_minutes from work_order_targets where priority = ${set.priority}))`,
                }
              : {}),
          })
          .where('id', '=', row.id)
          .execute();
        await trx
          .insertInto('work_order_events')
          .values({
            work_order_id: row.id,
            tenant_id: tenantId,
            kind: 'edit',
            side: 'customer',
            author_id: c.user.id,
            data: JSON.stringify({ fields: Object.keys(changes) }),
          })
          .execute();
      }
      return { before: beforeValues, after: afterValues, row };
    });
    await audit(this.db, {
      tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.update',
      resource: 'workOrder',
      resourceId: body.id,
      result: 'ok',
      changes: changedFields(before, after),
    });
    await this.announce(row.id, tenantId, row.state);
  }

  /**
   * A state change without a text: withdraw, reopen, close (customer), take (staff). Under the row lock: the
   * machine decides, the timestamps follow, a `state` event is written, the system log and the consoles hear it.
   */
  async change(c: Caller, id: number, action: 'withdraw' | 'reopen' | 'close' | 'take'): Promise<void> {
    if (action === 'take') this.assertStaff(c);
    else this.assertCustomer(c);
    const side = c.staff ? 'staff' : 'customer';
    const notify: NewMessage[] = [];
    const { row, to, announce } = await this.locked(c, id, async (trx, row) => {
      const to = transition(action, row);
      const now = new Date();
      const set: Partial<Row> = { state: to, updated_at: now };
      if (action === 'withdraw') set.withdrawn_at = now;
      if (action === 'close') set.closed_at = now;
      if (action === 'reopen') {
        set.resolved_at = null;
        set.last_customer_at = now;
        if (row.assignee_id)
          notify.push(await this.messageTo(trx, row.assignee_id, row, 'workOrder.reopened', 'workOrder.reopenedTitle'));
      }
      if (action === 'take') {
        set.assignee_id = c.user.id;
        set.taken_at = row.taken_at ?? now;
      }
      await trx.updateTable('work_orders').set(set).where('id', '=', row.id).execute();
      await this.stateEvent(trx, row, row.state, to, side, c.user.id);
      if (action === 'take' && row.assignee_id !== c.user.id) {
        await trx
          .insertInto('work_order_events')
          .values({
            work_order_id: row.id,
            tenant_id: row.tenant_id,
            kind: 'assign',
            side: 'staff',
            author_id: c.user.id,
            data: JSON.stringify({ assigneeId: c.user.id, assigneeName: c.user.username }),
          })
          .execute();
      }
      return { row, to, announce: await sendMessages(trx, notify) };
    });
    announce(this.events);
    await audit(this.db, {
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: `workOrder.${action}`,
      resource: 'workOrder',
      resourceId: id,
      result: 'ok',
      details: { orderNo: row.order_no, tenantId: row.tenant_id },
      changes: changedFields(
        { state: row.state, assignee_id: row.assignee_id },
        action === 'take' ? { state: to, assignee_id: c.user.id } : { state: to },
      ),
    });
    await this.announce(row.id, row.tenant_id, to);
  }

  private assertStaff(c: Caller) {
    if (!c.staff) throw new AppError(403, 'auth.staffOnly');
    if (!hasPermission(c.user, PERMISSIONS.workOrderHandle))
      throw new AppError(403, 'auth.permissionRequired', { permission: PERMISSIONS.workOrderHandle });
  }

  private async messageTo(trx: Trx, userId: number, row: Row, kind: string, title: PlainKey): Promise<NewMessage> {
    const u = await trx.selectFrom('users').select(['id', 'tenant_id']).where('id', '=', userId).executeTakeFirst();
    return {
      tenantId: u?.tenant_id ?? row.tenant_id,
      userId,
      kind,
      title,
      body: `${row.order_no} · ${row.title}`,
      link: `/workOrder/detail?id=${row.id}`,
    };
  }

  /** The customer who opened it and the account's main account, once each. */
  private async customerRecipients(trx: Trx, row: Row): Promise<number[]> {
    const rows = await trx
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', row.tenant_id)
      .where('state', '=', 'active')
      .where((eb) => eb.or([eb('is_super', '=', 1), ...(row.user_id ? [eb('id', '=', row.user_id)] : [])]))
      .execute();
    return [...new Set(rows.map((r) => r.id))];
  }

  async assign(c: Caller, id: number, assigneeId: number | null): Promise<void> {
    this.assertStaff(c);
    let assigneeName = '';
    if (assigneeId != null) {
      const staff = await this.assignees([assigneeId]);
      if (!staff.length) throw badRequest('assigneeId', 'workOrder.assigneeNotStaff');
      assigneeName = staff[0].name;
    }
    const { row, to, announce } = await this.locked(c, id, async (trx, row) => {
      const to = transition(assigneeId == null ? 'unassign' : 'assign', row);
      const now = new Date();
      await trx
        .updateTable('work_orders')
        .set({
          state: to,
          assignee_id: assigneeId,
          updated_at: now,
          ...(assigneeId != null && !row.taken_at ? { taken_at: now } : {}),
        })
        .where('id', '=', row.id)
        .execute();
      await this.stateEvent(trx, row, row.state, to, 'staff', c.user.id);
      await trx
        .insertInto('work_order_events')
        .values({
          work_order_id: row.id,
          tenant_id: row.tenant_id,
          kind: 'assign',
          side: 'staff',
          author_id: c.user.id,
          data: JSON.stringify({ assigneeId, assigneeName }),
        })
        .execute();
      const notify =
        assigneeId != null && assigneeId !== c.user.id && assigneeId !== row.assignee_id
          ? [await this.messageTo(trx, assigneeId, row, 'workOrder.assigned', 'workOrder.assignedTitle')]
          : [];
      return { row, to, announce: await sendMessages(trx, notify) };
    });
    announce(this.events);
    await audit(this.db, {
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
    await this.announce(row.id, row.tenant_id, to);
  }

  /**
   * A reply: a customer's (`reply` only), or staff's `reply`, `ask`, `note` (internal) or `resolve`. The text is
   * sanitised, its images must be the writer's tenant's objects, its attachments the writer's uploads.
   */
  async reply(
    c: Caller,
    body: { id: number; bodyHtml: string; attachments: string[]; action: 'reply' | 'ask' | 'note' | 'resolve' },
  ): Promise<void> {
    if (c.staff) this.assertStaff(c);
    else if (body.action !== 'reply') throw badRequest('action', 'workOrder.customerAction');
    const action: WorkOrderAction = c.staff ? body.action : 'customerReply';
    const side = c.staff ? 'staff' : 'customer';
    const writer = c.user.tenantId;
    const { row, to, announce } = await this.locked(c, body.id, async (trx, row) => {
      const to = transition(action, row);
      const clean = await this.sanitized(writer, trx, body.bodyHtml, 'bodyHtml');
      const objects = await this.attachmentObjects(writer, trx, body.attachments);
      const hasText = clean.hasContent || objects.length > 0;
      if (!hasText && action !== 'resolve') throw badRequest('bodyHtml', 'workOrder.emptyReply');
      const now = new Date();
      const set: Partial<Row> = { state: to, updated_at: now };
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
      await trx.updateTable('work_orders').set(set).where('id', '=', row.id).execute();
      if (hasText) {
        const event = await trx
          .insertInto('work_order_events')
          .values({
            work_order_id: row.id,
            tenant_id: row.tenant_id,
            kind: action === 'note' ? 'note' : 'reply',
            side,
            author_id: c.user.id,
            body_html: clean.html,
            data: JSON.stringify(c.staff ? { action } : {}),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await this.attach(trx, { workOrderId: row.id, tenantId: row.tenant_id, eventId: event.id }, objects);
      }
      await this.stateEvent(trx, row, row.state, to, side, c.user.id);
      const notify: NewMessage[] = [];
      if (c.staff && action !== 'note') {
        const [kind, title] =
          action === 'ask'
            ? (['workOrder.asked', 'workOrder.askedTitle'] as const)
            : action === 'resolve'
              ? (['workOrder.resolved', 'workOrder.resolvedTitle'] as const)
              : (['workOrder.replied', 'workOrder.repliedTitle'] as const);
        for (const userId of await this.customerRecipients(trx, row)) {
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
          await this.messageTo(
            trx,
            row.assignee_id,
            row,
            'workOrder.customerReplied',
            'workOrder.customerRepliedTitle',
          ),
        );
      return { row, to, announce: await sendMessages(trx, notify) };
    });
    announce(this.events);
    await audit(this.db, {
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
    await this.announce(row.id, row.tenant_id, to, action === 'note');
  }

  async rate(c: Caller, id: number, rating: number, comment: string): Promise<void> {
    this.assertCustomer(c);
    const row = await this.locked(c, id, async (trx, row) => {
      transition('rate', row);
      if (row.rating != null) throw new AppError(409, 'workOrder.alreadyRated');
      await trx
        .updateTable('work_orders')
        .set({ rating, rating_comment: comment, rated_at: new Date(), updated_at: new Date() })
        .where('id', '=', row.id)
        .execute();
      await trx
        .insertInto('work_order_events')
        .values({
          work_order_id: row.id,
          tenant_id: row.tenant_id,
          kind: 'rating',
          side: 'customer',
          author_id: c.user.id,
          data: JSON.stringify({ rating, comment }),
        })
        .execute();
      return row;
    });
    await audit(this.db, {
      tenantId: c.user.tenantId,
      userId: c.user.id,
      ip: c.ip,
      action: 'workOrder.rate',
      resource: 'workOrder',
      resourceId: id,
      result: 'ok',
      changes: changedFields({ rating: null, rating_comment: '' }, { rating, rating_comment: comment }),
    });
    await this.announce(row.id, row.tenant_id, row.state);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // staff: assignees, targets, canned replies; customers: what they may name

  /** Active staff users who hold workOrder:handle (the Admin role holds all); only `ids` when given. */
  async assignees(ids?: number[]): Promise<Array<{ id: number; name: string }>> {
    const rows = await this.db
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id', 'u.nickname', 'u.username'])
      .where('t.kind', '=', 'platform')
      .where('u.state', '=', 'active')
      .where(
        sql<boolean>`exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = u.id and (r.code = 'Admin' or ${PERMISSIONS.workOrderHandle} = any(r.permissions)))`,
      )
      .$if(ids != null, (q) => q.where('u.id', 'in', ids!.length ? ids! : [0]))
      .orderBy('u.id')
      .execute();
    return rows.map((r) => ({ id: r.id, name: nameOf(r) }));
  }

  async targets(): Promise<WorkOrderTarget[]> {
    const rows = await this.db.selectFrom('work_order_targets').selectAll().execute();
    const order = ['urgent', 'high', 'normal', 'low'];
    return rows
      .sort((a, b) => order.indexOf(a.priority) - order.indexOf(b.priority))
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
    await this.db.transaction().execute(async (trx) => {
      for (const t of targets) {
        await trx
          .updateTable('work_order_targets')
          .set({
            response_minutes: t.responseMinutes,
            resolve_minutes: t.resolveMinutes,
            updated_at: new Date(),
            updated_by: c.user.id,
          })
          .where('priority', '=', t.priority)
          .execute();
      }
    });
    const after = await this.targets();
    const flat = (ts: WorkOrderTarget[]) =>
      Object.fromEntries(ts.map((t) => [t.priority, `${t.responseMinutes}/${t.resolveMinutes}`]));
    await audit(this.db, {
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

  async cannedList(c: Caller): Promise<CannedReply[]> {
    const rows = await this.db
      .selectFrom('work_order_canned_replies')
      .selectAll()
      .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', c.user.id)]))
      .orderBy('owner_id', (ob) => ob.asc().nullsFirst())
      .orderBy('title')
      .orderBy('id')
      .execute();
    return rows.map((r) => this.canned(r));
  }

  private canned(r: { id: number; title: string; body_html: string; owner_id: number | null }): CannedReply {
    return {
      id: r.id,
      title: r.title,
      bodyHtml: presentRichHtml(r.body_html, this.storage),
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
    const clean = await this.sanitized(c.user.tenantId, this.db, body.bodyHtml, 'bodyHtml');
    const row = await this.db
      .insertInto('work_order_canned_replies')
      .values({ owner_id: body.shared ? null : c.user.id, title: body.title, body_html: clean.html })
      .returningAll()
      .executeTakeFirstOrThrow();
    await audit(this.db, {
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
    const row = await this.db
      .selectFrom('work_order_canned_replies')
      .selectAll()
      .where('id', '=', id)
      .where((eb) => eb.or([eb('owner_id', 'is', null), eb('owner_id', '=', c.user.id)]))
      .executeTakeFirst();
    if (!row) throw notFound('canned reply');
    this.mayWriteCanned(c, row.owner_id == null);
    return row;
  }

  async cannedUpdate(c: Caller, body: { id: number; title?: string; bodyHtml?: string }): Promise<CannedReply> {
    const before = await this.cannedOf(c, body.id);
    const set: { title?: string; body_html?: string } = {};
    if (body.title !== undefined) set.title = body.title;
    if (body.bodyHtml !== undefined)
      set.body_html = (await this.sanitized(c.user.tenantId, this.db, body.bodyHtml, 'bodyHtml')).html;
    const row = await this.db
      .updateTable('work_order_canned_replies')
      .set({ ...set, updated_at: new Date() })
      .where('id', '=', body.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await audit(this.db, {
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
    await this.db.deleteFrom('work_order_canned_replies').where('id', '=', id).execute();
    await audit(this.db, {
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

  /** The devices (in the caller's data scope) and orders a customer may name, 20 of each. */
  async options(c: Caller, keyword: string | undefined) {
    this.assertCustomer(c);
    const like = keyword ? `%${escapeLike(keyword)}%` : null;
    const scope = c.user.scope;
    const [devices, orders] = await Promise.all([
      scope
        .selectFrom('devices')
        .select(['devices.id', 'devices.sn', 'devices.name'])
        .where(inDataScope(c.access, 'devices'))
        .$if(like != null, (q) =>
          q.where((eb) => eb.or([eb('devices.sn', 'ilike', like!), eb('devices.name', 'ilike', like!)])),
        )
        .orderBy('devices.id', 'desc')
        .limit(20)
        .execute(),
      scope
        .selectFrom('orders')
        .select(['orders.id', 'orders.order_no'])
        .$if(like != null, (q) => q.where('orders.order_no', 'ilike', like!))
        .orderBy('orders.id', 'desc')
        .limit(20)
        .execute(),
    ]);
    return {
      devices: devices.map((d) => ({ id: d.id, sn: d.sn, name: d.name })),
      orders: orders.map((o) => ({ id: o.id, orderNo: o.order_no })),
    };
  }
}
