import { sql } from 'kysely';
import {
  INSTALL_DAYS,
  OFFLINE_REMIND_HOURS,
  RANK_SIZE,
  TREND_DAYS,
  type DashboardOverview,
  type GroupRank,
  type RankedDevice,
  type RemindDevice,
  type Trend,
  type TrendUnit,
} from '@cpc/contracts/dashboard';
import type { Db } from '../../db/database.ts';
import { dataAccessOf, deviceInScope, inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { orderWidget } from './orders.ts';
import { planWidget } from './plan.ts';
import { projectWidget, targetWidget } from './target.ts';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
const mb = (v: string | number | null) => Math.round(Number(v ?? 0) * 100) / 100;

/**
 * The home dashboard from the tenant's own rows (SPEC §2 widgets). Every query is pinned to the caller's tenant:
 * through its TenantScope, or with the tenant id as the first condition of the raw SQL below.
 */
export class DashboardService {
  constructor(private db: Db) {}

  /** Every figure counts only the devices of the caller's data scope (issue 12), and their tasks and history. */
  async overview(user: AuthUser, tz: string, unit: TrendUnit): Promise<DashboardOverview> {
    const a = dataAccessOf(user);
    const [cards, provinces, trend, byTasks, data, groupRanking, installs, remind, versions, plan] = await Promise.all([
      this.cards(user, a, tz),
      this.provinces(user, a),
      this.trend(user, tz, unit),
      this.rankByTasks(user, a, tz),
      this.dataThisMonth(user, a, tz),
      this.groupRanking(user, a),
      this.installs(user, a, tz),
      this.remind(user, a),
      this.versions(user, a),
      planWidget(user, a),
    ]);
    const [orders, target, projects] = await Promise.all([
      orderWidget(this.db, user, a, tz),
      targetWidget(this.db, user, a, tz),
      projectWidget(user, a, tz),
    ]);
    const byData = [...data.perDevice]
      .sort((a, b) => b.value - a.value || a.id - b.id)
      .filter((d) => d.value > 0)
      .slice(0, RANK_SIZE);
    return {
      cards: { ...cards, dataUsedMonthMb: mb(data.total) },
      provinces,
      trend,
      deviceRanking: { byTasks, byData },
      groupRanking,
      installs,
      remind,
      versions,
      orders,
      plan,
      target,
      projects,
    };
  }

  private async cards(user: AuthUser, a: DataAccess, tz: string) {
    const [devices, tasks] = await Promise.all([
      user.scope
        .selectFrom('devices')
        .where(inDataScope(a))
        .select([
          sql<number>`count(*)`.as('n'),
          sql<number>`count(*) filter (where devices.status = 'online')`.as('online'),
        ])
        .executeTakeFirstOrThrow(),
      user.scope
        .selectFrom('device_tasks')
        .select(sql<number>`count(*)`.as('n'))
        .where(sql<boolean>`device_tasks.created_at >= date_trunc('day', now(), ${tz})`)
        .where(deviceInScope(a, 'device_tasks.device_id'))
        .executeTakeFirstOrThrow(),
    ]);
    return { devices: Number(devices.n), online: Number(devices.online), tasksToday: Number(tasks.n) };
  }

  private async provinces(user: AuthUser, a: DataAccess) {
    const rows = await user.scope
      .selectFrom('devices')
      .where(inDataScope(a))
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
    return rows.map((r) => ({ province: r.province, total: Number(r.total), online: Number(r.online) }));
  }

  /**
   * Online devices per bucket = the peak of a running count of online devices, replayed from the status history
   * (each device's state at the window's start, then its changes); tasks = rows created in the bucket.
   */
  async trend(user: AuthUser, tz: string, unit: TrendUnit): Promise<Trend> {
    const t = user.tenantId;
    const a = dataAccessOf(user);
    const n = unit === 'hour' ? TREND_DAYS * 24 : TREND_DAYS;
    const step = unit === 'hour' ? '1 hour' : '1 day';
    const u = sql.lit(unit);
    const { rows } = await sql<{
      local_b: string;
      b_start: Date;
      peak: number | null;
      last_n: number | null;
      tasks: number;
    }>`
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
    const live = await user.scope
      .selectFrom('devices')
      .where(inDataScope(a))
      .select(sql<number>`count(*) filter (where devices.status = 'online')`.as('n'))
      .executeTakeFirstOrThrow();
    // A bucket without changes keeps the count the previous bucket ended with.
    let carried = 0;
    const points = rows.map((r, i) => {
      let online = Math.max(carried, Number(r.peak ?? 0));
      // the bucket under way includes now: never fewer than the online card, whatever history is missing
      if (i === rows.length - 1) online = Math.max(online, Number(live.n));
      if (r.last_n !== null) carried = Number(r.last_n);
      return { at: new Date(r.b_start).toISOString(), online, tasks: Number(r.tasks) };
    });
    return { unit, points };
  }

  private async rankByTasks(user: AuthUser, a: DataAccess, tz: string): Promise<RankedDevice[]> {
    const rows = await user.scope
      .selectFrom('device_tasks')
      .innerJoin('devices as d', (j) =>
        j.onRef('d.id', '=', 'device_tasks.device_id').on('d.tenant_id', '=', user.tenantId),
      )
      .select(['d.id', 'd.sn', 'd.name', sql<number>`count(*)`.as('n')])
      .where(sql<boolean>`device_tasks.created_at >= date_trunc('month', now(), ${tz})`)
      .where(inDataScope(a, 'd'))
      .groupBy(['d.id', 'd.sn', 'd.name'])
      .orderBy(sql`count(*)`, 'desc')
      .orderBy('d.id')
      .limit(RANK_SIZE)
      .execute();
    return rows.map((r) => ({ id: r.id, sn: r.sn, name: r.name, value: Number(r.n) }));
  }

  /** Per device: the used counter's last value this month minus its first (or the value since a reset). */
  private async dataThisMonth(
    user: AuthUser,
    a: DataAccess,
    tz: string,
  ): Promise<{ total: number; perDevice: RankedDevice[] }> {
    const t = user.tenantId;
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
    const perDevice = rows.map((r) => ({ id: r.id, sn: r.sn, name: r.name, value: mb(r.used) }));
    return { total: rows.reduce((s, r) => s + Number(r.used), 0), perDevice };
  }

  /** Top-level groups with the devices of every group below them, and the ungrouped devices. */
  private async groupRanking(user: AuthUser, a: DataAccess): Promise<GroupRank[]> {
    const [groups, counts] = await Promise.all([
      user.scope
        .selectFrom('device_groups')
        .select(['device_groups.id', 'device_groups.parent_id', 'device_groups.name'])
        .execute(),
      user.scope
        .selectFrom('devices')
        .where(inDataScope(a))
        .select([
          'devices.group_id',
          sql<number>`count(*)`.as('n'),
          sql<number>`count(*) filter (where devices.status = 'online')`.as('online'),
        ])
        .groupBy('devices.group_id')
        .execute(),
    ]);
    const parent = new Map(groups.map((g) => [g.id, g.parent_id]));
    const rootOf = (id: number): number => {
      let r = id;
      for (let p = parent.get(r); p !== null && p !== undefined; p = parent.get(r)) r = p;
      return r;
    };
    const ranks = new Map<number | null, GroupRank>(
      groups.filter((g) => g.parent_id === null).map((g) => [g.id, { id: g.id, name: g.name, devices: 0, online: 0 }]),
    );
    for (const c of counts) {
      const key = c.group_id === null ? null : rootOf(c.group_id);
      const r = ranks.get(key) ?? { id: null, name: '', devices: 0, online: 0 };
      r.devices += Number(c.n);
      r.online += Number(c.online);
      ranks.set(key, r);
    }
    // ties: groups by name, the ungrouped devices after them
    const order = (a: GroupRank, b: GroupRank) =>
      b.devices - a.devices || Number(a.id === null) - Number(b.id === null) || a.name.localeCompare(b.name);
    return [...ranks.values()]
      .filter((r) => r.devices > 0)
      .sort(order)
      .slice(0, RANK_SIZE);
  }

  private async installs(user: AuthUser, a: DataAccess, tz: string) {
    const t = user.tenantId;
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
    return rows.map((r) => ({ date: r.date, count: Number(r.count) }));
  }

  private async remind(user: AuthUser, a: DataAccess): Promise<DashboardOverview['remind']> {
    const base = () =>
      user.scope
        .selectFrom('devices')
        .where(inDataScope(a))
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
    const staleBefore = new Date(Date.now() - OFFLINE_REMIND_HOURS * 3600_000);
    const lists = {
      paper: base().where('devices.paper', '<>', 'ok'),
      offline: base()
        .where('devices.status', '=', 'offline')
        .where(sql<boolean>`coalesce(devices.last_seen_at, devices.bound_at) < ${staleBefore}`),
      // the state follows the data left (a trigger of 0008-devices-2): one rule for the list, the detail and here
      simLow: base().where('s.state', 'in', ['low', 'exhausted', 'suspended']),
    };
    const toDevice = (r: {
      id: number;
      sn: string;
      name: string;
      status: 'online' | 'offline';
      paper: 'ok' | 'out' | 'cover-open' | 'overheat';
      last_seen_at: Date | null;
      left: number | null;
    }): RemindDevice => ({
      id: r.id,
      sn: r.sn,
      name: r.name,
      status: r.status,
      paper: r.paper,
      lastSeenAt: iso(r.last_seen_at),
      simDataLeftMb: r.left === null ? null : mb(r.left),
    });
    const run = async (q: ReturnType<typeof base>, order: 'last_seen_desc' | 'last_seen_asc' | 'left_asc') => {
      const ordered =
        order === 'left_asc'
          ? q.orderBy(sql`(s.plan_total_mb - s.used_mb)`, 'asc')
          : q.orderBy(sql`devices.last_seen_at ${sql.raw(order === 'last_seen_asc' ? 'asc' : 'desc')} nulls first`);
      const [rows, total] = await Promise.all([
        ordered.orderBy('devices.id').limit(RANK_SIZE).execute(),
        q
          .clearSelect()
          .select(sql<number>`count(*)`.as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { count: Number(total.n), devices: rows.map(toDevice) };
    };
    const [paper, offline, simLow] = await Promise.all([
      run(lists.paper, 'last_seen_desc'),
      run(lists.offline, 'last_seen_asc'),
      run(lists.simLow, 'left_asc'),
    ]);
    return { paper, offline, simLow };
  }

  private async versions(user: AuthUser, a: DataAccess) {
    const rows = await user.scope
      .selectFrom('devices')
      .where(inDataScope(a))
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
      .execute();
    return rows.map((r) => ({ firmware: r.firmware, count: Number(r.n), online: Number(r.online) }));
  }
}
