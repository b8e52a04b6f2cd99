import { randomInt } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import {
  ORDER_CLOSE_MINUTES,
  PERMISSIONS,
  type OrderDetail,
  type OrderQuote,
  type OrderState,
  type OrderView,
  type PackageBody,
  type PackageEditBody,
  type PackageView,
  type Paged,
  type SimOption,
} from '@cpc/contracts';
import type { ConfigMsg } from '@cpc/contracts/device-protocol';
import type { orderListQuery, packageListQuery, simOptionsQuery } from '@cpc/contracts/order';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { dataAccessOf, deviceInScope, inDataScope, ownership } from '../../lib/data-scope.ts';
import { audit } from '../../lib/audit.ts';
import type { PaymentGateway } from './payment/index.ts';
import { withoutSecrets } from './payment/provider.ts';
import { sendMessages } from '../inbox/index.ts';

/** What fulfilment needs of the device link: one down/config message to a device. */
export interface SimDownlink {
  send(sn: string, kind: 'config', msg: ConfigMsg): Promise<void>;
}

type Tx = Transaction<Database>;
type PackageRow = Awaited<ReturnType<OrderService['packageRow']>>;

const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());
const num = (v: string | number | null | undefined) => (v == null ? null : Number(v));
const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** Orders still counting against a package's per-SIM limit. */
const LIVE_STATES: OrderState[] = ['pending', 'paid', 'fulfilled'];
/** The advisory lock class of the per-SIM limit ("PSIM"); the object is a hash of tenant, ICCID and package. */
const PER_SIM_LOCK = 0x5053_494d;

function packageView(r: NonNullable<PackageRow>): PackageView {
  return {
    id: r.id,
    name: r.name,
    dataMb: r.data_mb,
    validityDays: r.validity_days,
    priceFen: Number(r.price_fen),
    onShelf: r.on_shelf,
    perSimLimit: r.per_sim_limit,
    carriers: r.carriers,
    planMinMb: r.plan_min_mb,
    planMaxMb: r.plan_max_mb,
    sort: r.sort,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/** A new order number: UTC time to the second and eight random digits ("2026112606551208341127"). */
export function newOrderNo(now = new Date()): string {
  const t = now.toISOString().replace(/\D/g, '').slice(0, 14);
  return `${t}${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

/** Who did it, for the system log. */
export interface Actor {
  tenantId: number | null;
  userId: number | null;
  ip: string;
}

/**
 * Packages, orders, payment notifications and fulfilment (issue 13). Amounts are integer fen computed here from
 * the catalogue; fulfilment adds data and validity to the SIMs in the transaction that marks the order fulfilled.
 */
export class OrderService {
  private platformTenant: Promise<number | null> | undefined;

  constructor(
    private db: Db,
    private events: LiveEvents,
    private link: SimDownlink,
    readonly gateway: PaymentGateway,
    private log: FastifyBaseLogger,
  ) {}

  // -------------------------------------------------------------------------------------------------------------
  // The catalogue

  packageRow(id: number, db: Db = this.db) {
    return db.selectFrom('traffic_packages').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async getPackage(id: number): Promise<PackageView> {
    const r = await this.packageRow(id);
    if (!r) throw notFound('package');
    return packageView(r);
  }

  /** Staff: every package; customers: on-shelf ones, and with `iccid` only those that fit that SIM. */
  async listPackages(user: AuthUser, q: z.infer<typeof packageListQuery>): Promise<Paged<PackageView>> {
    const staff = user.tenantKind === 'platform' && hasPermission(user, PERMISSIONS.flowRateGoods);
    let query = this.db.selectFrom('traffic_packages');
    if (!staff) query = query.where('on_shelf', '=', true);
    if (q.keyword) query = query.where('name', 'ilike', `%${escapeLike(q.keyword)}%`);
    if (q.iccid) {
      const [sim] = await this.simsOf(user, [q.iccid]);
      if (!sim) throw notFound('SIM');
      query = query.where(this.fits(sim.carrier, Number(sim.plan_total_mb)));
    }
    const { pageNo, pageSize } = q;
    const [rows, total] = await Promise.all([
      query
        .selectAll()
        .orderBy('sort')
        .orderBy('id')
        .limit(pageSize)
        .offset((pageNo - 1) * pageSize)
        .execute(),
      query.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { list: rows.map(packageView), total: total.n };
  }

  /** The condition a package must meet to fit a SIM of this carrier and plan. */
  private fits(carrier: string, planMb: number) {
    return sql<boolean>`(cardinality(carriers) = 0 or ${carrier} = any(carriers))
      and (plan_min_mb is null or plan_min_mb <= ${planMb}) and (plan_max_mb is null or plan_max_mb >= ${planMb})`;
  }

  async createPackage(b: PackageBody): Promise<PackageView> {
    const row = await this.db
      .insertInto('traffic_packages')
      .values({
        name: b.name,
        data_mb: b.dataMb,
        validity_days: b.validityDays,
        price_fen: b.priceFen,
        on_shelf: b.onShelf ?? false,
        per_sim_limit: b.perSimLimit ?? null,
        carriers: b.carriers ?? [],
        plan_min_mb: b.planMinMb ?? null,
        plan_max_mb: b.planMaxMb ?? null,
        sort: b.sort ?? 0,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return packageView(row);
  }

  async updatePackage(b: PackageEditBody): Promise<{ before: PackageView; after: PackageView }> {
    const before = await this.getPackage(b.id);
    const min = b.planMinMb === undefined ? before.planMinMb : b.planMinMb;
    const max = b.planMaxMb === undefined ? before.planMaxMb : b.planMaxMb;
    if (min != null && max != null && min > max) throw badRequest('planMaxMb', 'rule.planBounds');
    const set = {
      name: b.name,
      data_mb: b.dataMb,
      validity_days: b.validityDays,
      price_fen: b.priceFen,
      on_shelf: b.onShelf,
      per_sim_limit: b.perSimLimit,
      carriers: b.carriers,
      plan_min_mb: b.planMinMb,
      plan_max_mb: b.planMaxMb,
      sort: b.sort,
    };
    const row = await this.db
      .updateTable('traffic_packages')
      .set({
        ...Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)),
        updated_at: sql`now()`,
      })
      .where('id', '=', b.id)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound('package');
    return { before, after: packageView(row) };
  }

  async deletePackage(id: number): Promise<PackageView> {
    const before = await this.getPackage(id);
    // sold lines keep their snapshot of the package (name, data, validity, price); their link is cleared
    await this.db.deleteFrom('traffic_packages').where('id', '=', id).execute();
    return before;
  }

  // -------------------------------------------------------------------------------------------------------------
  // The caller's SIMs

  /** The caller's SIMs among `iccids` (tenant and data scope: through the SIM's device). */
  private async simsOf(user: AuthUser, iccids: string[], scope: TenantScope = user.scope) {
    if (!iccids.length) return [];
    const access = dataAccessOf(user);
    return scope
      .selectFrom('sims')
      .select(['iccid', 'carrier', 'plan_total_mb', 'used_mb', 'expires_at', 'device_id', 'state'])
      .where('iccid', 'in', iccids)
      .where(deviceInScope(access, 'sims.device_id'))
      .execute();
  }

  async simOptions(user: AuthUser, q: z.infer<typeof simOptionsQuery>): Promise<SimOption[]> {
    const access = dataAccessOf(user);
    let query = user.scope
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
    const iccids = (q.iccids ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (iccids.length) query = query.where('sims.iccid', 'in', iccids);
    if (q.keyword) {
      const like = `%${escapeLike(q.keyword)}%`;
      query = query.where((eb) =>
        eb.or([eb('sims.iccid', 'like', like), eb('devices.name', 'ilike', like), eb('devices.sn', 'ilike', like)]),
      );
    }
    const rows = await query.orderBy('sims.iccid').limit(200).execute();
    return rows.map((r) => {
      const plan = Number(r.plan_total_mb);
      const used = Number(r.used_mb);
      return {
        iccid: r.iccid,
        deviceId: r.device_id,
        deviceName: r.name ?? '',
        deviceSn: r.sn ?? '',
        carrier: r.carrier,
        planMb: plan,
        usedMb: used,
        leftMb: Math.max(0, Math.round((plan - used) * 100) / 100),
        expiresAt: iso(r.expires_at),
        state: r.state,
      };
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Pricing and creation

  /**
   * Prices the lines from the catalogue: every SIM the caller's, every package on sale, fitting, within limits.
   * `scope`: the transaction to read in (creation's, which holds the per-SIM locks); else the caller's own.
   */
  async quote(
    user: AuthUser,
    lines: { iccid: string; packageId: number }[],
    scope: TenantScope = user.scope,
  ): Promise<OrderQuote> {
    const iccids = [...new Set(lines.map((l) => l.iccid))];
    const sims = new Map((await this.simsOf(user, iccids, scope)).map((s) => [s.iccid, s]));
    const missing = iccids.find((i) => !sims.has(i));
    if (missing) throw new AppError(404, 'http.notFound', { what: 'SIM' }, { data: { iccid: missing } });
    const ids = [...new Set(lines.map((l) => l.packageId))];
    const packages = new Map(
      (await scope.db.selectFrom('traffic_packages').selectAll().where('id', 'in', ids).execute()).map((p) => [
        p.id,
        p,
      ]),
    );
    const used = await scope
      .selectFrom('order_lines')
      .innerJoin('orders', 'orders.id', 'order_lines.order_id')
      .select(['order_lines.iccid', 'order_lines.package_id', sql<number>`count(*)::int`.as('n')])
      .where('order_lines.iccid', 'in', iccids)
      .where('order_lines.package_id', 'in', ids)
      .where('orders.state', 'in', LIVE_STATES)
      .groupBy(['order_lines.iccid', 'order_lines.package_id'])
      .execute();
    const count = new Map(used.map((u) => [`${u.iccid}/${u.package_id}`, u.n]));
    const out: OrderQuote['lines'] = [];
    lines.forEach((l, i) => {
      const p = packages.get(l.packageId);
      if (!p) throw new AppError(404, 'http.notFound', { what: 'package' }, { data: { packageId: l.packageId } });
      if (!p.on_shelf) throw badRequest(`lines.${i}.packageId`, 'order.packageOffShelf', { id: p.id });
      const sim = sims.get(l.iccid)!;
      const plan = Number(sim.plan_total_mb);
      const fit =
        (!p.carriers.length || p.carriers.includes(sim.carrier)) &&
        (p.plan_min_mb == null || p.plan_min_mb <= plan) &&
        (p.plan_max_mb == null || p.plan_max_mb >= plan);
      if (!fit) throw badRequest(`lines.${i}.packageId`, 'order.packageNotFit', { id: p.id, iccid: l.iccid });
      const key = `${l.iccid}/${p.id}`;
      const n = (count.get(key) ?? 0) + 1;
      count.set(key, n);
      if (p.per_sim_limit != null && n > p.per_sim_limit) {
        throw badRequest(`lines.${i}.packageId`, 'order.perSimLimit', { id: p.id, iccid: l.iccid, n: p.per_sim_limit });
      }
      out.push({
        iccid: l.iccid,
        packageId: p.id,
        packageName: p.name,
        dataMb: p.data_mb,
        validityDays: p.validity_days,
        priceFen: Number(p.price_fen),
      });
    });
    return { lines: out, totalFen: out.reduce((s, l) => s + l.priceFen, 0) };
  }

  /**
   * Creates the order, priced here; the same client request id answers the same order (concurrent submits too:
   * they queue on the same locks and the later one finds the order; the UNIQUE (tenant_id, client_request_id)
   * constraint is the backstop). The per-SIM limits are counted inside the creating transaction, under a lock per
   * (SIM, package) line: concurrent orders for the same SIM and package queue there, and each counts the orders
   * committed before it, so a limit holds however many arrive at once.
   */
  async create(
    user: AuthUser,
    body: { clientRequestId: string; lines: { iccid: string; packageId: number }[] },
    ip: string,
  ): Promise<{ order: OrderDetail; created: boolean }> {
    // a server that takes no money sells nothing: not even an order that could never be paid
    if (this.gateway.name === 'off') throw new AppError(503, 'order.paymentOff');
    const existing = await this.idByRequest(user, body.clientRequestId);
    if (existing) return { order: await this.detail(user, existing), created: false };
    const access = dataAccessOf(user);
    const made = await user.scope.transaction(async (tx) => {
      await this.lockPerSim(tx, body.lines);
      // a twin submit that held these locks first has committed its order by now
      const twin = await this.idByRequest(user, body.clientRequestId, tx);
      if (twin) return { id: twin, created: false };
      const q = await this.quote(user, body.lines, tx);
      const row = await tx
        .insertInto('orders', {
          order_no: newOrderNo(),
          owner_id: ownership(access).owner_id,
          department_id: ownership(access).department_id,
          total_fen: q.totalFen,
          client_request_id: body.clientRequestId,
          expires_at: sql<Date>`now() + make_interval(mins => ${ORDER_CLOSE_MINUTES})`,
        })
        .onConflict((oc) => oc.columns(['tenant_id', 'client_request_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!row) return null;
      await tx
        .insertInto(
          'order_lines',
          q.lines.map((l) => ({
            order_id: row.id,
            iccid: l.iccid,
            package_id: l.packageId,
            package_name: l.packageName,
            data_mb: l.dataMb,
            validity_days: l.validityDays,
            price_fen: l.priceFen,
          })),
        )
        .execute();
      return { id: row.id, created: true };
    });
    if (made == null) {
      const other = await this.idByRequest(user, body.clientRequestId);
      if (!other) throw new AppError(409, 'http.409');
      return { order: await this.detail(user, other), created: false };
    }
    if (!made.created) return { order: await this.detail(user, made.id), created: false };
    const id = made.id;
    const order = await this.detail(user, id);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'order.create',
      resource: 'order',
      resourceId: id,
      result: 'ok',
      changes: {
        state: { before: null, after: 'pending' },
        totalFen: { before: null, after: order.totalFen },
        lines: { before: null, after: order.lines.map((l) => `${l.iccid} × ${l.packageName}`) },
      },
    });
    await this.announce(order.id, order.orderNo, order.tenantId, 'pending');
    return { order, created: true };
  }

  /**
   * Takes, for the rest of `tx`, one lock per distinct (SIM, package) of the lines: a transaction-scoped advisory
   * lock, not a lock on the SIM rows, because the SIM rows are written all the time by the devices' usage
   * roll-up (which should not wait for a purchase) and the limit is per SIM *and* package. Taken in one statement in
   * the order of the keys, so two orders for several SIMs cannot deadlock; a hash collision only makes two unrelated
   * lines queue. Released at commit or rollback.
   */
  private async lockPerSim(tx: TenantScope, lines: { iccid: string; packageId: number }[]) {
    const keys = [...new Set(lines.map((l) => `${tx.tenantId}/${l.iccid}/${l.packageId}`))];
    await sql`select count(pg_advisory_xact_lock(${PER_SIM_LOCK}, k)) from (
      select distinct hashtext(x) as k from unnest(${keys}::text[]) as x order by k) as ordered`.execute(tx.db);
  }

  private async idByRequest(
    user: AuthUser,
    clientRequestId: string,
    scope: TenantScope = user.scope,
  ): Promise<number | null> {
    const r = await scope
      .selectFrom('orders')
      .select('id')
      .where('client_request_id', '=', clientRequestId)
      .executeTakeFirst();
    return r?.id ?? null;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading

  /** Whether the caller sees every tenant's orders (staff with flowRate:refund). */
  private seesAll(user: AuthUser) {
    return user.tenantKind === 'platform' && hasPermission(user, PERMISSIONS.flowRateRefund);
  }

  /**
   * The orders the caller sees, as a query on `orders`. `reader`: every tenant's for staff, else the caller's tenant
   * within its data scope. `buyer` (paying, canceling): always the latter: staff read every order, but act on a
   * customer's only through their own routes (refund), never as the customer.
   */
  private async visibleOrders(user: AuthUser, as: 'reader' | 'buyer' = 'reader') {
    if (as === 'reader' && this.seesAll(user)) return this.db.selectFrom('orders');
    const access = dataAccessOf(user);
    return user.scope.selectFrom('orders').where(inDataScope(access, 'orders'));
  }

  async list(user: AuthUser, q: z.infer<typeof orderListQuery>): Promise<Paged<OrderView>> {
    let query = await this.visibleOrders(user);
    if (q.tenantId && this.seesAll(user)) query = query.where('orders.tenant_id', '=', q.tenantId);
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
    const { pageNo, pageSize } = q;
    const [rows, total] = await Promise.all([
      this.withNames(query)
        .orderBy('orders.id', 'desc')
        .limit(pageSize)
        .offset((pageNo - 1) * pageSize)
        .execute(),
      query.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { list: rows.map(orderView), total: total.n };
  }

  private withNames(query: Awaited<ReturnType<OrderService['visibleOrders']>>) {
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

  /** One order the caller sees (`as`: see visibleOrders); another's answers 404. */
  async detail(user: AuthUser, id: number, as: 'reader' | 'buyer' = 'reader'): Promise<OrderDetail> {
    const row = await this.withNames(await this.visibleOrders(user, as))
      .where('orders.id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound('order');
    const [lines, refunder] = await Promise.all([
      this.db
        .selectFrom('order_lines')
        .selectAll()
        .where('order_id', '=', id)
        .where('tenant_id', '=', row.tenant_id)
        .orderBy('id')
        .execute(),
      row.refunded_by
        ? this.db.selectFrom('users').select('username').where('id', '=', row.refunded_by).executeTakeFirst()
        : undefined,
    ]);
    return {
      ...orderView(row),
      refundedBy: refunder?.username ?? null,
      lines: lines.map((l) => ({
        id: l.id,
        iccid: l.iccid,
        packageId: l.package_id ?? 0,
        packageName: l.package_name,
        dataMb: l.data_mb,
        validityDays: l.validity_days,
        priceFen: Number(l.price_fen),
        fulfilledAt: iso(l.fulfilled_at),
        planBefore: num(l.plan_before),
        planAfter: num(l.plan_after),
        expiresBefore: iso(l.expires_before),
        expiresAfter: iso(l.expires_after),
      })),
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Paying, canceling, closing

  /** Starts payment of a pending order: the cashier's URL and QR content. An order past its time closes first. */
  async pay(user: AuthUser, id: number, ctx: { origin: string; lang: 'zh' | 'en'; ip: string }) {
    const provider = this.gateway.name;
    if (provider === 'off') throw new AppError(503, 'order.paymentOff');
    const order = await this.detail(user, id, 'buyer');
    if (order.state === 'pending' && new Date(order.expiresAt).getTime() <= Date.now()) {
      await this.closeExpired([id]);
      throw new AppError(409, 'order.closed', { n: ORDER_CLOSE_MINUTES });
    }
    if (order.state !== 'pending') throw new AppError(409, 'order.notPending');
    const names = [...new Set(order.lines.map((l) => l.packageName))].join(', ');
    const subject = `${names} × ${order.lines.length}`.slice(0, 120);
    let started: { cashierUrl: string; qrContent: string };
    try {
      started = await this.gateway.start(
        {
          orderNo: order.orderNo,
          tenantId: order.tenantId,
          totalFen: order.totalFen,
          subject,
          expiresAt: new Date(order.expiresAt),
        },
        ctx,
      );
    } catch (err) {
      // a key the gateway's SDK cannot sign with, a gateway out of reach: the caller hears 502, the log why
      this.log.error({ err, orderNo: order.orderNo }, 'payment: starting a payment failed');
      throw new AppError(502, 'order.providerFailed');
    }
    await user.scope
      .updateTable('orders')
      .set({ provider })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .execute();
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: ctx.ip,
      action: 'order.pay',
      resource: 'order',
      resourceId: id,
      result: 'ok',
      changes: { provider: { before: order.provider, after: provider } },
    });
    return { provider, ...started };
  }

  async cancel(user: AuthUser, id: number, ip: string): Promise<OrderDetail> {
    const before = await this.detail(user, id, 'buyer');
    const row = await user.scope
      .updateTable('orders')
      .set({ state: 'canceled', canceled_at: sql`now()` })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .returning('id')
      .executeTakeFirst();
    if (!row) throw new AppError(409, 'order.notPending');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'order.cancel',
      resource: 'order',
      resourceId: id,
      result: 'ok',
      changes: { state: { before: before.state, after: 'canceled' } },
    });
    await this.announce(id, before.orderNo, before.tenantId, 'canceled');
    return this.detail(user, id);
  }

  /**
   * Closes pending orders past their time: one idempotent UPDATE, safe on N nodes at once (a row closes once).
   * `ids`: only those (the check at pay time); else every one due.
   */
  async closeExpired(ids?: number[]): Promise<number> {
    let q = this.db
      .updateTable('orders')
      .set({ state: 'closed', closed_at: sql`now()` })
      .where('state', '=', 'pending')
      .where('expires_at', '<=', sql<Date>`now()`);
    if (ids) q = q.where('id', 'in', ids);
    const rows = await q.returning(['id', 'order_no', 'tenant_id']).execute();
    for (const r of rows) {
      await audit(this.db, {
        tenantId: r.tenant_id,
        userId: null,
        ip: '',
        action: 'order.close',
        resource: 'order',
        resourceId: r.id,
        result: 'ok',
        changes: { state: { before: 'pending', after: 'closed' } },
      });
      await this.announce(r.id, r.order_no, r.tenant_id, 'closed');
    }
    return rows.length;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Refunds (staff)

  /**
   * Refunds a paid or fulfilled order's money through the provider that took it (stored on the order), with a
   * reason. The data already added to the SIMs stays (it may be used already): a refund gives the money back, it
   * does not take data away. When that provider is not the one this server is set up with now (PAYMENT_PROVIDER
   * changed since), nothing changes: 409 naming it — the money can only go back the way it came.
   */
  async refund(staff: AuthUser, id: number, reason: string, ip: string): Promise<OrderDetail> {
    const before = await this.detail(staff, id);
    await this.db.transaction().execute(async (tx) => {
      const o = await tx.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      if (!o) throw notFound('order');
      if (o.state !== 'paid' && o.state !== 'fulfilled') throw new AppError(409, 'order.notRefundable');
      const provider = o.provider ?? this.gateway.name;
      if (provider !== this.gateway.name)
        throw new AppError(409, 'order.refundProviderGone', { provider }, { data: { provider } });
      await this.gateway.refund({ orderNo: o.order_no, tradeNo: o.trade_no, totalFen: Number(o.total_fen), reason });
      await tx
        .updateTable('orders')
        .set({ state: 'refunded', refunded_at: sql`now()`, refund_reason: reason, refunded_by: staff.id })
        .where('id', '=', id)
        .execute();
    });
    await audit(this.db, {
      tenantId: staff.tenantId,
      userId: staff.id,
      ip,
      action: 'order.refund',
      resource: 'order',
      resourceId: id,
      result: 'ok',
      details: { orderNo: before.orderNo, tenantId: before.tenantId, totalFen: before.totalFen },
      changes: {
        state: { before: before.state, after: 'refunded' },
        refundReason: { before: null, after: reason },
      },
    });
    await this.announce(id, before.orderNo, before.tenantId, 'refunded');
    return this.detail(staff, id);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Gateway notifications and fulfilment

  /**
   * One asynchronous notification from the gateway: `success` when it is taken (also a repeat: it fulfils once),
   * `fail` when refused (bad signature, unknown order, another tenant's, wrong amount). Every one is recorded;
   * refusals also in the system log. A payment for a canceled or closed order is refunded, never fulfilled.
   */
  async notify(provider: string, params: Record<string, string>, ip: string): Promise<'success' | 'fail'> {
    const record = async (
      r: { result: string; verified: boolean; orderId?: number | null; tenantId?: number | null },
      db: Db | Tx = this.db,
    ) => {
      await db
        .insertInto('payment_notifications')
        .values({
          provider: provider.slice(0, 20),
          order_no: (params.out_trade_no ?? '').slice(0, 64) || null,
          order_id: r.orderId ?? null,
          tenant_id: r.tenantId ?? null,
          params: JSON.stringify(withoutSecrets(params)),
          verified: r.verified,
          result: r.result,
        })
        .execute();
    };
    const refuse = async (result: string, verified: boolean, orderId?: number, tenantId?: number) => {
      await record({ result, verified, orderId, tenantId });
      this.log.warn({ provider, result, orderNo: params.out_trade_no }, 'payment notification refused');
      await audit(this.db, {
        tenantId: tenantId ?? null,
        userId: null,
        ip,
        action: 'order.notify',
        resource: 'order',
        resourceId: orderId ?? (params.out_trade_no ?? '').slice(0, 64),
        result: 'fail',
        details: { provider, reason: result },
      });
      return 'fail' as const;
    };
    if (provider !== this.gateway.name) return refuse('provider-not-enabled', false);
    const notice = this.gateway.verify(params);
    if (!notice) return refuse('bad-signature', false);

    type Outcome =
      | { kind: 'refused'; result: string; orderId?: number; tenantId?: number }
      | { kind: 'done'; result: string }
      | { kind: 'failed'; id: number; orderNo: string; tenantId: number }
      | {
          kind: 'fulfilled';
          id: number;
          orderNo: string;
          tenantId: number;
          ownerId: number | null;
          sims: FulfilledSim[];
        }
      | { kind: 'refund'; id: number; orderNo: string; tenantId: number; totalFen: number; tradeNo: string };
    const outcome = await this.db.transaction().execute(async (tx): Promise<Outcome> => {
      const o = await tx
        .selectFrom('orders')
        .selectAll()
        .where('order_no', '=', notice.orderNo)
        .forUpdate()
        .executeTakeFirst();
      if (!o) return { kind: 'refused', result: 'unknown-order' };
      if (notice.tenantId !== o.tenant_id) {
        return { kind: 'refused', result: 'wrong-tenant', orderId: o.id, tenantId: o.tenant_id };
      }
      const base = { orderId: o.id, tenantId: o.tenant_id, verified: true };
      if (notice.status === 'failed') {
        if (o.state === 'pending') {
          await tx
            .updateTable('orders')
            .set({ pay_failed_at: sql`now()` })
            .where('id', '=', o.id)
            .execute();
        }
        await record({ ...base, result: 'payment-failed' }, tx);
        return { kind: 'failed', id: o.id, orderNo: o.order_no, tenantId: o.tenant_id };
      }
      if (notice.status !== 'paid') {
        await record({ ...base, result: 'ignored' }, tx);
        return { kind: 'done', result: 'ignored' };
      }
      if (notice.amountFen !== Number(o.total_fen)) {
        return { kind: 'refused', result: 'wrong-amount', orderId: o.id, tenantId: o.tenant_id };
      }
      if (o.state === 'paid' || o.state === 'fulfilled' || o.state === 'refunded') {
        await record({ ...base, result: 'duplicate' }, tx);
        return { kind: 'done', result: 'duplicate' };
      }
      const expired = o.state === 'pending' && new Date(o.expires_at).getTime() <= Date.now();
      if (o.state === 'canceled' || o.state === 'closed' || expired) {
        // money arrived for an order that is no longer for sale: refunded, never fulfilled
        await tx
          .updateTable('orders')
          .set({
            state: 'refunded',
            paid_at: sql`now()`,
            trade_no: notice.tradeNo,
            provider,
            closed_at: o.state === 'pending' ? sql`now()` : o.closed_at,
            refunded_at: sql`now()`,
            refund_reason: `paid after the order was ${o.state === 'canceled' ? 'canceled' : 'closed'} (automatic)`,
          })
          .where('id', '=', o.id)
          .execute();
        await record({ ...base, result: 'refunded-late-payment' }, tx);
        return {
          kind: 'refund',
          id: o.id,
          orderNo: o.order_no,
          tenantId: o.tenant_id,
          totalFen: Number(o.total_fen),
          tradeNo: notice.tradeNo,
        };
      }
      await tx
        .updateTable('orders')
        .set({ state: 'paid', paid_at: sql`now()`, trade_no: notice.tradeNo, provider })
        .where('id', '=', o.id)
        .execute();
      const sims = await this.fulfil(tx, o.id, o.tenant_id);
      await record({ ...base, result: 'fulfilled' }, tx);
      return { kind: 'fulfilled', id: o.id, orderNo: o.order_no, tenantId: o.tenant_id, ownerId: o.owner_id, sims };
    });

    switch (outcome.kind) {
      case 'refused':
        return refuse(outcome.result, true, outcome.orderId, outcome.tenantId);
      case 'done':
        return 'success';
      case 'failed':
        await this.announce(outcome.id, outcome.orderNo, outcome.tenantId, 'pending');
        return 'success';
      case 'refund': {
        let result: 'ok' | 'fail' = 'ok';
        try {
          await this.gateway.refund({
            orderNo: outcome.orderNo,
            tradeNo: outcome.tradeNo,
            totalFen: outcome.totalFen,
            reason: 'order closed before payment',
          });
        } catch (err) {
          result = 'fail';
          this.log.error({ err, orderNo: outcome.orderNo }, 'refund of a late payment failed');
        }
        await audit(this.db, {
          tenantId: outcome.tenantId,
          userId: null,
          ip,
          action: 'order.refund',
          resource: 'order',
          resourceId: outcome.id,
          result,
          details: { reason: 'paid after close', provider },
          changes: { state: { before: 'closed', after: 'refunded' } },
        });
        await this.announce(outcome.id, outcome.orderNo, outcome.tenantId, 'refunded');
        return 'success';
      }
      case 'fulfilled':
        await audit(this.db, {
          tenantId: outcome.tenantId,
          userId: null,
          ip,
          action: 'order.fulfil',
          resource: 'order',
          resourceId: outcome.id,
          result: 'ok',
          details: { provider, tradeNo: notice.tradeNo },
          changes: {
            state: { before: 'pending', after: 'fulfilled' },
            sims: {
              before: outcome.sims.map((s) => `${s.iccid}: ${s.planBefore} MB`),
              after: outcome.sims.map((s) => `${s.iccid}: ${s.planAfter} MB`),
            },
          },
        });
        await this.afterFulfil(outcome.id, outcome.orderNo, outcome.tenantId, outcome.sims);
        // the buyer's message centre (issue 14)
        if (outcome.ownerId != null) {
          const iccids = [...new Set(outcome.sims.map((s) => s.iccid))].join(', ');
          (
            await sendMessages(this.db, [
              {
                tenantId: outcome.tenantId,
                userId: outcome.ownerId,
                kind: 'order.fulfilled',
                title: 'inbox.orderFulfilledTitle',
                body: iccids ? `${outcome.orderNo} · ICCID ${iccids}` : outcome.orderNo,
                link: `/flowRate/flowRateLog?orderNo=${outcome.orderNo}`,
              },
            ])
          )(this.events);
        }
        return 'success';
    }
  }

  /**
   * Adds each line's data and validity to its SIM, records before → after on the line and marks the order
   * fulfilled, all in the caller's transaction (the order row is locked by it). A SIM the tenant no longer has
   * keeps its line unfulfilled.
   */
  private async fulfil(tx: Tx, orderId: number, tenantId: number): Promise<FulfilledSim[]> {
    const lines = await tx
      .selectFrom('order_lines')
      .selectAll()
      .where('order_id', '=', orderId)
      .orderBy('id')
      .execute();
    const out: FulfilledSim[] = [];
    for (const l of lines) {
      const before = await tx
        .selectFrom('sims')
        .select(['plan_total_mb', 'expires_at'])
        .where('iccid', '=', l.iccid)
        .where('tenant_id', '=', tenantId)
        .forUpdate()
        .executeTakeFirst();
      if (!before) continue;
      const after = await tx
        .updateTable('sims')
        .set({
          plan_total_mb: sql`plan_total_mb + ${l.data_mb}`,
          expires_at: sql`greatest(coalesce(expires_at, now()), now()) + make_interval(days => ${l.validity_days})`,
        })
        .where('iccid', '=', l.iccid)
        .where('tenant_id', '=', tenantId)
        .returning(['plan_total_mb', 'expires_at', 'device_id'])
        .executeTakeFirstOrThrow();
      await tx
        .updateTable('order_lines')
        .set({
          fulfilled_at: sql`now()`,
          plan_before: before.plan_total_mb,
          plan_after: after.plan_total_mb,
          expires_before: before.expires_at,
          expires_after: after.expires_at,
        })
        .where('id', '=', l.id)
        .execute();
      out.push({
        iccid: l.iccid,
        deviceId: after.device_id,
        planBefore: Number(before.plan_total_mb),
        planAfter: Number(after.plan_total_mb),
        expiresAt: iso(after.expires_at),
      });
    }
    await tx
      .updateTable('orders')
      .set({ state: 'fulfilled', fulfilled_at: sql`now()` })
      .where('id', '=', orderId)
      .execute();
    return out;
  }

  /** After the commit: the consoles hear of the SIMs and the order, each SIM's device of its new plan. */
  private async afterFulfil(id: number, orderNo: string, tenantId: number, sims: FulfilledSim[]) {
    // a SIM bought twice in one order: its last line has its final plan
    const last = new Map(sims.map((s) => [s.iccid, s]));
    if (last.size) this.events.publish(tenantId, { type: 'sim', data: { iccids: [...last.keys()] } });
    await this.announce(id, orderNo, tenantId, 'fulfilled');
    const deviceIds = [...new Set([...last.values()].map((s) => s.deviceId).filter((d): d is number => d != null))];
    if (!deviceIds.length) return;
    const devices = await this.db.selectFrom('devices').select(['id', 'sn']).where('id', 'in', deviceIds).execute();
    const snOf = new Map(devices.map((d) => [d.id, d.sn]));
    for (const s of last.values()) {
      const sn = s.deviceId != null ? snOf.get(s.deviceId) : undefined;
      if (!sn) continue;
      // QoS 1 to the device; a failed send is logged: the SIM's row, already committed, stays the truth
      await this.link
        .send(sn, 'config', { sim: { iccid: s.iccid, planMb: s.planAfter, expiresAt: s.expiresAt, orderNo } })
        .catch((err: unknown) => this.log.warn({ err, sn }, 'order: sim config downlink failed'));
    }
  }

  /** Tells the tenant's consoles, and staff's, that an order changed. */
  private async announce(id: number, orderNo: string, tenantId: number, state: OrderState) {
    const event = { type: 'order' as const, data: { id, orderNo, tenantId, state } };
    // heard by the tenant's consoles whose data scope reaches the order (as its list answers them)
    const row = await this.db
      .selectFrom('orders')
      .select(['department_id', 'owner_id'])
      .where('id', '=', id)
      .executeTakeFirst();
    this.events.publish(tenantId, event, {
      filed: { departmentId: row?.department_id ?? null, ownerId: row?.owner_id ?? null },
    });
    const platform = await this.platformTenantId();
    if (platform != null && platform !== tenantId) this.events.publish(platform, event);
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

  // -------------------------------------------------------------------------------------------------------------
  // The dashboard's widget lives in modules/dashboard/orders.ts and reads these tables directly.
}

interface FulfilledSim {
  iccid: string;
  deviceId: number | null;
  planBefore: number;
  planAfter: number;
  expiresAt: string | null;
}

/** An order row with its tenant's and owner's names, line count and package names. */
function orderView(r: Record<string, any>): OrderView {
  return {
    id: r.id,
    orderNo: r.order_no,
    tenantId: r.tenant_id,
    tenantName: r.tenant_name ?? '',
    userName: r.user_name ?? '',
    state: r.state,
    totalFen: Number(r.total_fen),
    lineCount: r.line_count ?? 0,
    packages: r.packages ?? [],
    provider: r.provider,
    tradeNo: r.trade_no,
    createdAt: iso(r.created_at)!,
    expiresAt: iso(r.expires_at)!,
    paidAt: iso(r.paid_at),
    fulfilledAt: iso(r.fulfilled_at),
    closedAt: iso(r.closed_at ?? r.canceled_at),
    refundedAt: iso(r.refunded_at),
    refundReason: r.refund_reason,
    payFailedAt: r.paid_at ? null : iso(r.pay_failed_at),
  };
}
