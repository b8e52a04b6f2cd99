import type { FastifyBaseLogger } from 'fastify';
import {
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
import type { orderListQuery, packageListQuery, simOptionsQuery } from '@cpc/contracts/order';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { dataAccessOf, ownership } from '../../lib/data-scope.ts';
import type { OrderContext, SimDownlink } from './context.ts';
import type { PaymentGateway } from './payment/index.ts';
import { PaymentNotices } from './notify.ts';
import { OrderPayments } from './payments.ts';
import { iso, lineView, newOrderNo, orderView, packageView } from './present.ts';
import { OrderPackageRepository, OrderRepository, type OrderReach } from './repository/index.ts';

export { newOrderNo } from './present.ts';
export type { SimDownlink } from './context.ts';

/** Who did it, for the system log. */
export interface Actor {
  tenantId: number | null;
  userId: number | null;
  ip: string;
}

/**
 * Packages, orders, payment notifications and fulfilment (issue 13). Amounts are integer fen computed here from
 * the catalogue; fulfilment adds data and validity to the SIMs in the transaction that marks the order fulfilled.
 * Paying, canceling, closing and refunds are payments.ts; the gateway's notifications and fulfilment notify.ts.
 */
export class OrderService {
  private platformTenant: Promise<number | null> | undefined;
  private repo: OrderRepository;
  private packages: OrderPackageRepository;
  private payments: OrderPayments;
  private notices: PaymentNotices;

  constructor(
    db: Db,
    private events: LiveEvents,
    link: SimDownlink,
    readonly gateway: PaymentGateway,
    log: FastifyBaseLogger,
  ) {
    this.repo = new OrderRepository(db);
    this.packages = new OrderPackageRepository(db);
    const ctx: OrderContext = {
      db,
      repo: this.repo,
      gateway,
      events,
      link,
      log,
      detail: (user, id, as) => this.detail(user, id, as),
      announce: (id, orderNo, tenantId, state) => this.announce(id, orderNo, tenantId, state),
    };
    this.payments = new OrderPayments(ctx);
    this.notices = new PaymentNotices(ctx);
  }

  // -------------------------------------------------------------------------------------------------------------
  // The catalogue

  async getPackage(id: number): Promise<PackageView> {
    const r = await this.packages.findById(id);
    if (!r) throw notFound('package');
    return packageView(r);
  }

  /** Staff: every package; customers: on-shelf ones, and with `iccid` only those that fit that SIM. */
  async listPackages(user: AuthUser, q: z.infer<typeof packageListQuery>): Promise<Paged<PackageView>> {
    const staff = user.tenantKind === 'platform' && hasPermission(user, PERMISSIONS.flowRateGoods);
    let fits: { carrier: string; planMb: number } | undefined;
    if (q.iccid) {
      const [sim] = await this.simsOf(user, [q.iccid]);
      if (!sim) throw notFound('SIM');
      fits = { carrier: sim.carrier, planMb: Number(sim.plan_total_mb) };
    }
    const { rows, total } = await this.packages.listPage({
      onShelfOnly: !staff,
      keyword: q.keyword,
      fits,
      pageNo: q.pageNo,
      pageSize: q.pageSize,
    });
    return { list: rows.map(packageView), total };
  }

  async createPackage(b: PackageBody): Promise<PackageView> {
    const row = await this.packages.insert({
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
    });
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
    const row = await this.packages.update(
      b.id,
      Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)),
    );
    if (!row) throw notFound('package');
    return { before, after: packageView(row) };
  }

  async deletePackage(id: number): Promise<PackageView> {
    const before = await this.getPackage(id);
    // sold lines keep their snapshot of the package (name, data, validity, price); their link is cleared
    await this.packages.delete(id);
    return before;
  }

  // -------------------------------------------------------------------------------------------------------------
  // The caller's SIMs

  /** The caller's SIMs among `iccids` (tenant and data scope: through the SIM's device). */
  private async simsOf(user: AuthUser, iccids: string[], repo: OrderRepository = this.repo) {
    if (!iccids.length) return [];
    return repo.simsOf(dataAccessOf(user), iccids);
  }

  async simOptions(user: AuthUser, q: z.infer<typeof simOptionsQuery>): Promise<SimOption[]> {
    const iccids = (q.iccids ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const rows = await this.repo.simOptions(dataAccessOf(user), iccids, q.keyword);
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
   * `repo`: the transaction to read in (creation's, which holds the per-SIM locks); else the caller's own.
   */
  async quote(
    user: AuthUser,
    lines: { iccid: string; packageId: number }[],
    repo: OrderRepository = this.repo,
  ): Promise<OrderQuote> {
    const iccids = [...new Set(lines.map((l) => l.iccid))];
    const sims = new Map((await this.simsOf(user, iccids, repo)).map((s) => [s.iccid, s]));
    const missing = iccids.find((i) => !sims.has(i));
    if (missing) throw new AppError(404, 'http.notFound', { what: 'SIM' }, { data: { iccid: missing } });
    const ids = [...new Set(lines.map((l) => l.packageId))];
    const packages = new Map((await repo.packagesByIds(ids)).map((p) => [p.id, p]));
    const used = await repo.liveLineCounts(user.tenantId, iccids, ids);
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
    const existing = await this.repo.idByRequest(user.tenantId, body.clientRequestId);
    if (existing) return { order: await this.detail(user, existing), created: false };
    const made = await this.insertOrder(user, body);
    if (made == null) {
      const other = await this.repo.idByRequest(user.tenantId, body.clientRequestId);
      if (!other) throw new AppError(409, 'http.409');
      return { order: await this.detail(user, other), created: false };
    }
    if (!made.created) return { order: await this.detail(user, made.id), created: false };
    const id = made.id;
    const order = await this.detail(user, id);
    await this.repo.audit({
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
   * The order and its lines in one transaction, under the per-SIM locks (see lockPerSim); a twin submit's order
   * when one committed first; null when the insert met the client request id's constraint.
   */
  private insertOrder(
    user: AuthUser,
    body: { clientRequestId: string; lines: { iccid: string; packageId: number }[] },
  ): Promise<{ id: number; created: boolean } | null> {
    const access = dataAccessOf(user);
    return this.repo.transaction(async (tx) => {
      await this.lockPerSim(tx, user.tenantId, body.lines);
      // a twin submit that held these locks first has committed its order by now
      const twin = await tx.idByRequest(user.tenantId, body.clientRequestId);
      if (twin) return { id: twin, created: false };
      const q = await this.quote(user, body.lines, tx);
      const id = await tx.insertOrder(user.tenantId, {
        orderNo: newOrderNo(),
        ownerId: ownership(access).owner_id,
        departmentId: ownership(access).department_id,
        totalFen: q.totalFen,
        clientRequestId: body.clientRequestId,
      });
      if (id == null) return null;
      await tx.insertLines(user.tenantId, id, q.lines);
      return { id, created: true };
    });
  }

  /**
   * Takes, for the rest of `tx`, one lock per distinct (SIM, package) of the lines: a transaction-scoped advisory
   * lock, not a lock on the SIM rows, because the SIM rows are written all the time by the devices' usage
   * roll-up (which should not wait for a purchase) and the limit is per SIM *and* package. Taken in one statement in
   * the order of the keys, so two orders for several SIMs cannot deadlock; a hash collision only makes two unrelated
   * lines queue. Released at commit or rollback.
   */
  private async lockPerSim(tx: OrderRepository, tenantId: number, lines: { iccid: string; packageId: number }[]) {
    const keys = [...new Set(lines.map((l) => `${tenantId}/${l.iccid}/${l.packageId}`))];
    await tx.lockPerSim(keys);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading

  /** Whether the caller sees every tenant's orders (staff with flowRate:refund). */
  private seesAll(user: AuthUser) {
    return user.tenantKind === 'platform' && hasPermission(user, PERMISSIONS.flowRateRefund);
  }

  /**
   * The orders the caller sees. `reader`: every tenant's for staff, else the caller's tenant within its data
   * scope. `buyer` (paying, canceling): always the latter: staff read every order, but act on a customer's only
   * through their own routes (refund), never as the customer.
   */
  private reach(user: AuthUser, as: 'reader' | 'buyer' = 'reader'): OrderReach {
    if (as === 'reader' && this.seesAll(user)) return { all: true };
    return { all: false, access: dataAccessOf(user) };
  }

  async list(user: AuthUser, q: z.infer<typeof orderListQuery>): Promise<Paged<OrderView>> {
    const { rows, total } = await this.repo.listPage(this.reach(user), q);
    return { list: rows.map(orderView), total };
  }

  /** One order the caller sees (`as`: see reach); another's answers 404. */
  async detail(user: AuthUser, id: number, as: 'reader' | 'buyer' = 'reader'): Promise<OrderDetail> {
    const row = await this.repo.findReached(this.reach(user, as), id);
    if (!row) throw notFound('order');
    const [lines, refunder] = await Promise.all([
      this.repo.linesOf(id, row.tenant_id),
      row.refunded_by ? this.repo.usernameOf(row.refunded_by) : undefined,
    ]);
    return { ...orderView(row), refundedBy: refunder ?? null, lines: lines.map(lineView) };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Paying, canceling, closing, refunds (payments.ts); the gateway's notifications (notify.ts)

  /** Starts payment of a pending order: the cashier's URL and QR content. An order past its time closes first. */
  pay(user: AuthUser, id: number, ctx: { origin: string; lang: 'zh' | 'en'; ip: string }) {
    return this.payments.pay(user, id, ctx);
  }

  cancel(user: AuthUser, id: number, ip: string): Promise<OrderDetail> {
    return this.payments.cancel(user, id, ip);
  }

  /** Closes pending orders past their time (`ids`: only those); how many closed. */
  closeExpired(ids?: number[]): Promise<number> {
    return this.payments.closeExpired(ids);
  }

  /** Refunds a paid or fulfilled order's money through the provider that took it (staff). */
  refund(staff: AuthUser, id: number, reason: string, ip: string): Promise<OrderDetail> {
    return this.payments.refund(staff, id, reason, ip);
  }

  /** One asynchronous notification from the gateway: `success` when it is taken, `fail` when refused. */
  notify(provider: string, params: Record<string, string>, ip: string): Promise<'success' | 'fail'> {
    return this.notices.notify(provider, params, ip);
  }

  /** Tells the tenant's consoles, and staff's, that an order changed. */
  private async announce(id: number, orderNo: string, tenantId: number, state: OrderState) {
    const event = { type: 'order' as const, data: { id, orderNo, tenantId, state } };
    // heard by the tenant's consoles whose data scope reaches the order (as its list answers them)
    const row = await this.repo.filingOf(id);
    this.events.publish(tenantId, event, {
      filed: { departmentId: row?.department_id ?? null, ownerId: row?.owner_id ?? null },
    });
    const platform = await this.platformTenantId();
    if (platform != null && platform !== tenantId) this.events.publish(platform, event);
  }

  private platformTenantId(): Promise<number | null> {
    this.platformTenant ??= this.repo.platformTenantId();
    return this.platformTenant;
  }

  // -------------------------------------------------------------------------------------------------------------
  // The dashboard's widget lives in modules/dashboard/orders.ts and reads these tables directly.
}
