import { sql } from 'kysely';
import { INSTALL_DAYS, RANK_SIZE, type TrendUnit } from '@cpc/contracts/dashboard';
import { defineQueries } from '../../../db/query-spec.ts';
import { deviceInScope, inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { Repository } from '../../../db/repository.ts';

/** One bucket of the trend: its local start (text) and instant, the online peak and last count, the tasks. */
export interface TrendRow {
  local_b: string;
  b_start: Date;
  peak: number | null;
  last_n: number | null;
  tasks: number;
}

/** The remind lists: paper problems, long offline, SIM data low. */
export type RemindList = 'paper' | 'offline' | 'simLow';

/** A device of a remind list, with its SIM's data left. */
export interface RemindRow {
  id: number;
  sn: string;
  name: string;
  status: 'online' | 'offline';
  paper: 'ok' | 'out' | 'cover-open' | 'overheat';
  last_seen_at: Date | null;
  left: number | null;
}

/**
 * The dashboard's statements on the devices of the caller's data scope and what they did (tasks, status history,
 * telemetry): each pinned to the tenant, through its TenantScope or with the tenant id as the first condition of
 * the raw SQL, and to the data scope with `inDataScope` / `deviceInScope`.
 */
export class DashboardRepository extends Repository {
  private devices(tenantId: number, a: DataAccess) {
    return this.scope(tenantId).selectFrom('devices').where(inDataScope(a));
  }

  /** The devices of the scope and how many are online. */
  deviceCounts(tenantId: number, a: DataAccess) {
    return this.devices(tenantId, a)
      .select([
        sql<number>`count(*)`.as('n'),
        sql<number>`count(*) filter (where devices.status = 'online')`.as('online'),
      ])
      .executeTakeFirstOrThrow();
  }

  /** Tasks created today (in `tz`) on the devices of the scope. */
  tasksToday(tenantId: number, a: DataAccess, tz: string) {
    return this.scope(tenantId)
      .selectFrom('device_tasks')
      .select(sql<number>`count(*)`.as('n'))
      .where(sql<boolean>`device_tasks.created_at >= date_trunc('day', now(), ${tz})`)
      .where(deviceInScope(a, 'device_tasks.device_id'))
      .executeTakeFirstOrThrow();
  }

  /** The devices of the scope per province (named ones), and how many are online; most first. */
  provinces(tenantId: number, a: DataAccess) {
    return this.devices(tenantId, a)
      .select([
        'devices.province',
        sql<number>`count(*)`.as('total'),
        sql<number>`count(*) filter (where devices.status = 'online')`.as('online'),
      ])
      .where('devices.province', '<>', '')
      .groupBy('devices.province')
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('devices.province')
      .execute();
  }

  /**
   * Per bucket of the last `n` hours or days in `tz`: the peak and last value of a running count of online
   * devices, replayed from the status history (each device's state at the window's start, then its changes),
   * and the tasks created in it.
   */
  async trend(tenantId: number, a: DataAccess, tz: string, unit: TrendUnit, n: number): Promise<TrendRow[]> {
    const t = tenantId;
    const step = unit === 'hour' ? '1 hour' : '1 day';
    const u = sql.lit(unit);
    const { rows } = await sql<TrendRow>`
      with buckets as (
        select g as local_b, g at time zone ${tz} as b_start
        from generate_series(date_trunc(${u}, now() at time zone ${tz}) - (${sql.lit(n - 1)} * ${sql.lit(step)}::interval),
                             date_trunc(${u}, now() at time zone ${tz}), ${sql.lit(step)}::interval) g
      ),
      win as (select min(b_start) as w_start from buckets),
      ev as (
        select d.id as device_id, p.status, win.w_start as at, 0::bigint as seq
        from devices d cross join win
        cross join lateral (
          select l.status from device_status_log l
          where l.device_id = d.id and l.tenant_id = ${t} and l.at < win.w_start
          order by l.at desc, l.id desc limit 1
        ) p
        where d.tenant_id = ${t} and ${inDataScope(a, 'd')}
        union all
        select l.device_id, l.status, l.at, l.id from device_status_log l, win
        where l.tenant_id = ${t} and l.at >= win.w_start and ${deviceInScope(a, 'l.device_id')}
      ),
      chg as (
        select at, seq, status, lag(status) over (partition by device_id order by at, seq) as prev from ev
      ),
      running as (
        select at, seq, sum(case when status = 'online' and coalesce(prev, 'offline') = 'offline' then 1
                                 when status = 'offline' and prev = 'online' then -1 else 0 end)
                          over (order by at, seq rows between unbounded preceding and current row) as n
        from chg
      ),
      per_bucket as (
        select date_trunc(${u}, at at time zone ${tz}) as local_b, max(n) as peak, (array_agg(n order by at desc, seq desc))[1] as last_n
        from running group by 1
      ),
      tasks as (
        select date_trunc(${u}, created_at at time zone ${tz}) as local_b, count(*) as n
        from device_tasks, win where tenant_id = ${t} and created_at >= win.w_start
          and ${deviceInScope(a, 'device_tasks.device_id')} group by 1
      )
      select b.local_b::text, b.b_start, p.peak, p.last_n, coalesce(k.n, 0) as tasks
      from buckets b left join per_bucket p using (local_b) left join tasks k using (local_b)
      order by b.local_b`.execute(this.db);
    return rows;
  }

  /** How many devices of the scope are online now. */
  onlineNow(tenantId: number, a: DataAccess) {
    return this.devices(tenantId, a)
      .select(sql<number>`count(*) filter (where devices.status = 'online')`.as('n'))
      .executeTakeFirstOrThrow();
  }

  /** The devices of the scope with the most tasks this month (in `tz`), ties by id. */
  rankByTasks(tenantId: number, a: DataAccess, tz: string) {
    return this.scope(tenantId)
      .selectFrom('device_tasks')
      .innerJoin('devices as d', (j) => j.onRef('d.id', '=', 'device_tasks.device_id').on('d.tenant_id', '=', tenantId))
      .select(['d.id', 'd.sn', 'd.name', sql<number>`count(*)`.as('n')])
      .where(sql<boolean>`device_tasks.created_at >= date_trunc('month', now(), ${tz})`)
      .where(inDataScope(a, 'd'))
      .groupBy(['d.id', 'd.sn', 'd.name'])
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('d.id')
      .limit(RANK_SIZE)
      .execute();
  }

  /** Per device of the scope: the used counter's last value this month minus its first (or the value since a reset). */
  async dataThisMonth(tenantId: number, a: DataAccess, tz: string) {
    const t = tenantId;
    const { rows } = await sql<{ id: number; sn: string; name: string; used: number }>`
      select d.id, d.sn, d.name,
        case when l.used_mb >= f.used_mb then l.used_mb - f.used_mb else l.used_mb end::float8 as used
      from devices d
      cross join lateral (
        select used_mb from device_telemetry x
        where x.device_id = d.id and x.tenant_id = ${t} and x.used_mb is not null and x.at >= date_trunc('month', now(), ${tz})
        order by x.at asc limit 1
      ) f
      cross join lateral (
        select used_mb from device_telemetry x
        where x.device_id = d.id and x.tenant_id = ${t} and x.used_mb is not null and x.at >= date_trunc('month', now(), ${tz})
        order by x.at desc limit 1
      ) l
      where d.tenant_id = ${t} and ${inDataScope(a, 'd')}`.execute(this.db);
    return rows;
  }

  /** Every group of the tenant (id, parent, name). */
  groups(tenantId: number) {
    return this.scope(tenantId)
      .selectFrom('device_groups')
      .select(['device_groups.id', 'device_groups.parent_id', 'device_groups.name'])
      .execute();
  }

  /** The devices of the scope per group (null: ungrouped), and how many are online. */
  devicesPerGroup(tenantId: number, a: DataAccess) {
    return this.devices(tenantId, a)
      .select([
        'devices.group_id',
        sql<number>`count(*)`.as('n'),
        sql<number>`count(*) filter (where devices.status = 'online')`.as('online'),
      ])
      .groupBy('devices.group_id')
      .execute();
  }

  /** Devices of the scope bound per day of the last INSTALL_DAYS days in `tz` (every day, 0 without any). */
  async installs(tenantId: number, a: DataAccess, tz: string) {
    const t = tenantId;
    const { rows } = await sql<{ date: string; count: number }>`
      with days as (
        select g::date as day
        from generate_series(((now() at time zone ${tz})::date - ${sql.lit(INSTALL_DAYS - 1)})::timestamp, (now() at time zone ${tz})::date::timestamp, '1 day'::interval) g
      ),
      bound as (
        select (bound_at at time zone ${tz})::date as day, count(*) as n from devices
        where tenant_id = ${t} and ${inDataScope(a)} and bound_at >= ((now() at time zone ${tz})::date - ${sql.lit(INSTALL_DAYS - 1)})::timestamp at time zone ${tz}
        group by 1
      )
      select to_char(days.day, 'YYYY-MM-DD') as date, coalesce(bound.n, 0)::int as count
      from days left join bound using (day) order by days.day`.execute(this.db);
    return rows;
  }

  /**
   * A remind list of the scope: its first RANK_SIZE devices and how many there are. `paper`: a paper problem,
   * latest seen first; `offline`: offline since before `staleBefore` (never seen: since bound), longest silent
   * first; `simLow`: the SIM low, exhausted or suspended (the state follows the data left, a trigger of
   * 0008-devices-2: one rule for the list, the detail and here), least data left first.
   */
  async remind(
    tenantId: number,
    a: DataAccess,
    list: RemindList,
    staleBefore: Date,
  ): Promise<{ rows: RemindRow[]; count: number }> {
    const base = this.devices(tenantId, a)
      .leftJoin('sims as s', 's.iccid', 'devices.iccid')
      .select([
        'devices.id',
        'devices.sn',
        'devices.name',
        'devices.status',
        'devices.paper',
        'devices.last_seen_at',
        sql<number | null>`(s.plan_total_mb - s.used_mb)::float8`.as('left'),
      ]);
    const q =
      list === 'paper'
        ? base.where('devices.paper', '<>', 'ok')
        : list === 'offline'
          ? base
              .where('devices.status', '=', 'offline')
              .where(sql<boolean>`coalesce(devices.last_seen_at, devices.bound_at) < ${staleBefore}`)
          : base.where('s.state', 'in', ['low', 'exhausted', 'suspended']);
    const ordered =
      list === 'simLow'
        ? q.orderBy(sql`(s.plan_total_mb - s.used_mb)`, 'asc')
        : q.orderBy(sql`devices.last_seen_at ${sql.raw(list === 'offline' ? 'asc' : 'desc')} nulls first`);
    const [rows, total] = await Promise.all([
      ordered.orderBy('devices.id').limit(RANK_SIZE).execute(),
      q
        .clearSelect()
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, count: Number(total.n) };
  }

  /** The devices of the scope per firmware version and how many are online; most first, unreported after named. */
  versions(tenantId: number, a: DataAccess) {
    return (
      this.devices(tenantId, a)
        .select([
          'devices.firmware',
          sql<number>`count(*)`.as('n'),
          sql<number>`count(*) filter (where devices.status = 'online')`.as('online'),
        ])
        .groupBy('devices.firmware')
        .orderBy(sql`count(*)`, 'desc')
        // a version not reported yet comes after the named ones of the same count
        .orderBy(sql`devices.firmware = ''`)
        .orderBy('devices.firmware')
        .execute()
    );
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
const STALE = new Date('2025-12-31T00:00:00Z');

export const dashboardQueries = defineQueries(DashboardRepository, {
  deviceCounts: [{ args: [3, access('all')], results: [[{ n: '12', online: '9' }]] }],
  tasksToday: [
    { args: [3, access('all'), TZ], results: [[{ n: '40' }]] },
    { args: [3, access('own'), TZ], results: [[{ n: '4' }]] },
  ],
  provinces: [[3, access('department')]],
  trend: [
    [3, access('all'), TZ, 'hour', 168],
    [3, access('own'), TZ, 'day', 7],
  ],
  onlineNow: [{ args: [3, access('own')], results: [[{ n: '2' }]] }],
  rankByTasks: [[3, access('department'), TZ]],
  dataThisMonth: [[3, access('own'), TZ]],
  groups: [[3]],
  devicesPerGroup: [[3, access('all')]],
  installs: [[3, access('department'), TZ]],
  remind: [
    { args: [3, access('all'), 'paper', STALE], results: [[], [{ n: '0' }]] },
    { args: [3, access('own'), 'offline', STALE], results: [[], [{ n: '0' }]] },
    { args: [3, access('all'), 'simLow', STALE], results: [[], [{ n: '0' }]] },
  ],
  versions: [[3, access('all')]],
});
