import { sql } from 'kysely';
import { SIM_EXPIRY_REMIND_DAYS } from '@cpc/contracts';
import { RANK_SIZE } from '@cpc/contracts/dashboard';
import { defineQueries } from '../../../db/query-spec.ts';
import { deviceInScope, inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { Repository } from '../../../db/repository.ts';

/** The latest orders the order widget shows. */
const RECENT = 5;

/** Since the first of this month in `tz`, as SQL. */
const monthStart = (tz: string) => sql<Date>`date_trunc('month', now(), ${tz})`;

/**
 * The statements of the dashboard's business widgets: the SIM plans, the orders, the monthly print-job target
 * (the dashboard's own `dashboard_targets`) and the projects (top-level groups). Pinned to the tenant through
 * its TenantScope and to the data scope with `inDataScope` / `deviceInScope`.
 */
export class DashboardWidgetRepository extends Repository {
  // ---- plan: the SIMs of the scope (through their devices)

  /**
   * The SIMs of the scope by state; those whose plan expires within SIM_EXPIRY_REMIND_DAYS (the first RANK_SIZE,
   * soonest first, with their device); and how many of those there are.
   */
  async plans(tenantId: number, a: DataAccess) {
    const scope = this.scope(tenantId);
    const inScope = deviceInScope(a, 'sims.device_id');
    const soon = sql<boolean>`sims.expires_at > now() and sims.expires_at <= now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS})`;
    const [states, expiring, count] = await Promise.all([
      scope
        .selectFrom('sims')
        .where(inScope)
        .select(['sims.state', sql<string>`count(*)`.as('n')])
        .groupBy('sims.state')
        .execute(),
      scope
        .selectFrom('sims')
        .leftJoin('devices', (j) => j.onRef('devices.id', '=', 'sims.device_id').on('devices.tenant_id', '=', tenantId))
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
      scope
        .selectFrom('sims')
        .where(inScope)
        .where(soon)
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { states, expiring, expiringCount: Number(count.n) };
  }

  // ---- orders

  /**
   * The latest orders and this month's spend (orders paid this month in `tz` and not refunded): of every tenant
   * when `tenantId` is null (staff who see the platform's orders), else of the tenant and the data scope.
   */
  async orders(tenantId: number | null, a: DataAccess, tz: string) {
    const visible = () =>
      tenantId === null
        ? this.db.selectFrom('orders')
        : this.scope(tenantId).selectFrom('orders').where(inDataScope(a, 'orders'));
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
    return { recent, month };
  }

  // ---- target

  /** Print jobs created this month (in `tz`) on the devices of the scope, and how many of them printed. */
  jobsThisMonth(tenantId: number, a: DataAccess, tz: string) {
    return this.scope(tenantId)
      .selectFrom('print_jobs')
      .where('print_jobs.created_at', '>=', monthStart(tz))
      .where(deviceInScope(a, 'print_jobs.device_id'))
      .select([
        sql<number>`count(*)::int`.as('n'),
        sql<number>`(count(*) filter (where print_jobs.state = 'printed'))::int`.as('printed'),
      ])
      .executeTakeFirstOrThrow();
  }

  /** The account's monthly target, if set. */
  target(tenantId: number) {
    return this.scope(tenantId).selectFrom('dashboard_targets').select('monthly_jobs').executeTakeFirst();
  }

  /** This month in `tz`, as YYYY-MM. */
  async month(tz: string): Promise<string> {
    const month = await sql<{ m: string }>`select to_char(now() at time zone ${tz}, 'YYYY-MM') as m`.execute(this.db);
    return month.rows[0].m;
  }

  /** The account's target, locked for a change. */
  lockTarget(tenantId: number) {
    return this.scope(tenantId).selectFrom('dashboard_targets').select('monthly_jobs').forUpdate().executeTakeFirst();
  }

  async clearTarget(tenantId: number): Promise<void> {
    await this.scope(tenantId).deleteFrom('dashboard_targets').execute();
  }

  /** Sets the account's target (one row per tenant). */
  async setTarget(tenantId: number, monthlyJobs: number, userId: number): Promise<void> {
    await this.scope(tenantId)
      .insertInto('dashboard_targets', { monthly_jobs: monthlyJobs, updated_by: userId })
      .onConflict((oc) =>
        oc.column('tenant_id').doUpdateSet({ monthly_jobs: monthlyJobs, updated_by: userId, updated_at: sql`now()` }),
      )
      .execute();
  }

  // ---- projects

  /**
   * Every group of the tenant; the grouped devices of the scope per group and how many are online; and their
   * print jobs this month (in `tz`) per group.
   */
  async projects(tenantId: number, a: DataAccess, tz: string) {
    const scope = this.scope(tenantId);
    const [groups, devices, jobs] = await Promise.all([
      scope
        .selectFrom('device_groups')
        .select(['device_groups.id', 'device_groups.parent_id', 'device_groups.name'])
        .execute(),
      scope
        .selectFrom('devices')
        .where(inDataScope(a))
        .where('devices.group_id', 'is not', null)
        .select([
          'devices.group_id',
          sql<number>`count(*)::int`.as('n'),
          sql<number>`(count(*) filter (where devices.status = 'online'))::int`.as('online'),
        ])
        .groupBy('devices.group_id')
        .execute(),
      scope
        .selectFrom('print_jobs')
        .innerJoin('devices as d', (j) => j.onRef('d.id', '=', 'print_jobs.device_id').on('d.tenant_id', '=', tenantId))
        .where('print_jobs.created_at', '>=', monthStart(tz))
        .where('d.group_id', 'is not', null)
        .where(inDataScope(a, 'd'))
        .select(['d.group_id', sql<number>`count(*)::int`.as('n')])
        .groupBy('d.group_id')
        .execute(),
    ]);
    return { groups, devices, jobs };
  }
}

const access = (scope: DataAccess['scope']): DataAccess => ({
  scope,
  tenantId: 3,
  userId: 12,
  departmentId: 5,
  departmentPath: '1/5/',
});

const TZ = 'Asia/Shanghai';

export const dashboardWidgetQueries = defineQueries(DashboardWidgetRepository, {
  plans: [{ args: [3, access('department')], results: [[], [], [{ n: '0' }]] }],
  orders: [
    { args: [3, access('own'), TZ], results: [[], [{ fen: '0', n: 0 }]] },
    { args: [null, access('all'), TZ], results: [[], [{ fen: '0', n: 0 }]] },
  ],
  jobsThisMonth: [{ args: [3, access('own'), TZ], results: [[{ n: 0, printed: 0 }]] }],
  target: [[3]],
  month: [{ args: [TZ], results: [[{ m: '2026-01' }]] }],
  lockTarget: [[3]],
  clearTarget: [[3]],
  setTarget: [[3, 500, 12]],
  projects: [[3, access('all'), TZ]],
});
