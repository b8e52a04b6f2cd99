import { randomInt } from 'node:crypto';
import type { OrderDetail, OrderView, PackageView } from '@cpc/contracts';
import type { OrderLineRow, PackageRow } from './repository/index.ts';

export const iso = (d: Date | string | null | undefined) => (d == null ? null : new Date(d).toISOString());
const num = (v: string | number | null | undefined) => (v == null ? null : Number(v));

export function packageView(r: PackageRow): PackageView {
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

/** An order row with its tenant's and owner's names, line count and package names. */
export function orderView(r: Record<string, any>): OrderView {
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

/** An order line as the detail shows it. */
export function lineView(l: OrderLineRow): OrderDetail['lines'][number] {
  return {
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
  };
}
