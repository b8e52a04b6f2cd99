import { sql } from 'kysely';
import { PERMISSIONS, type OrderWidget } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';

const RECENT = 5;

/**
 * The dashboard's order widget (SPEC §2 "order"): the latest orders and this month's spend (orders paid this
 * month in the caller's time zone and not refunded), in integer fen. Tenant and data scope as the top-up
 * records; staff who see every tenant's orders (flowRate:refund) see the platform's figures. Null without a
 * permission to read orders.
 */
export async function orderWidget(db: Db, user: AuthUser, a: DataAccess, tz: string): Promise<OrderWidget | null> {
  const reads = [PERMISSIONS.flowRateView, PERMISSIONS.flowRateBuy, PERMISSIONS.flowRateRefund];
  if (!reads.some((p) => hasPermission(user, p))) return null;
  const all = user.tenantKind === 'platform' && hasPermission(user, PERMISSIONS.flowRateRefund);
  const visible = () =>
    all ? db.selectFrom('orders') : user.scope.selectFrom('orders').where(inDataScope(a, 'orders'));
  const [recent, month] = await Promise.all([
    visible()
      .select([
        'id',
        'order_no',
        'state',
        'total_fen',
        'created_at',
        sql<number>`(select count(*)::int from order_lines ol where ol.order_id = orders.id)`.as('line_count'),
      ])
      .orderBy('id', 'desc')
      .limit(RECENT)
      .execute(),
    visible()
      .select([sql<string>`coalesce(sum(total_fen), 0)`.as('fen'), sql<number>`count(*)::int`.as('n')])
      .where('state', 'in', ['paid', 'fulfilled'])
      .where(sql<boolean>`paid_at >= (date_trunc('month', now() at time zone ${tz}) at time zone ${tz})`)
      .executeTakeFirstOrThrow(),
  ]);
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
