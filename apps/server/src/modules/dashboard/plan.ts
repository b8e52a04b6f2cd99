import { sql } from 'kysely';
import { SIM_EXPIRY_REMIND_DAYS } from '@cpc/contracts';
import { RANK_SIZE } from '@cpc/contracts/dashboard';
import { SIM_STATES } from '@cpc/contracts/device-constants';
import type { PlanWidget } from '@cpc/contracts/dashboard';
import { deviceInScope, type DataAccess } from '../../lib/data-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';

const mb = (v: string | number | null) => Math.round(Number(v ?? 0) * 100) / 100;

/**
 * The "plan" widget (issue 13): the SIMs of the caller's data scope (through their devices) by state, and the
 * plans expiring within SIM_EXPIRY_REMIND_DAYS, soonest first. Pinned to the caller's tenant by its TenantScope.
 */
export async function planWidget(user: AuthUser, a: DataAccess): Promise<PlanWidget> {
  const inScope = deviceInScope(a, 'sims.device_id');
  const soon = sql<boolean>`sims.expires_at > now() and sims.expires_at <= now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS})`;
  const [states, expiring, count] = await Promise.all([
    user.scope
      .selectFrom('sims')
      .where(inScope)
      .select(['sims.state', sql<string>`count(*)`.as('n')])
      .groupBy('sims.state')
      .execute(),
    user.scope
      .selectFrom('sims')
      .leftJoin('devices', (j) =>
        j.onRef('devices.id', '=', 'sims.device_id').on('devices.tenant_id', '=', user.tenantId),
      )
      .where(inScope)
      .where(soon)
      .select([
        'sims.iccid',
        'sims.device_id',
        'devices.sn',
        'devices.name',
        'sims.expires_at',
        sql<string>`greatest(sims.plan_total_mb - sims.used_mb, 0)::text`.as('left'),
      ])
      .orderBy('sims.expires_at')
      .orderBy('sims.iccid')
      .limit(RANK_SIZE)
      .execute(),
    user.scope
      .selectFrom('sims')
      .where(inScope)
      .where(soon)
      .select(sql<string>`count(*)`.as('n'))
      .executeTakeFirstOrThrow(),
  ]);
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
      count: Number(count.n),
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
