import { PERMISSIONS, type OrderWidget } from '@cpc/contracts';
import type { DataAccess } from '../../lib/data-scope.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import type { DashboardWidgetRepository } from './repository/widgets.ts';

/**
 * The dashboard's order widget (SPEC §2 "order"): the latest orders and this month's spend (orders paid this
 * month in the caller's time zone and not refunded), in integer fen. Tenant and data scope as the top-up
 * records; staff who see every tenant's orders (flowRate:refund) see the platform's figures. Null without a
 * permission to read orders.
 */
export async function orderWidget(
  repo: DashboardWidgetRepository,
  user: AuthUser,
  a: DataAccess,
  tz: string,
): Promise<OrderWidget | null> {
  const reads = [PERMISSIONS.flowRateView, PERMISSIONS.flowRateBuy, PERMISSIONS.flowRateRefund];
  if (!reads.some((p) => hasPermission(user, p))) return null;
  const all = user.tenantKind === 'platform' && hasPermission(user, PERMISSIONS.flowRateRefund);
  const { recent, month } = await repo.orders(all ? null : user.tenantId, a, tz);
  return {
    recent: recent.map((r) => ({
      id: r.id,
      orderNo: r.order_no,
      state: r.state,
      totalFen: Number(r.total_fen),
      createdAt: new Date(r.created_at).toISOString(),
      lineCount: r.line_count,
    })),
    monthSpendFen: Number(month.fen),
    monthOrders: month.n,
  };
}
