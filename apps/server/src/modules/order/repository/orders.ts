import { sql, type Selectable } from 'kysely';
import { ORDER_CLOSE_MINUTES, type OrderState } from '@cpc/contracts';
import type { Db } from '../../../db/database.ts';
import type { OrderLines, Orders } from '../../../db/generated.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { audit, type AuditEntry } from '../../../lib/audit.ts';
import { deviceInScope, inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { OrderPaymentRepository } from './payment.ts';

export type OrderRow = Selectable<Orders>;
export type OrderLineRow = Selectable<OrderLines>;

/** Whose orders a reader sees: every tenant's (staff), or its tenant's within its data scope. */
export type OrderReach = { all: true } | { all: false; access: DataAccess };

/** What the order list filters by. */
export interface OrderFilter {
  tenantId?: number;
  state?: OrderState;
  from?: string;
  to?: string;
  orderNo?: string;
  iccid?: string;
  packageId?: number;
  pageNo: number;
  pageSize: number;
}

/** A line of a new order, priced from the catalogue. */
export interface NewLine {
  iccid: string;
  packageId: number;
  packageName: string;
  dataMb: number;
  validityDays: number;
  priceFen: number;
}

/** Orders still counting against a package's per-SIM limit. */
const LIVE_STATES: OrderState[] = ['pending', 'paid', 'fulfilled'];
/** The advisory lock class of the per-SIM limit ("PSIM"); the object is a hash of tenant, ICCID and package. */
const PER_SIM_LOCK = 0x5053_494d;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/**
 * The statements of orders and their payment: `orders`, `order_lines`, `payment_notifications`, the SIMs an order
 * is for and tops up (`sims`), and the names and devices it shows or tells (`tenants`, `users`, `devices`).
 */
export class OrderRepository {
  /** Payment notifications and fulfilment, on the same database or transaction. */
  readonly payment: OrderPaymentRepository;

  constructor(private db: Db) {
    this.payment = new OrderPaymentRepository(db);
  }

  private scope(tenantId: number): TenantScope {
    return new TenantScope(this.db, tenantId);
  }

  /** Runs `work` in one transaction with a repository bound to it. */
  transaction<T>(work: (repo: OrderRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new OrderRepository(trx)));
  }

  /** A system log entry, in this repository's transaction when it is bound to one. */
  audit(entry: AuditEntry): Promise<void> {
    return audit(this.db, entry);
  }

  /** The caller's SIMs among `iccids` (tenant and data scope: through the SIM's device). */
  simsOf(access: DataAccess, iccids: string[]) {
    return this.scope(access.tenantId)
      .selectFrom('sims')
      .select(['iccid', 'carrier', 'plan_total_mb', 'used_mb', 'expires_at', 'device_id', 'state'])
      .where('iccid', 'in', iccids)
      .where(deviceInScope(access, 'sims.device_id'))
      .execute();
  }

  /** The caller's SIMs to buy for (200 at most, by ICCID) with their devices: some ICCIDs, or a keyword. */
  simOptions(access: DataAccess, iccids: string[], keyword?: string) {
    let query = this.scope(access.tenantId)
      .selectFrom('sims')
      .leftJoin('devices', (j) =>
        j.onRef('devices.id', '=', 'sims.device_id').onRef('devices.tenant_id', '=', 'sims.tenant_id'),
      )
      .select([
        'sims.iccid',
        'sims.device_id',
        'devices.name',
        'devices.sn',
        'sims.carrier',
        'sims.plan_total_mb',
        'sims.used_mb',
        'sims.expires_at',
        'sims.state',
      ])
      .where(deviceInScope(access, 'sims.device_id'));
    if (iccids.length) query = query.where('sims.iccid', 'in', iccids);
    if (keyword) {
      const like = `%${escapeLike(keyword)}%`;
      query = query.where((eb) =>
        eb.or([eb('sims.iccid', 'like', like), eb('devices.name', 'ilike', like), eb('devices.sn', 'ilike', like)]),
      );
    }
    return query.orderBy('sims.iccid').limit(200).execute();
  }

  /** The packages `ids` (the catalogue, read in this repository's transaction). */
  packagesByIds(ids: number[]) {
    return this.db.selectFrom('traffic_packages').selectAll().where('id', 'in', ids).execute();
  }

  /** The tenant's live orders' lines counted by (SIM, package), for the per-SIM limits. */
  liveLineCounts(tenantId: number, iccids: string[], packageIds: number[]) {
    return this.scope(tenantId)
      .selectFrom('order_lines')
      .innerJoin('orders', 'orders.id', 'order_lines.order_id')
      .select(['order_lines.iccid', 'order_lines.package_id', sql<number>`count(*)::int`.as('n')])
      .where('order_lines.iccid', 'in', iccids)
      .where('order_lines.package_id', 'in', packageIds)
      .where('orders.state', 'in', LIVE_STATES)
      .groupBy(['order_lines.iccid', 'order_lines.package_id'])
      .execute();
  }

  /**
   * Takes, for the rest of the transaction, one advisory lock per distinct (SIM, package) key, in one statement in
   * the order of the keys' hashes (two orders for several SIMs cannot deadlock).
   */
  async lockPerSim(keys: string[]): Promise<void> {
    await sql`select count(pg_advisory_xact_lock(${PER_SIM_LOCK}, k)) from (
      select distinct hashtext(x) as k from unnest(${keys}::text[]) as x order by k) as ordered`.execute(this.db);
  }

  /** The tenant's order of this client request id. */
  async idByRequest(tenantId: number, clientRequestId: string): Promise<number | null> {
    const r = await this.scope(tenantId)
      .selectFrom('orders')
      .select('id')
      .where('client_request_id', '=', clientRequestId)
      .executeTakeFirst();
    return r?.id ?? null;
  }

  /** A new pending order closing in ORDER_CLOSE_MINUTES; null when the client request id has one already. */
  async insertOrder(
    tenantId: number,
    o: { orderNo: string; ownerId: number; departmentId: number | null; totalFen: number; clientRequestId: string },
  ): Promise<number | null> {
    const row = await this.scope(tenantId)
      .insertInto('orders', {
        order_no: o.orderNo,
        owner_id: o.ownerId,
        department_id: o.departmentId,
        total_fen: o.totalFen,
        client_request_id: o.clientRequestId,
        expires_at: sql<Date>`now() + make_interval(mins => ${ORDER_CLOSE_MINUTES})`,
      })
      .onConflict((oc) => oc.columns(['tenant_id', 'client_request_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id ?? null;
  }

  async insertLines(tenantId: number, orderId: number, lines: NewLine[]): Promise<void> {
    await this.scope(tenantId)
      .insertInto(
        'order_lines',
        lines.map((l) => ({
          order_id: orderId,
          iccid: l.iccid,
          package_id: l.packageId,
          package_name: l.packageName,
          data_mb: l.dataMb,
          validity_days: l.validityDays,
          price_fen: l.priceFen,
        })),
      )
      .execute();
  }

  /** The orders the reader reaches, as a query on `orders`. */
  private reached(reach: OrderReach) {
    if (reach.all) return this.db.selectFrom('orders');
    return this.scope(reach.access.tenantId).selectFrom('orders').where(inDataScope(reach.access, 'orders'));
  }

  /** The orders with their tenant's and owner's names, line count and package names. */
  private withNames(query: ReturnType<OrderRepository['reached']>) {
    return query
      .innerJoin('tenants', 'tenants.id', 'orders.tenant_id')
      .leftJoin('users', 'users.id', 'orders.owner_id')
      .selectAll('orders')
      .select([
        'tenants.name as tenant_name',
        'users.username as user_name',
        sql<number>`(select count(*)::int from order_lines ol where ol.order_id = orders.id)`.as('line_count'),
        sql<
          string[]
        >`coalesce((select array_agg(distinct ol.package_name) from order_lines ol where ol.order_id = orders.id), '{}')`.as(
          'packages',
        ),
      ]);
  }

  /** A page of the orders the reader reaches that pass the filter, newest first, and how many in all. */
  async listPage(reach: OrderReach, q: OrderFilter) {
    let query = this.reached(reach);
    if (q.tenantId && reach.all) query = query.where('orders.tenant_id', '=', q.tenantId);
    if (q.state) query = query.where('orders.state', '=', q.state);
    if (q.from) query = query.where('orders.created_at', '>=', new Date(q.from));
    if (q.to) query = query.where('orders.created_at', '<', new Date(q.to));
    if (q.orderNo) query = query.where('orders.order_no', 'like', `%${escapeLike(q.orderNo)}%`);
    if (q.iccid) {
      const like = `%${escapeLike(q.iccid)}%`;
      query = query.where(
        sql<boolean>`exists (select 1 from order_lines ol where ol.order_id = orders.id and ol.iccid like ${like})`,
      );
    }
    if (q.packageId) {
      query = query.where(
        sql<boolean>`exists (select 1 from order_lines ol where ol.order_id = orders.id and ol.package_id = ${q.packageId})`,
      );
    }
    const [rows, total] = await Promise.all([
      this.withNames(query)
        .orderBy('orders.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      query.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: total.n };
  }

  /** One order the reader reaches, with its names. */
  findReached(reach: OrderReach, id: number) {
    return this.withNames(this.reached(reach)).where('orders.id', '=', id).executeTakeFirst();
  }

  /** The order's lines in their order. */
  linesOf(orderId: number, tenantId: number): Promise<OrderLineRow[]> {
    return this.db
      .selectFrom('order_lines')
      .selectAll()
      .where('order_id', '=', orderId)
      .where('tenant_id', '=', tenantId)
      .orderBy('id')
      .execute();
  }

  /** A user's name. */
  async usernameOf(userId: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('users').select('username').where('id', '=', userId).executeTakeFirst();
    return row?.username;
  }

  /** Records the provider a pending order of the tenant is being paid through. */
  async setProvider(tenantId: number, id: number, provider: string): Promise<void> {
    await this.scope(tenantId)
      .updateTable('orders')
      .set({ provider })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .execute();
  }

  /** Cancels the tenant's order when it is pending; false when it was not. */
  async cancelPending(tenantId: number, id: number): Promise<boolean> {
    const row = await this.scope(tenantId)
      .updateTable('orders')
      .set({ state: 'canceled', canceled_at: sql`now()` })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .returning('id')
      .executeTakeFirst();
    return !!row;
  }

  /** Closes pending orders past their time (`ids`: only those): the orders closed. */
  closeExpired(ids?: number[]) {
    let q = this.db
      .updateTable('orders')
      .set({ state: 'closed', closed_at: sql`now()` })
      .where('state', '=', 'pending')
      .where('expires_at', '<=', sql<Date>`now()`);
    if (ids) q = q.where('id', 'in', ids);
    return q.returning(['id', 'order_no', 'tenant_id']).execute();
  }

  /** The order `id`, its row locked for the rest of the transaction. */
  lockById(id: number): Promise<OrderRow | undefined> {
    return this.db.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  }

  /** A refund by staff. */
  async markRefunded(id: number, reason: string, staffId: number): Promise<void> {
    await this.db
      .updateTable('orders')
      .set({ state: 'refunded', refunded_at: sql`now()`, refund_reason: reason, refunded_by: staffId })
      .where('id', '=', id)
      .execute();
  }

  /** Where the order is filed (its department and owner), for who hears of it. */
  filingOf(id: number) {
    return this.db.selectFrom('orders').select(['department_id', 'owner_id']).where('id', '=', id).executeTakeFirst();
  }

  /** The platform's tenant (the first of kind platform). */
  async platformTenantId(): Promise<number | null> {
    const r = await this.db
      .selectFrom('tenants')
      .select('id')
      .where('kind', '=', 'platform')
      .orderBy('id')
      .executeTakeFirst();
    return r?.id ?? null;
  }
}

const department: DataAccess = {
  tenantId: 7,
  userId: 41,
  scope: 'department',
  departmentId: 5,
  departmentPath: '1/5/',
};
const iccid = '89860123456789012345';

export const orderQueries = defineQueries(OrderRepository, {
  simsOf: [[department, [iccid]]],
  simOptions: [
    [department, [], undefined],
    [department, [iccid], 'lobby_1'],
  ],
  packagesByIds: [[[21, 22]]],
  liveLineCounts: [[7, [iccid], [21, 22]]],
  lockPerSim: [[[`7/${iccid}/21`, `7/${iccid}/22`]]],
  idByRequest: [[7, 'c0ffee00-1234-4abc-9def-000000000001']],
  insertOrder: [
    [
      7,
      {
        orderNo: '2026030108000012345678',
        ownerId: 41,
        departmentId: 5,
        totalFen: 6000,
        clientRequestId: 'c0ffee00-1234-4abc-9def-000000000001',
      },
    ],
  ],
  insertLines: [
    [
      7,
      12,
      [{ iccid, packageId: 21, packageName: '10 GB / 30 days', dataMb: 10240, validityDays: 30, priceFen: 3000 }],
    ],
  ],
  listPage: [
    { args: [{ all: true }, { pageNo: 1, pageSize: 20 }], results: [[], [{ n: 0 }]] },
    {
      args: [
        { all: true },
        {
          tenantId: 7,
          state: 'paid',
          from: '2026-03-01T00:00:00Z',
          to: '2026-04-01T00:00:00Z',
          orderNo: '20260301',
          iccid: '8986_01',
          packageId: 21,
          pageNo: 2,
          pageSize: 20,
        },
      ],
      results: [[], [{ n: 0 }]],
    },
    {
      args: [
        { all: false, access: department },
        { pageNo: 1, pageSize: 20 },
      ],
      results: [[], [{ n: 0 }]],
    },
  ],
  findReached: [
    [{ all: true }, 12],
    [{ all: false, access: department }, 12],
  ],
  linesOf: [[12, 7]],
  usernameOf: [[1]],
  setProvider: [[7, 12, 'sandbox']],
  cancelPending: [[7, 12]],
  closeExpired: [[], [[12]]],
  lockById: [[12]],
  markRefunded: [[12, 'Bought for the wrong SIM', 1]],
  filingOf: [[12]],
  platformTenantId: [[]],
});
