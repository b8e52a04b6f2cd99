import { sql, type SelectQueryBuilder } from 'kysely';
import { AUTH_STATUS, SIM_EXPIRY_REMIND_DAYS, WORKBENCH_ITEMS } from '@cpc/contracts';
import { defineQueries } from '../../db/query-spec.ts';
import type { Database } from '../../db/schema.ts';
import { deviceInScope, inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { Repository } from '../../db/repository.ts';

/** Work orders still open: somebody has something to do (resolved ones wait only for the customer's close). */
export const OPEN_STATES = ['submitted', 'processing', 'waiting'] as const;
/** The SIM states the traffic page's "needs attention" filter lists. */
export const SIM_ATTENTION = ['low', 'exhausted', 'suspended'] as const;

/** How many rows a section counts, and its first WORKBENCH_ITEMS. */
export interface Counted<R> {
  count: number;
  rows: R[];
}

/**
 * Work orders in the caller's data scope. They carry their author (`user_id`) rather than an `owner_id`, so the
 * `own` scope is the orders the user opened; `department` and `all` are as for devices.
 */
const workOrderInScope = (a: DataAccess) => inDataScope(a, 'work_orders', 'user_id');

/** The count of every row of `query` and the first few (`items` orders and limits it), at the same time. */
async function counted<Q extends SelectQueryBuilder<Database, any, any>, R>(
  query: () => Q,
  items: (q: Q) => Promise<R[]>,
): Promise<Counted<R>> {
  const [count, rows] = await Promise.all([
    query()
      .select(sql<string>`count(*)`.as('n'))
      .executeTakeFirstOrThrow(),
    items(query()),
  ]);
  return { count: Number((count as { n: string }).n), rows };
}

/**
 * The workbench's statements: for a customer, its waiting work orders, SIMs and devices inside the caller's data
 * scope; for platform staff, the review, work-order and refund queues of every account.
 */
export class WorkbenchRepository extends Repository {
  // ---- customer

  private workOrders(tenantId: number, a: DataAccess) {
    return this.scope(tenantId).selectFrom('work_orders').where(workOrderInScope(a));
  }

  /** Work orders waiting for the customer; latest staff answer first. */
  workOrdersWaiting(tenantId: number, a: DataAccess) {
    const q = () => this.workOrders(tenantId, a).where('work_orders.state', '=', 'waiting');
    return counted(q, (base) =>
      base
        .select(['id', 'order_no', 'title', 'priority', 'last_staff_at', 'updated_at'])
        .orderBy(sql`coalesce(last_staff_at, updated_at)`, 'desc')
        .orderBy('id', 'desc')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }

  /** Work orders not closed with a staff answer the customer has not read; latest first. */
  workOrdersUnread(tenantId: number, a: DataAccess) {
    const q = () =>
      this.workOrders(tenantId, a)
        .where('work_orders.state', 'not in', ['closed', 'withdrawn'])
        .where(sql<boolean>`work_orders.last_staff_at > coalesce(work_orders.customer_read_at, 'epoch'::timestamptz)`);
    return counted(q, (base) =>
      base
        .select(['id', 'order_no', 'title', 'state', 'last_staff_at'])
        .orderBy('last_staff_at', 'desc')
        .orderBy('id', 'desc')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }

  private sims(tenantId: number, a: DataAccess) {
    return this.scope(tenantId)
      .selectFrom('sims')
      .leftJoin('devices', (j) => j.onRef('devices.id', '=', 'sims.device_id').on('devices.tenant_id', '=', tenantId))
      .where(deviceInScope(a, 'sims.device_id'));
  }

  /** SIMs low, exhausted or suspended; least data left first. */
  simsLow(tenantId: number, a: DataAccess) {
    const q = () => this.sims(tenantId, a).where('sims.state', 'in', SIM_ATTENTION);
    return counted(q, (base) =>
      base
        .select(['sims.iccid', 'devices.sn', 'devices.name', 'sims.state', 'sims.expires_at'])
        .orderBy(sql`sims.plan_total_mb - sims.used_mb`, 'asc')
        .orderBy('sims.iccid')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }

  /** SIMs whose plan expires within SIM_EXPIRY_REMIND_DAYS (the traffic page's `expiringDays`); soonest first. */
  simsExpiring(tenantId: number, a: DataAccess) {
    const q = () =>
      this.sims(tenantId, a)
        .where('sims.expires_at', '>', sql<Date>`now()`)
        .where('sims.expires_at', '<=', sql<Date>`now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS})`);
    return counted(q, (base) =>
      base
        .select(['sims.iccid', 'devices.sn', 'devices.name', 'sims.state', 'sims.expires_at'])
        .orderBy('sims.expires_at', 'asc')
        .orderBy('sims.iccid')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }

  private devices(tenantId: number, a: DataAccess) {
    return this.scope(tenantId).selectFrom('devices').where(inDataScope(a));
  }

  /** Offline devices; latest seen first. */
  devicesOffline(tenantId: number, a: DataAccess) {
    const q = () => this.devices(tenantId, a).where('devices.status', '=', 'offline');
    return counted(q, (base) =>
      base
        .select(['devices.id', 'devices.sn', 'devices.name', 'devices.paper', 'devices.last_seen_at'])
        .orderBy(sql`devices.last_seen_at desc nulls last`)
        .orderBy('devices.id')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }

  /** Devices with a paper problem, latest seen first; and how many per paper state, most first. */
  async deviceFaults(tenantId: number, a: DataAccess) {
    const q = () => this.devices(tenantId, a).where('devices.paper', '<>', 'ok');
    const [rows, perPaper] = await Promise.all([
      q()
        .select(['devices.id', 'devices.sn', 'devices.name', 'devices.paper', 'devices.last_seen_at'])
        .orderBy(sql`devices.last_seen_at desc nulls last`)
        .orderBy('devices.id')
        .limit(WORKBENCH_ITEMS)
        .execute(),
      q()
        .select(['devices.paper', sql<number>`count(*)::int`.as('n')])
        .groupBy('devices.paper')
        .orderBy(sql`count(*)`, 'desc')
        .orderBy('devices.paper')
        .execute(),
    ]);
    return { rows, perPaper };
  }

  // ---- platform staff: every account

  /** Identity submissions waiting for review; oldest first. */
  identityWaiting() {
    const q = () =>
      this.db
        .selectFrom('identity_submissions as s')
        .innerJoin('tenants as t', 't.id', 's.tenant_id')
        .where('s.status', '=', AUTH_STATUS.waiting);
    return counted(q, (base) =>
      base
        .select(['s.id', 's.kind', 's.company_name', 't.name as tenant_name', 's.created_at'])
        .orderBy('s.created_at', 'asc')
        .orderBy('s.id')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }

  private staffWorkOrders() {
    return this.db
      .selectFrom('work_orders')
      .innerJoin('tenants as t', 't.id', 'work_orders.tenant_id')
      .where('work_orders.state', 'in', OPEN_STATES);
  }

  /** Open work orders nobody handles; the first response falling due soonest first. */
  workOrdersUnassigned() {
    const q = () => this.staffWorkOrders().where('work_orders.assignee_id', 'is', null);
    return counted(q, (base) =>
      base
        .select([
          'work_orders.id',
          'work_orders.title',
          'work_orders.order_no',
          't.name as tenant_name',
          'work_orders.priority',
          'work_orders.created_at as at',
        ])
        .orderBy('work_orders.response_due_at', 'asc')
        .orderBy('work_orders.id')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }

  /** Open work orders past the first-response target without a response, or past the resolution target. */
  workOrdersOverdue() {
    const due = sql<Date>`case when work_orders.first_response_at is null
      and work_orders.response_due_at < work_orders.resolve_due_at
      then work_orders.response_due_at else work_orders.resolve_due_at end`;
    const q = () =>
      this.staffWorkOrders().where(
        sql<boolean>`((work_orders.first_response_at is null and now() > work_orders.response_due_at) or now() > work_orders.resolve_due_at)`,
      );
    return counted(q, (base) =>
      base
        .select([
          'work_orders.id',
          'work_orders.title',
          'work_orders.order_no',
          't.name as tenant_name',
          'work_orders.priority',
          due.as('at'),
        ])
        .orderBy(due, 'asc')
        .orderBy('work_orders.id')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }

  /** Orders paid whose data never reached the SIMs; paid longest ago first. */
  refundsPending() {
    const q = () =>
      this.db
        .selectFrom('orders')
        .innerJoin('tenants as t', 't.id', 'orders.tenant_id')
        .where('orders.state', '=', 'paid');
    return counted(q, (base) =>
      base
        .select(['orders.id', 'orders.order_no', 'orders.total_fen', 't.name as tenant_name', 'orders.paid_at'])
        .orderBy('orders.paid_at', 'asc')
        .orderBy('orders.id')
        .limit(WORKBENCH_ITEMS)
        .execute(),
    );
  }
}

const access = (scope: DataAccess['scope']): DataAccess => ({
  scope,
  tenantId: 3,
  userId: 12,
  departmentId: 5,
  departmentPath: '1/5/',
});

/** The count statement answers one row. */
const one = { results: [[{ n: '0' }]] };

export const workbenchQueries = defineQueries(WorkbenchRepository, {
  workOrdersWaiting: [
    { args: [3, access('own')], ...one },
    { args: [3, access('department')], ...one },
  ],
  workOrdersUnread: [{ args: [3, access('all')], ...one }],
  simsLow: [{ args: [3, access('own')], ...one }],
  simsExpiring: [{ args: [3, access('department')], ...one }],
  devicesOffline: [{ args: [3, access('own')], ...one }],
  deviceFaults: [[3, access('all')]],
  identityWaiting: [{ args: [], ...one }],
  workOrdersUnassigned: [{ args: [], ...one }],
  workOrdersOverdue: [{ args: [], ...one }],
  refundsPending: [{ args: [], ...one }],
});
