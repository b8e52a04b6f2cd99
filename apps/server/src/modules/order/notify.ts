import { sendMessages } from '../inbox/index.ts';
import type { OrderContext } from './context.ts';
import type { VerifiedNotice } from './payment/provider.ts';
import { withoutSecrets } from './payment/provider.ts';
import { iso } from './present.ts';
import type { OrderRepository, OrderRow } from './repository/index.ts';

/** A SIM an order topped up: its plan before and after, its new expiry, its device. */
interface FulfilledSim {
  iccid: string;
  deviceId: number | null;
  planBefore: number;
  planAfter: number;
  expiresAt: string | null;
}

/** What a notification did, decided in its transaction; what follows the commit depends on it. */
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

/** One notification being handled: its provider, parameters and sender's address. */
interface Incoming {
  provider: string;
  params: Record<string, string>;
  ip: string;
}

/** How a notification is recorded in `payment_notifications`. */
interface Recorded {
  result: string;
  verified: boolean;
  orderId?: number | null;
  tenantId?: number | null;
}

/** The gateway's asynchronous notifications, and fulfilment: data and validity added to the SIMs. */
export class PaymentNotices {
  constructor(private ctx: OrderContext) {}

  /**
   * One asynchronous notification from the gateway: `success` when it is taken (also a repeat: it fulfils once),
   * `fail` when refused (bad signature, unknown order, another tenant's, wrong amount). Every one is recorded;
   * refusals also in the system log. A payment for a canceled or closed order is refunded, never fulfilled.
   */
  async notify(provider: string, params: Record<string, string>, ip: string): Promise<'success' | 'fail'> {
    const n: Incoming = { provider, params, ip };
    if (provider !== this.ctx.gateway.name) return this.refuse(n, 'provider-not-enabled', false);
    const notice = this.ctx.gateway.verify(params);
    if (!notice) return this.refuse(n, 'bad-signature', false);
    const outcome = await this.ctx.repo.transaction((tx) => this.settle(tx, n, notice));
    switch (outcome.kind) {
      case 'refused':
        return this.refuse(n, outcome.result, true, outcome.orderId, outcome.tenantId);
      case 'done':
        return 'success';
      case 'failed':
        await this.ctx.announce(outcome.id, outcome.orderNo, outcome.tenantId, 'pending');
        return 'success';
      case 'refund':
        await this.refundLate(n, outcome);
        return 'success';
      case 'fulfilled':
        await this.fulfilled(n, notice, outcome);
        return 'success';
    }
  }

  private async record(n: Incoming, r: Recorded, repo: OrderRepository = this.ctx.repo) {
    await repo.payment.insertNotification({
      provider: n.provider.slice(0, 20),
      order_no: (n.params.out_trade_no ?? '').slice(0, 64) || null,
      order_id: r.orderId ?? null,
      tenant_id: r.tenantId ?? null,
      params: JSON.stringify(withoutSecrets(n.params)),
      verified: r.verified,
      result: r.result,
    });
  }

  private async refuse(n: Incoming, result: string, verified: boolean, orderId?: number, tenantId?: number) {
    await this.record(n, { result, verified, orderId, tenantId });
    this.ctx.log.warn({ provider: n.provider, result, orderNo: n.params.out_trade_no }, 'payment notification refused');
    await this.ctx.repo.audit({
      tenantId: tenantId ?? null,
      userId: null,
      ip: n.ip,
      action: 'order.notify',
      resource: 'order',
      resourceId: orderId ?? (n.params.out_trade_no ?? '').slice(0, 64),
      result: 'fail',
      details: { provider: n.provider, reason: result },
    });
    return 'fail' as const;
  }

  /** Decides the notification in the transaction `tx`, its order locked: refuse, record, mark failed or paid. */
  private async settle(tx: OrderRepository, n: Incoming, notice: VerifiedNotice): Promise<Outcome> {
    const o = await tx.payment.lockByNo(notice.orderNo);
    if (!o) return { kind: 'refused', result: 'unknown-order' };
    if (notice.tenantId !== o.tenant_id) {
      return { kind: 'refused', result: 'wrong-tenant', orderId: o.id, tenantId: o.tenant_id };
    }
    const base = { orderId: o.id, tenantId: o.tenant_id, verified: true };
    if (notice.status === 'failed') {
      if (o.state === 'pending') await tx.payment.markPayFailed(o.id);
      await this.record(n, { ...base, result: 'payment-failed' }, tx);
      return { kind: 'failed', id: o.id, orderNo: o.order_no, tenantId: o.tenant_id };
    }
    if (notice.status !== 'paid') {
      await this.record(n, { ...base, result: 'ignored' }, tx);
      return { kind: 'done', result: 'ignored' };
    }
    if (notice.amountFen !== Number(o.total_fen)) {
      return { kind: 'refused', result: 'wrong-amount', orderId: o.id, tenantId: o.tenant_id };
    }
    if (o.state === 'paid' || o.state === 'fulfilled' || o.state === 'refunded') {
      await this.record(n, { ...base, result: 'duplicate' }, tx);
      return { kind: 'done', result: 'duplicate' };
    }
    return this.settlePaid(tx, n, notice, o);
  }

  /** Money arrived for a pending (or lapsed) order: fulfilled, or refunded when it is no longer for sale. */
  private async settlePaid(tx: OrderRepository, n: Incoming, notice: VerifiedNotice, o: OrderRow): Promise<Outcome> {
    const base = { orderId: o.id, tenantId: o.tenant_id, verified: true };
    const pay = { tradeNo: notice.tradeNo, provider: n.provider };
    const expired = o.state === 'pending' && new Date(o.expires_at).getTime() <= Date.now();
    if (o.state === 'canceled' || o.state === 'closed' || expired) {
      // money arrived for an order that is no longer for sale: refunded, never fulfilled
      await tx.payment.markPaidAndRefunded(o, pay);
      await this.record(n, { ...base, result: 'refunded-late-payment' }, tx);
      return {
        kind: 'refund',
        id: o.id,
        orderNo: o.order_no,
        tenantId: o.tenant_id,
        totalFen: Number(o.total_fen),
        tradeNo: notice.tradeNo,
      };
    }
    await tx.payment.markPaid(o.id, pay);
    const sims = await this.fulfil(tx, o.id, o.tenant_id);
    await this.record(n, { ...base, result: 'fulfilled' }, tx);
    return { kind: 'fulfilled', id: o.id, orderNo: o.order_no, tenantId: o.tenant_id, ownerId: o.owner_id, sims };
  }

  /** After the commit: a late payment goes back through the gateway (a failure is logged and audited). */
  private async refundLate(n: Incoming, outcome: Extract<Outcome, { kind: 'refund' }>) {
    let result: 'ok' | 'fail' = 'ok';
    try {
      await this.ctx.gateway.refund({
        orderNo: outcome.orderNo,
        tradeNo: outcome.tradeNo,
        totalFen: outcome.totalFen,
        reason: 'order closed before payment',
      });
    } catch (err) {
      result = 'fail';
      this.ctx.log.error({ err, orderNo: outcome.orderNo }, 'refund of a late payment failed');
    }
    await this.ctx.repo.audit({
      tenantId: outcome.tenantId,
      userId: null,
      ip: n.ip,
      action: 'order.refund',
      resource: 'order',
      resourceId: outcome.id,
      result,
      details: { reason: 'paid after close', provider: n.provider },
      changes: { state: { before: 'closed', after: 'refunded' } },
    });
    await this.ctx.announce(outcome.id, outcome.orderNo, outcome.tenantId, 'refunded');
  }

  /** After the commit: audited, the consoles and devices told, the buyer's message centre too. */
  private async fulfilled(n: Incoming, notice: VerifiedNotice, outcome: Extract<Outcome, { kind: 'fulfilled' }>) {
    await this.ctx.repo.audit({
      tenantId: outcome.tenantId,
      userId: null,
      ip: n.ip,
      action: 'order.fulfil',
      resource: 'order',
      resourceId: outcome.id,
      result: 'ok',
      details: { provider: n.provider, tradeNo: notice.tradeNo },
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
        await sendMessages(this.ctx.db, [
          {
            tenantId: outcome.tenantId,
            userId: outcome.ownerId,
            kind: 'order.fulfilled',
            title: 'inbox.orderFulfilledTitle',
            body: iccids ? `${outcome.orderNo} · ICCID ${iccids}` : outcome.orderNo,
            link: `/flowRate/flowRateLog?orderNo=${outcome.orderNo}`,
          },
        ])
      )(this.ctx.events);
    }
  }

  /**
   * Adds each line's data and validity to its SIM, records before → after on the line and marks the order
   * fulfilled, all in the caller's transaction (the order row is locked by it). A SIM the tenant no longer has
   * keeps its line unfulfilled.
   */
  private async fulfil(tx: OrderRepository, orderId: number, tenantId: number): Promise<FulfilledSim[]> {
    const lines = await tx.payment.linesToFulfil(orderId);
    const out: FulfilledSim[] = [];
    for (const l of lines) {
      const before = await tx.payment.lockSim(tenantId, l.iccid);
      if (!before) continue;
      const after = await tx.payment.topUpSim(tenantId, l.iccid, l.data_mb, l.validity_days);
      await tx.payment.markLineFulfilled(l.id, before, after);
      out.push({
        iccid: l.iccid,
        deviceId: after.device_id,
        planBefore: Number(before.plan_total_mb),
        planAfter: Number(after.plan_total_mb),
        expiresAt: iso(after.expires_at),
      });
    }
    await tx.payment.markFulfilled(orderId);
    return out;
  }

  /** After the commit: the consoles hear of the SIMs and the order, each SIM's device of its new plan. */
  private async afterFulfil(id: number, orderNo: string, tenantId: number, sims: FulfilledSim[]) {
    // a SIM bought twice in one order: its last line has its final plan
    const last = new Map(sims.map((s) => [s.iccid, s]));
    if (last.size) this.ctx.events.publish(tenantId, { type: 'sim', data: { iccids: [...last.keys()] } });
    await this.ctx.announce(id, orderNo, tenantId, 'fulfilled');
    const deviceIds = [...new Set([...last.values()].map((s) => s.deviceId).filter((d): d is number => d != null))];
    if (!deviceIds.length) return;
    const devices = await this.ctx.repo.payment.deviceSns(deviceIds);
    const snOf = new Map(devices.map((d) => [d.id, d.sn]));
    for (const s of last.values()) {
      const sn = s.deviceId != null ? snOf.get(s.deviceId) : undefined;
      if (!sn) continue;
      // QoS 1 to the device; a failed send is logged: the SIM's row, already committed, stays the truth
      await this.ctx.link
        .send(sn, 'config', { sim: { iccid: s.iccid, planMb: s.planAfter, expiresAt: s.expiresAt, orderNo } })
        .catch((err: unknown) => this.ctx.log.warn({ err, sn }, 'order: sim config downlink failed'));
    }
  }
}
