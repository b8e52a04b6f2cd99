import { sql, type Insertable, type Updateable } from 'kysely';
import type { WorkOrderState } from '@cpc/contracts';
import type { WorkOrderEvents, WorkOrders } from '../../../db/generated.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { inDataScope } from '../../../lib/data-scope.ts';
import { notFound } from '../../../plugins/errors.ts';
import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { WorkOrderCrossingsRepository } from './crossings.ts';
import { AT, CUSTOMER, ORDER, PAGE, STAFF } from './samples.ts';
import { WorkOrderSettingsRepository } from './settings.ts';
import { escapeLike, type ListQuery, type NamedOrder, type OrderRow, type Priority, type Reach } from './types.ts';

/** The condition of the overdue orders: not finished, past the first-response target unanswered or past resolution. */
const OVERDUE = sql<boolean>`(wo.state in ('submitted', 'processing', 'waiting') and ((wo.first_response_at is null and wo.response_due_at < now()) or wo.resolve_due_at < now()))`;
/** Unread by staff: the customer wrote after staff last read (the partial index of 0023 has this predicate). */
const STAFF_UNREAD = sql<boolean>`(wo.staff_read_at is null or wo.last_customer_at > wo.staff_read_at)`;
const CUSTOMER_UNREAD = sql<boolean>`(wo.last_staff_at is not null and (wo.customer_read_at is null or wo.last_staff_at > wo.customer_read_at))`;
/** A due time from the targets of `priority`, counted from `start` (now, or the order's opening). */
const dueAt = (start: 'now()' | 'created_at', column: 'response_minutes' | 'resolve_minutes', priority: Priority) =>
  sql<Date>`${sql.raw(start)} + make_interval(mins => (select ${sql.raw(column)} from work_order_targets where priority = ${priority}))`;

/** The advisory lock key of the work-order sweep (a constant of its own): one node sweeps at a time. */
const WORK_ORDER_SWEEP_LOCK = 0x574f_5243; // "WORC"

/**
 * The statements on the work orders, their timeline events and attachments; with `settings` and `crossings`, every
 * statement of the section. A repository made on a transaction (`transaction`, `lockedOrder`) runs each of its
 * statements, and its `settings`' and `crossings`', in it.
 */
export class WorkOrderRepository {
  /** The statements on other sections' tables, on this repository's connection. */
  readonly crossings: WorkOrderCrossingsRepository;
  /** The targets and the canned replies, on this repository's connection. */
  readonly settings: WorkOrderSettingsRepository;

  constructor(private readonly db: Db) {
    this.crossings = new WorkOrderCrossingsRepository(db);
    this.settings = new WorkOrderSettingsRepository(db);
  }

  /** Runs `work` in one transaction with a repository bound to it (inside a transaction already: joins it). */
  transaction<T>(work: (repo: WorkOrderRepository) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new WorkOrderRepository(trx)));
  }

  // -------------------------------------------------------------------------------------------------------------
  // reading orders

  /** The orders `r` reaches: a customer's within its tenant and data scope, staff's of every tenant. */
  private visible(r: Reach) {
    let q = this.db.selectFrom('work_orders as wo');
    if (!r.staff) q = q.where('wo.tenant_id', '=', r.access.tenantId).where(inDataScope(r.access, 'wo', 'user_id'));
    return q;
  }

  /** Joins the account's name, the opener's and the assignee's. */
  private named<QB extends ReturnType<WorkOrderRepository['visible']>>(q: QB) {
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

  /** The list's conditions other than the keyword (the queue's `tenantId`, `assignee`, `overdue` for staff). */
  private filtered(r: Reach, q: ListQuery) {
    let base = this.visible(r);
    if (q.state) base = base.where('wo.state', 'in', q.state.split(',') as WorkOrderState[]);
    if (q.type) base = base.where('wo.type', '=', q.type);
    if (q.priority) base = base.where('wo.priority', '=', q.priority);
    if (q.from) base = base.where('wo.created_at', '>=', new Date(q.from));
    if (q.to) base = base.where('wo.created_at', '<', new Date(q.to));
    if (q.unread === 'true') base = base.where(r.staff ? STAFF_UNREAD : CUSTOMER_UNREAD);
    if (q.unread === 'false') base = base.where(sql<boolean>`not ${r.staff ? STAFF_UNREAD : CUSTOMER_UNREAD}`);
    if (r.staff) {
      if (q.tenantId) base = base.where('wo.tenant_id', '=', q.tenantId);
      if (q.assignee === 'none') base = base.where('wo.assignee_id', 'is', null);
      else if (q.assignee === 'me') base = base.where('wo.assignee_id', '=', r.access.userId);
      else if (q.assignee) base = base.where('wo.assignee_id', '=', Number(q.assignee));
      if (q.overdue === 'true') base = base.where(OVERDUE);
      if (q.overdue === 'false') base = base.where(sql<boolean>`not ${OVERDUE}`);
    }
    return base;
  }

  /**
   * A page of the orders `r` reaches matching `q`, newest first, and their number counted up to `cap`. A keyword
   * matches an order's number and title, and for staff also the name of its account.
   */
  async listPage(
    r: Reach,
    q: ListQuery,
    page: { offset: number; pageSize: number; cap: number },
  ): Promise<{ rows: NamedOrder[]; total: number }> {
    let base = this.filtered(r, q);
    if (q.keyword) {
      const like = `%${escapeLike(q.keyword)}%`;
      // staff also find an account by its name: its ids first, so the order's own condition keeps its index
      const tenants = r.staff ? await this.crossings.tenantsNamed(like) : [];
      // a whole order number is looked up by its unique index (its trigrams are in every order's number)
      const text = /^WO\d{14,}$/i.test(q.keyword)
        ? sql<boolean>`wo.order_no = ${q.keyword.toUpperCase()}`
        : sql<boolean>`(wo.order_no || ' ' || wo.title) ilike ${like}`;
      if (tenants.length) {
        // the text's matches and the accounts' orders: each walked on its own index (see below)
        const accounts = sql<boolean>`wo.tenant_id = any(${tenants}::bigint[])`;
        return this.pageOfTwo(base.where(text), base.where(accounts), page);
      }
      base = base.where(text);
    }
    const [rows, count] = await Promise.all([
      this.named(base)
        .selectAll('wo')
        .orderBy('wo.created_at', 'desc')
        .orderBy('wo.id', 'desc')
        .limit(page.pageSize)
        .offset(page.offset)
        .execute(),
      this.db
        .selectFrom(
          base
            .select(sql`1`.as('one'))
            // in the page's order: the count walks the index the page walks, and stops at the cap
            .orderBy('wo.created_at', 'desc')
            .orderBy('wo.id', 'desc')
            .limit(page.cap)
            .as('page'),
        )
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /**
   * The orders of either of two queries, newest first: a keyword that matches an order's text OR names accounts.
   * One query with the OR makes PostgreSQL walk the whole queue and filter (it cannot tell a small account from a
   * large one); two index walks, each cut at the page's end (or the count's cap), and their union, read a page.
   */
  private async pageOfTwo(
    a: ReturnType<WorkOrderRepository['visible']>,
    b: ReturnType<WorkOrderRepository['visible']>,
    { offset, pageSize, cap }: { offset: number; pageSize: number; cap: number },
  ): Promise<{ rows: NamedOrder[]; total: number }> {
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
    return { rows, total: Math.min(cap, Number(count.n)) };
  }

  /** One order `r` reaches, with its names; undefined outside its reach. */
  findNamed(r: Reach, id: number): Promise<NamedOrder | undefined> {
    return this.named(this.visible(r).where('wo.id', '=', id))
      .selectAll('wo')
      .executeTakeFirst();
  }

  /** Whether `r` reaches the order. */
  async reaches(r: Reach, id: number): Promise<boolean> {
    return (await this.visible(r).select('wo.id').where('wo.id', '=', id).executeTakeFirst()) != null;
  }

  /** An order's attachments, its own and its events'. */
  attachmentsOf(workOrderId: number) {
    return this.db
      .selectFrom('work_order_attachments')
      .selectAll()
      .where('work_order_id', '=', workOrderId)
      .orderBy('id')
      .execute();
  }

  /** An order's timeline with each author's name; internal notes only when `notes`. */
  eventsOf(workOrderId: number, notes: boolean) {
    return this.db
      .selectFrom('work_order_events as e')
      .leftJoin('users as u', 'u.id', 'e.author_id')
      .selectAll('e')
      .select(['u.nickname', 'u.username'])
      .where('e.work_order_id', '=', workOrderId)
      .$if(!notes, (q) => q.where('e.kind', '<>', 'note'))
      .orderBy('e.id')
      .execute();
  }

  /** Marks one side of an order read now. */
  async markRead(id: number, staff: boolean): Promise<void> {
    await this.db
      .updateTable('work_orders')
      .set(staff ? { staff_read_at: new Date() } : { customer_read_at: new Date() })
      .where('id', '=', id)
      .execute();
  }

  /** Where an order is filed (its department and opener), for who may hear of it. */
  filedOf(id: number) {
    return this.db
      .selectFrom('work_orders')
      .select(['department_id', 'user_id'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  // -------------------------------------------------------------------------------------------------------------
  // writing orders

  /**
   * Runs `work` in a transaction on the order locked (`SELECT … FOR UPDATE`) within `r`'s reach (every tenant's
   * without `r`), with a repository bound to the transaction; 404 outside the reach.
   */
  lockedOrder<T>(r: Reach | null, id: number, work: (repo: WorkOrderRepository, row: OrderRow) => Promise<T>) {
    return this.db.transaction().execute(async (trx) => {
      let q = trx.selectFrom('work_orders as wo').selectAll('wo').where('wo.id', '=', id);
      if (r && !r.staff)
        q = q.where('wo.tenant_id', '=', r.access.tenantId).where(inDataScope(r.access, 'wo', 'user_id'));
      const row = await q.forUpdate().executeTakeFirst();
      if (!row) throw notFound('work order');
      return work(new WorkOrderRepository(trx), row);
    });
  }

  /** The order a tenant opened with `clientRequestId` (the same submission sent again). */
  findByClientRequest(tenantId: number, clientRequestId: string) {
    return new TenantScope(this.db, tenantId)
      .selectFrom('work_orders')
      .select('work_orders.id')
      .where('work_orders.client_request_id', '=', clientRequestId)
      .executeTakeFirst();
  }

  /**
   * Inserts a new order: its number from the sequence, its due times from today's targets of its priority. Two
   * of the same submission at once: one insert wins, the other gets undefined (ON CONFLICT DO NOTHING).
   */
  insertOrder(
    values: Pick<
      Insertable<WorkOrders>,
      'type' | 'priority' | 'title' | 'description_html' | 'device_ids' | 'order_ids' | 'tenant_id' | 'user_id'
    > & { department_id: number | null; client_request_id: string | null },
  ) {
    const { client_request_id, ...order } = values;
    return this.db
      .insertInto('work_orders')
      .values({
        ...order,
        order_no: sql<string>`'WO' || to_char(now() at time zone 'Asia/Shanghai', 'YYYYMMDD') || lpad(nextval('work_order_no_seq')::text, 6, '0')`,
        response_due_at: dueAt('now()', 'response_minutes', values.priority),
        resolve_due_at: dueAt('now()', 'resolve_minutes', values.priority),
        customer_read_at: sql<Date>`now()`,
        client_request_id,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'client_request_id']).doNothing())
      .returning(['id', 'order_no', 'tenant_id'])
      .executeTakeFirst();
  }

  /**
   * Updates an order. With `retarget`, its due times become today's targets of that priority counted from when
   * the order was opened.
   */
  async updateOrder(id: number, set: Updateable<WorkOrders>, retarget?: Priority): Promise<void> {
    await this.db
      .updateTable('work_orders')
      .set({
        ...set,
        ...(retarget
          ? {
              response_due_at: dueAt('created_at', 'response_minutes', retarget),
              resolve_due_at: dueAt('created_at', 'resolve_minutes', retarget),
            }
          : {}),
      })
      .where('id', '=', id)
      .execute();
  }

  /** Adds an event to an order's timeline. */
  async insertEvent(event: Insertable<WorkOrderEvents>): Promise<void> {
    await this.db.insertInto('work_order_events').values(event).execute();
  }

  /** Adds a reply or a note (an event that may carry attachments) to an order's timeline; its id. */
  async insertReply(event: Insertable<WorkOrderEvents>): Promise<number> {
    const row = await this.db.insertInto('work_order_events').values(event).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  /** The order's own attachments (not its events'). */
  bodyAttachments(workOrderId: number) {
    return this.db
      .selectFrom('work_order_attachments')
      .select(['id', 'object_key'])
      .where('work_order_id', '=', workOrderId)
      .where('event_id', 'is', null)
      .execute();
  }

  /** Attaches uploaded objects to an order, or to one of its events. */
  async insertAttachments(
    to: { workOrderId: number; tenantId: number; eventId?: number },
    objects: Array<{ key: string; original_name: string; size: number; mime: string }>,
  ): Promise<void> {
    if (!objects.length) return;
    await this.db
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

  async deleteAttachments(ids: number[]): Promise<void> {
    await this.db.deleteFrom('work_order_attachments').where('id', 'in', ids).execute();
  }

  /**
   * Closes the orders resolved more than `days` ago, each with a `state` event by the system, once across nodes
   * (a transaction-scoped advisory lock; another node's sweep under way makes this one close nothing).
   */
  closeResolved(days: number): Promise<Array<{ id: number; tenant_id: number; order_no: string }>> {
    return this.db.transaction().execute(async (trx) => {
      const { rows: lock } = await sql<{ ok: boolean }>`
        select pg_try_advisory_xact_lock(${WORK_ORDER_SWEEP_LOCK}) as ok`.execute(trx);
      if (!lock[0]?.ok) return [];
      const { rows } = await sql<{ id: number; tenant_id: number; order_no: string }>`
        with done as (
          update work_orders set state = 'closed', closed_at = now(), updated_at = now()
          where state = 'resolved' and resolved_at < now() - make_interval(days => ${days})
          returning id, tenant_id, order_no
        ), logged as (
          insert into work_order_events (work_order_id, tenant_id, kind, side, from_state, to_state)
          select id, tenant_id, 'state', 'system', 'resolved', 'closed' from done
        )
        select id, tenant_id, order_no from done`.execute(trx);
      return rows;
    });
  }
}

export const queries = defineQueries(WorkOrderRepository, {
  // the recording driver answers the page with no rows and the count with 0 (`results`, one list per statement)
  listPage: [
    { args: [CUSTOMER, { pageNo: 1, pageSize: 20 }, PAGE], results: [[], [{ n: 0 }]] },
    {
      args: [
        CUSTOMER,
        {
          pageNo: 2,
          pageSize: 20,
          state: 'submitted,processing',
          type: 'device',
          priority: 'high',
          from: '2025-12-01T00:00:00.000Z',
          to: '2026-01-01T00:00:00.000Z',
          unread: 'true',
          keyword: 'toner',
        },
        { ...PAGE, offset: 20 },
      ],
      results: [[], [{ n: 0 }]],
    },
    {
      args: [STAFF, { pageNo: 1, pageSize: 20, tenantId: 3, assignee: 'me', overdue: 'true', unread: 'false' }, PAGE],
      results: [[], [{ n: 0 }]],
    },
    // a whole order number: its unique index (staff first look for accounts so named: none)
    {
      args: [STAFF, { pageNo: 1, pageSize: 20, assignee: '12', overdue: 'false', keyword: 'wo20260101000041' }, PAGE],
      results: [[], [], [{ n: 0 }]],
    },
    // a keyword that names accounts: the text's matches and the accounts' orders, walked apart
    {
      args: [STAFF, { pageNo: 1, pageSize: 20, assignee: 'none', keyword: 'Acme' }, PAGE],
      results: [[{ id: 3 }], [], [{ n: 0 }]],
    },
  ],
  findNamed: [
    [CUSTOMER, 41],
    [STAFF, 41],
  ],
  reaches: [[CUSTOMER, 41]],
  attachmentsOf: [[41]],
  eventsOf: [
    [41, false],
    [41, true],
  ],
  markRead: [
    [41, true],
    [41, false],
  ],
  filedOf: [[41]],
  lockedOrder: [
    { args: [CUSTOMER, 41, async () => null], results: [[ORDER]] },
    { args: [null, 41, async () => null], results: [[ORDER]] },
  ],
  findByClientRequest: [[3, '5f0c6b7e-3c1d-4a8e-9a57-0d1f2e3c4b5a']],
  insertOrder: [
    [
      {
        type: 'device',
        priority: 'high',
        title: 'Printer offline',
        description_html: '<p>The lobby printer stopped answering.</p>',
        device_ids: [101],
        order_ids: [],
        tenant_id: 3,
        user_id: 7,
        department_id: 5,
        client_request_id: '5f0c6b7e-3c1d-4a8e-9a57-0d1f2e3c4b5a',
      },
    ],
  ],
  updateOrder: [
    [41, { state: 'processing', updated_at: AT, assignee_id: 2, taken_at: AT }],
    [41, { priority: 'urgent', title: 'Printer offline again', updated_at: AT }, 'urgent'],
  ],
  insertEvent: [
    [
      {
        work_order_id: 41,
        tenant_id: 3,
        kind: 'state',
        side: 'customer',
        author_id: 7,
        from_state: 'submitted',
        to_state: 'withdrawn',
      },
    ],
  ],
  insertReply: [
    {
      args: [
        {
          work_order_id: 41,
          tenant_id: 3,
          kind: 'reply',
          side: 'staff',
          author_id: 2,
          body_html: '<p>Please check the cable.</p>',
          data: '{"action":"ask"}',
        },
      ],
      results: [[{ id: 300 }]],
    },
  ],
  bodyAttachments: [[41]],
  insertAttachments: [
    [
      { workOrderId: 41, tenantId: 3, eventId: 300 },
      [{ key: 'attachment/3/printer-log.txt', original_name: 'printer-log.txt', size: 2048, mime: 'text/plain' }],
    ],
  ],
  deleteAttachments: [[[61, 62]]],
  closeResolved: [{ args: [7], results: [[{ ok: true }]] }],
});
