import { SIM_STATES } from '@cpc/contracts/device-constants';
import type { PlanWidget } from '@cpc/contracts/dashboard';
import type { DataAccess } from '../../lib/data-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import type { DashboardWidgetRepository } from './repository/widgets.ts';

const mb = (v: string | number | null) => Math.round(Number(v ?? 0) * 100) / 100;

/**
 * The "plan" widget (issue 13): the SIMs of the caller's data scope (through their devices) by state, and the
 * plans expiring within SIM_EXPIRY_REMIND_DAYS, soonest first. Pinned to the caller's tenant.
 */
export async function planWidget(repo: DashboardWidgetRepository, user: AuthUser, a: DataAccess): Promise<PlanWidget> {
  const { states, expiring, expiringCount } = await repo.plans(user.tenantId, a);
  const byState = Object.fromEntries(SIM_STATES.map((s) => [s, 0])) as PlanWidget['byState'];
  let total = 0;
  for (const r of states) {
    byState[r.state] = Number(r.n);
    total += Number(r.n);
  }
  return {
    total,
    byState,
    expiring: {
      count: expiringCount,
      sims: expiring.map((r) => ({
        iccid: r.iccid,
        deviceId: r.device_id,
        deviceSn: r.sn,
        deviceName: r.name,
        expiresAt: new Date(r.expires_at!).toISOString(),
        leftMb: mb(r.left),
      })),
    },
  };
}
