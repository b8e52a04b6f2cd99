import { ORDER_CLOSE_MINUTES, type OrderDetail } from '@cpc/contracts';
import { AppError, notFound } from '../../plugins/errors.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import type { OrderContext } from './context.ts';

/** Paying, canceling and closing an order, and refunds by staff. */
export class OrderPayments {
  constructor(private ctx: OrderContext) {}

  /** Starts payment of a pending order: the cashier's URL and QR content. An order past its time closes first. */
  async pay(user: AuthUser, id: number, ctx: { origin: string; lang: 'zh' | 'en'; ip: string }) {
    const { gateway, repo, log } = this.ctx;
    const provider = gateway.name;
    if (provider === 'off') throw new AppError(503, 'order.paymentOff');
    const order = await this.ctx.detail(user, id, 'buyer');
    if (order.state === 'pending' && new Date(order.expiresAt).getTime() <= Date.now()) {
      await this.closeExpired([id]);
      throw new AppError(409, 'order.closed', { n: ORDER_CLOSE_MINUTES });
    }
    if (order.state !== 'pending') throw new AppError(409, 'order.notPending');
    const names = [...new Set(order.lines.map((l) => l.packageName))].join(', ');
    const subject = `${names} × ${order.lines.length}`.slice(0, 120);
    let started: { cashierUrl: string; qrContent: string };
    try {
      started = await gateway.start(
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
      log.error({ err, orderNo: order.orderNo }, 'payment: starting a payment failed');
      throw new AppError(502, 'order.providerFailed');
    }
    await repo.setProvider(user.tenantId, id, provider);
    await repo.audit({
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
    const before = await this.ctx.detail(user, id, 'buyer');
    if (!(await this.ctx.repo.cancelPending(user.tenantId, id))) throw new AppError(409, 'order.notPending');
    await this.ctx.repo.audit({
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'order.cancel',
      resource: 'order',
      resourceId: id,
      result: 'ok',
      changes: { state: { before: before.state, after: 'canceled' } },
    });
    await this.ctx.announce(id, before.orderNo, before.tenantId, 'canceled');
    return this.ctx.detail(user, id);
  }

  /**
   * Closes pending orders past their time: one idempotent UPDATE, safe on N nodes at once (a row closes once).
   * `ids`: only those (the check at pay time); else every one due.
   */
  async closeExpired(ids?: number[]): Promise<number> {
    const rows = await this.ctx.repo.closeExpired(ids);
    for (const r of rows) {
      await this.ctx.repo.audit({
        tenantId: r.tenant_id,
        userId: null,
        ip: '',
        action: 'order.close',
        resource: 'order',
        resourceId: r.id,
        result: 'ok',
        changes: { state: { before: 'pending', after: 'closed' } },
      });
      await this.ctx.announce(r.id, r.order_no, r.tenant_id, 'closed');
    }
    return rows.length;
  }

  /**
   * Refunds a paid or fulfilled order's money through the provider that took it (stored on the order), with a
   * reason. The data already added to the SIMs stays (it may be used already): a refund gives the money back, it
   * does not take data away. When that provider is not the one this server is set up with now (PAYMENT_PROVIDER
   * changed since), nothing changes: 409 naming it — the money can only go back the way it came.
   */
  async refund(staff: AuthUser, id: number, reason: string, ip: string): Promise<OrderDetail> {
    const { gateway, repo } = this.ctx;
    const before = await this.ctx.detail(staff, id);
    await repo.transaction(async (tx) => {
      const o = await tx.lockById(id);
      if (!o) throw notFound('order');
      if (o.state !== 'paid' && o.state !== 'fulfilled') throw new AppError(409, 'order.notRefundable');
      const provider = o.provider ?? gateway.name;
      if (provider !== gateway.name)
        throw new AppError(409, 'order.refundProviderGone', { provider }, { data: { provider } });
      await gateway.refund({ orderNo: o.order_no, tradeNo: o.trade_no, totalFen: Number(o.total_fen), reason });
      await tx.markRefunded(id, reason, staff.id);
    });
    await repo.audit({
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
    await this.ctx.announce(id, before.orderNo, before.tenantId, 'refunded');
    return this.ctx.detail(staff, id);
  }
}
