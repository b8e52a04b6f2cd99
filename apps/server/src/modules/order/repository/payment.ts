import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { OrderLines, Orders, PaymentNotifications } from '../../../db/generated.ts';
import { defineQueries } from '../../../db/query-spec.ts';

type OrderRow = Selectable<Orders>;
type OrderLineRow = Selectable<OrderLines>;

/**
 * The statements of the gateway's notifications and of fulfilment: `payment_notifications`, an order's payment
 * marks, its lines fulfilled, the SIMs topped up (`sims`) and the devices told of it (`devices`).
 */
export class OrderPaymentRepository {
  constructor(private db: Db) {}

  /** The order numbered `orderNo`, its row locked for the rest of the transaction. */
  lockByNo(orderNo: string): Promise<OrderRow | undefined> {
    return this.db.selectFrom('orders').selectAll().where('order_no', '=', orderNo).forUpdate().executeTakeFirst();
  }

  /** A payment of the order failed (the buyer may try again). */
  async markPayFailed(id: number): Promise<void> {
    await this.db
      .updateTable('orders')
      .set({ pay_failed_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** Money arrived for an order no longer for sale: paid and refunded at once (a pending one closes too). */
  async markPaidAndRefunded(
    o: Pick<OrderRow, 'id' | 'state' | 'closed_at'>,
    pay: { tradeNo: string; provider: string },
  ): Promise<void> {
    await this.db
      .updateTable('orders')
      .set({
        state: 'refunded',
        paid_at: sql`now()`,
        trade_no: pay.tradeNo,
        provider: pay.provider,
        closed_at: o.state === 'pending' ? sql`now()` : o.closed_at,
        refunded_at: sql`now()`,
        refund_reason: `paid after the order was ${o.state === 'canceled' ? 'canceled' : 'closed'} (automatic)`,
      })
      .where('id', '=', o.id)
      .execute();
  }

  async markPaid(id: number, pay: { tradeNo: string; provider: string }): Promise<void> {
    await this.db
      .updateTable('orders')
      .set({ state: 'paid', paid_at: sql`now()`, trade_no: pay.tradeNo, provider: pay.provider })
      .where('id', '=', id)
      .execute();
  }

  /** Records a payment notification, taken or refused. */
  async insertNotification(values: Insertable<PaymentNotifications>): Promise<void> {
    await this.db.insertInto('payment_notifications').values(values).execute();
  }

  /** The order's lines in their order (fulfilment, in its transaction). */
  linesToFulfil(orderId: number): Promise<OrderLineRow[]> {
    return this.db.selectFrom('order_lines').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  }

  /** The tenant's SIM's plan and expiry, its row locked for the rest of the transaction. */
  lockSim(tenantId: number, iccid: string) {
    return this.db
      .selectFrom('sims')
      .select(['plan_total_mb', 'expires_at'])
      .where('iccid', '=', iccid)
      .where('tenant_id', '=', tenantId)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Adds data and validity (from now, or from a later expiry) to the tenant's SIM: its plan after. */
  topUpSim(tenantId: number, iccid: string, dataMb: number, validityDays: number) {
    return this.db
      .updateTable('sims')
      .set({
        plan_total_mb: sql`plan_total_mb + ${dataMb}`,
        expires_at: sql`greatest(coalesce(expires_at, now()), now()) + make_interval(days => ${validityDays})`,
      })
      .where('iccid', '=', iccid)
      .where('tenant_id', '=', tenantId)
      .returning(['plan_total_mb', 'expires_at', 'device_id'])
      .executeTakeFirstOrThrow();
  }

  /** A line fulfilled, with its SIM's plan and expiry before and after. */
  async markLineFulfilled(
    lineId: number,
    before: { plan_total_mb: string | number; expires_at: Date | null },
    after: { plan_total_mb: string | number; expires_at: Date | null },
  ): Promise<void> {
    await this.db
      .updateTable('order_lines')
      .set({
        fulfilled_at: sql`now()`,
        plan_before: before.plan_total_mb,
        plan_after: after.plan_total_mb,
        expires_before: before.expires_at,
        expires_after: after.expires_at,
      })
      .where('id', '=', lineId)
      .execute();
  }

  async markFulfilled(orderId: number): Promise<void> {
    await this.db
      .updateTable('orders')
      .set({ state: 'fulfilled', fulfilled_at: sql`now()` })
      .where('id', '=', orderId)
      .execute();
  }

  /** The serial numbers of these devices. */
  deviceSns(ids: number[]) {
    return this.db.selectFrom('devices').select(['id', 'sn']).where('id', 'in', ids).execute();
  }
}

const iccid = '89860123456789012345';
const paid = { tradeNo: '2026030122001400001234567890', provider: 'sandbox' };

export const orderPaymentQueries = defineQueries(OrderPaymentRepository, {
  lockByNo: [['2026030108000012345678']],
  markPayFailed: [[12]],
  markPaidAndRefunded: [
    [{ id: 12, state: 'pending', closed_at: null }, paid],
    [{ id: 12, state: 'canceled', closed_at: new Date('2026-03-01T08:20:00Z') }, paid],
  ],
  markPaid: [[12, paid]],
  insertNotification: [
    [
      {
        provider: 'sandbox',
        order_no: '2026030108000012345678',
        order_id: 12,
        tenant_id: 7,
        params: JSON.stringify({ out_trade_no: '2026030108000012345678', trade_status: 'TRADE_SUCCESS' }),
        verified: true,
        result: 'fulfilled',
      },
    ],
  ],
  linesToFulfil: [[12]],
  lockSim: [[7, iccid]],
  topUpSim: [{ args: [7, iccid, 10240, 30], results: [[{ plan_total_mb: '12288', device_id: 101 }]] }],
  markLineFulfilled: [
    [
      31,
      { plan_total_mb: '2048', expires_at: new Date('2026-03-10T00:00:00Z') },
      { plan_total_mb: '12288', expires_at: new Date('2026-04-09T00:00:00Z') },
    ],
  ],
  markFulfilled: [[12]],
  deviceSns: [[[101, 102]]],
});
