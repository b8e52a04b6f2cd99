import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import {
  SIM_EXPIRY_REMIND_DAYS,
  type SimItem,
  type SimSort,
  type SimSummary,
  type SimUsage,
  type SimUsageRange,
} from '@cpc/contracts';
import { DEFAULT_TIME_ZONE, SIM_STATES } from '@cpc/contracts/device-constants';
import type { SimState } from '@cpc/contracts/device';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { dataAccessOf, deviceInScope } from '../../lib/data-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { notFound } from '../../plugins/errors.ts';

/** The filters of the list and the export, as validated by the contracts (`state` still comma-separated). */
export interface SimFilter {
  state?: string;
  carrier?: string;
  groupId?: number;
  expiringDays?: number;
  belowPercent?: number;
  keyword?: string;
  sort: SimSort;
  order: 'asc' | 'desc';
}

const MB = 1024 * 1024;
const ZONE = DEFAULT_TIME_ZONE;
const mb2 = (v: string | number | null) => Math.round(Number(v ?? 0) * 100) / 100;
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/** This month's first day in the series' zone (the roll-up's `month_start`). */
const THIS_MONTH = sql`date_trunc('month', (now() at time zone ${ZONE}))::date`;
/** Bytes used this month: the roll-up's month counter when it is of this month. */
const MONTH_BYTES = sql`(case when sims.month_start = ${THIS_MONTH} then sims.month_bytes else 0 end)`;

/**
 * The sort keys, one expression each, all ordered in the one direction asked for with the ICCID last, so a
 * (key, iccid) pair is a cursor for the export. A SIM without a plan counts as having the most left; a SIM
 * without an expiry date as expiring last.
 */
const SORT_KEYS: Record<SimSort, { key: RawBuilder<unknown>; cast: RawBuilder<unknown> }> = {
  remaining: {
    key: sql`(case when sims.plan_total_mb > 0 then sims.plan_total_mb - sims.used_mb else 1e15 end)`,
    cast: sql.raw('numeric'),
  },
  usedMonth: { key: MONTH_BYTES, cast: sql.raw('bigint') },
  expiry: { key: sql`coalesce(sims.expires_at, 'infinity'::timestamptz)`, cast: sql.raw('timestamptz') },
};

interface SimRow {
  iccid: string;
  msisdn: string;
  carrier: string;
  device_id: number | null;
  sn: string | null;
  name: string | null;
  group_name: string | null;
  plan_total_mb: string;
  used_mb: string;
  month_bytes: string | number;
  expires_at: Date | null;
  state: SimState;
  counted_at: Date | null;
  k: string;
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a query that selects nothing yet
type SimQuery = SelectQueryBuilder<Database, 'sims', {}>;

export function toSimItem(r: SimRow): SimItem {
  const plan = Number(r.plan_total_mb);
  const used = Number(r.used_mb);
  const left = plan > 0 ? Math.max(plan - used, 0) : 0;
  return {
    iccid: r.iccid,
    msisdn: r.msisdn,
    carrier: r.carrier,
    deviceId: r.device_id,
    deviceSn: r.sn,
    deviceName: r.name,
    groupName: r.group_name,
    planMb: mb2(plan),
    usedMb: mb2(used),
    leftMb: mb2(left),
    leftPercent: plan > 0 ? Math.round((left / plan) * 1000) / 10 : null,
    usedMonthMb: mb2(Number(r.month_bytes) / MB),
    expiresAt: iso(r.expires_at),
    state: r.state,
    reportedAt: iso(r.counted_at),
  };
}

/**
 * The traffic query (issue 13): the account's SIMs through their devices. Every query is pinned to the caller's
 * tenant (its TenantScope) and to its data scope through the SIM's device: a SIM of a device outside the scope,
 * like another tenant's, is not found.
 */
export class FlowRateService {
  constructor(private db: Db) {}

  /**
   * The SIMs of the filter, on `sims` alone: what concerns the device (data scope, group, keyword on sn / name) is
   * a subquery of the tenant's devices, so the count and the page's sort read no device row; only the page's rows
   * are joined with their device and group (`page`).
   */
  private async filtered(user: AuthUser, f: Omit<SimFilter, 'sort' | 'order'>): Promise<SimQuery> {
    const a = dataAccessOf(user);
    const t = user.tenantId;
    let q = user.scope.selectFrom('sims').where(deviceInScope(a, 'sims.device_id'));
    if (f.state) q = q.where('sims.state', 'in', f.state.split(',') as SimState[]);
    if (f.carrier) q = q.where('sims.carrier', '=', f.carrier);
    if (f.groupId)
      q = q.where(
        sql<boolean>`sims.device_id in (select gd.id from devices gd where gd.tenant_id = ${t} and gd.group_id in (
          with recursive sub as (
            select id from device_groups where id = ${f.groupId} and tenant_id = ${t}
            union all
            select c.id from device_groups c join sub on c.parent_id = sub.id where c.tenant_id = ${t}
          ) select id from sub))`,
      );
    if (f.expiringDays)
      q = q
        .where('sims.expires_at', '>', sql<Date>`now()`)
        .where('sims.expires_at', '<=', sql<Date>`now() + make_interval(days => ${f.expiringDays})`);
    if (f.belowPercent !== undefined)
      q = q.where(
        sql<boolean>`sims.plan_total_mb > 0 and sims.plan_total_mb - sims.used_mb < sims.plan_total_mb * ${f.belowPercent}::numeric / 100`,
      );
    if (f.keyword) {
      // the matching ICCIDs first, from the tenant's entries of two narrow indexes (0033: its ICCIDs, its devices'
      // sn and name), then only those SIM rows: not a page per SIM of the tenant
      const like = likeOf(f.keyword);
      q = q.where(
        sql<boolean>`sims.iccid in (
          select ki.iccid from sims ki where ki.tenant_id = ${t} and ki.iccid like ${like}
          union all
          select ks.iccid from devices kd join sims ks on ks.device_id = kd.id and ks.tenant_id = ${t}
          where kd.tenant_id = ${t} and (kd.sn ilike ${like} or kd.name ilike ${like}))`,
      );
    }
    return q;
  }

  /**
   * One page of the filter in the sort's order (`where`: the export's cursor), then its devices and groups:
   * the SIM rows are sorted and cut first, and only those are joined.
   */
  private async page(
    user: AuthUser,
    base: SimQuery,
    sort: SimSort,
    order: 'asc' | 'desc',
    limit: number,
    offset: number,
    where?: RawBuilder<boolean>,
  ): Promise<SimRow[]> {
    const { key } = SORT_KEYS[sort];
    const dir = sql.raw(order);
    const inner = (where ? base.where(where) : base)
      .select([
        'sims.iccid',
        'sims.msisdn',
        'sims.carrier',
        'sims.device_id',
        sql<string>`sims.plan_total_mb::text`.as('plan_total_mb'),
        sql<string>`sims.used_mb::text`.as('used_mb'),
        sql<string>`${MONTH_BYTES}`.as('month_bytes'),
        'sims.expires_at',
        'sims.state',
        'sims.counted_at',
        sql<unknown>`${key}`.as('sk'),
        sql<string>`${key}::text`.as('k'),
      ])
      .orderBy(sql`${key} ${dir}, sims.iccid ${dir}`)
      .limit(limit)
      .offset(offset);
    const { rows } = await sql<SimRow>`
      select p.iccid, p.msisdn, p.carrier, p.device_id, d.sn, d.name, g.name as group_name, p.plan_total_mb, p.used_mb,
        p.month_bytes, p.expires_at, p.state, p.counted_at, p.k
      from (${inner}) p
      left join devices d on d.id = p.device_id and d.tenant_id = ${user.tenantId}
      left join device_groups g on g.id = d.group_id and g.tenant_id = ${user.tenantId}
      order by p.sk ${dir}, p.iccid ${dir}`.execute(this.db);
    return rows;
  }

  async list(user: AuthUser, f: SimFilter & { pageNo: number; pageSize: number }) {
    const base = await this.filtered(user, f);
    const [rows, total] = await Promise.all([
      this.page(user, base, f.sort, f.order, f.pageSize, (f.pageNo - 1) * f.pageSize),
      base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { list: rows.map(toSimItem), total: Number(total.n) };
  }

  /** Every SIM of the filter in the list's order, in batches by a (key, iccid) cursor: never all in memory. */
  async *all(user: AuthUser, f: SimFilter, max: number, batch = 1000): AsyncGenerator<SimItem> {
    const base = await this.filtered(user, f);
    const { key, cast } = SORT_KEYS[f.sort];
    const cmp = sql.raw(f.order === 'asc' ? '>' : '<');
    let after: { k: string; iccid: string } | null = null;
    let left = max;
    while (left > 0) {
      const n = Math.min(batch, left);
      const cursor = after
        ? sql<boolean>`(${key}, sims.iccid) ${cmp} (${after.k}::${cast}, ${after.iccid})`
        : undefined;
      const rows = await this.page(user, base, f.sort, f.order, n, 0, cursor);
      for (const r of rows) yield toSimItem(r);
      left -= rows.length;
      const end = rows.at(-1);
      if (rows.length < n || !end) return;
      after = { k: end.k, iccid: end.iccid };
    }
  }

  /** The SIM's id when the caller reaches it; another tenant's or outside the data scope: 404. */
  private async simId(user: AuthUser, iccid: string): Promise<number> {
    const a = dataAccessOf(user);
    const row = await user.scope
      .selectFrom('sims')
      .select('sims.id')
      .where('sims.iccid', '=', iccid)
      .where(deviceInScope(a, 'sims.device_id'))
      .executeTakeFirst();
    if (!row) throw notFound('SIM');
    return row.id;
  }

  /** Up and down bytes per day of the last 30 or 90 days, or per month of the last 12, oldest first, zero-filled. */
  async usage(user: AuthUser, iccid: string, range: SimUsageRange): Promise<SimUsage> {
    const id = await this.simId(user, iccid);
    const today = sql`(now() at time zone ${ZONE})::date`;
    if (range === '12m') {
      const { rows } = await sql<{ date: string; tx: string; rx: string }>`
        with months as (
          select g::date as m from generate_series(date_trunc('month', ${today}) - interval '11 months', date_trunc('month', ${today}), interval '1 month') g
        ), used as (
          select date_trunc('month', day)::date as m, sum(tx_bytes) as tx, sum(rx_bytes) as rx from sim_usage_daily
          where sim_id = ${id} and day >= (date_trunc('month', ${today}) - interval '11 months')::date group by 1
        )
        select to_char(months.m, 'YYYY-MM') as date, coalesce(used.tx, 0)::text as tx, coalesce(used.rx, 0)::text as rx
        from months left join used using (m) order by months.m`.execute(this.db);
      return { iccid, range, unit: 'month', points: rows.map((r) => point(r)) };
    }
    const days = range === '90d' ? 90 : 30;
    const { rows } = await sql<{ date: string; tx: string; rx: string }>`
      with days as (
        select g::date as day from generate_series(${today} - ${sql.lit(days - 1)}, ${today}, interval '1 day') g
      )
      select to_char(days.day, 'YYYY-MM-DD') as date, coalesce(u.tx_bytes, 0)::text as tx, coalesce(u.rx_bytes, 0)::text as rx
      from days left join sim_usage_daily u on u.sim_id = ${id} and u.day = days.day order by days.day`.execute(
      this.db,
    );
    return { iccid, range, unit: 'day', points: rows.map((r) => point(r)) };
  }

  /** The account's SIMs by state, this month's use and its projection, and the plans expiring soon. */
  async summary(user: AuthUser): Promise<SimSummary> {
    const a = dataAccessOf(user);
    const inScope = deviceInScope(a, 'sims.device_id');
    const [counts, recent] = await Promise.all([
      user.scope
        .selectFrom('sims')
        .where(inScope)
        .select([
          'sims.state',
          sql<string>`count(*)`.as('n'),
          sql<string>`sum(${MONTH_BYTES})`.as('month'),
          sql<string>`count(*) filter (where sims.expires_at > now() and sims.expires_at <= now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS}))`.as(
            'expiring',
          ),
        ])
        .groupBy('sims.state')
        .execute(),
      sql<{ bytes: string | null; days_left: number }>`
        select (select sum(u.tx_bytes + u.rx_bytes) from sim_usage_daily u join sims on sims.id = u.sim_id
            where sims.tenant_id = ${user.tenantId} and ${inScope}
              and u.day >= (now() at time zone ${ZONE})::date - 7 and u.day < (now() at time zone ${ZONE})::date) as bytes,
          ((date_trunc('month', (now() at time zone ${ZONE})) + interval '1 month')::date - (now() at time zone ${ZONE})::date - 1)::int as days_left`.execute(
        this.db,
      ),
    ]);
    const byState = Object.fromEntries(SIM_STATES.map((s) => [s, 0])) as SimSummary['byState'];
    let total = 0;
    let monthBytes = 0;
    let expiringSoon = 0;
    for (const r of counts) {
      byState[r.state] = Number(r.n);
      total += Number(r.n);
      monthBytes += Number(r.month ?? 0);
      expiringSoon += Number(r.expiring);
    }
    const perDay = Number(recent.rows[0]?.bytes ?? 0) / 7;
    const daysLeft = Number(recent.rows[0]?.days_left ?? 0);
    return {
      total,
      byState,
      usedMonthMb: mb2(monthBytes / MB),
      projectedMonthMb: mb2((monthBytes + perDay * daysLeft) / MB),
      expiringSoon,
    };
  }
}

const point = (r: { date: string; tx: string; rx: string }) => ({
  date: r.date,
  txBytes: Number(r.tx),
  rxBytes: Number(r.rx),
});
