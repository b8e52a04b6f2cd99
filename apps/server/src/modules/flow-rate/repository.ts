import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { PERMISSIONS, SIM_EXPIRY_REMIND_DAYS, SIM_USAGE_KEEP_DAYS, type SimSort } from '@cpc/contracts';
import { DEFAULT_TIME_ZONE } from '@cpc/contracts/device-constants';
import type { SimState } from '@cpc/contracts/device';
import type { Db } from '../../db/database.ts';
import { defineQueries } from '../../db/query-spec.ts';
import type { Database } from '../../db/schema.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import { deviceInScope, readersOf, type DataAccess } from '../../lib/data-scope.ts';

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

/** A SIM of a page, with its device and group. `k`: its sort key as text (the export's cursor). */
export interface SimRow {
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

/** Where the export goes on from: the last row's sort key (as text) and ICCID. */
export interface SimCursor {
  k: string;
  iccid: string;
}

/** One point of a usage series: its day or month, bytes up and down (as text). */
export interface UsageRow {
  date: string;
  tx: string;
  rx: string;
}

/** A SIM alert the sweep sent: the SIM's row (`user_id` null) or a user who got a message (`kind` null). */
export interface SweepAlertRow {
  tenant_id: number;
  iccid: string;
  user_id: number | null;
  kind: string | null;
}

/** The titles of the SIM alerts, stored as their en text. */
export interface SimAlertTitles {
  low: string;
  exhausted: string;
  expiring: string;
  expired: string;
}

/** The advisory lock key of the SIM sweep (a constant of its own): one node sweeps at a time. */
const SIM_SWEEP_LOCK = 0x5349_4d53; // "SIMS"

const ZONE = DEFAULT_TIME_ZONE;
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

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- a query that selects nothing yet
type SimQuery = SelectQueryBuilder<Database, 'sims', {}>;

/**
 * Every statement of the flow-rate module: the `sims` and `sim_usage_daily` tables, read through the SIM's device
 * (`devices`, `device_groups`: the data scope, a group, the keyword), and the SIM alerts put into `messages`.
 * Every read is pinned to the caller's tenant and to its data scope through the SIM's device.
 */
export class FlowRateRepository {
  constructor(private db: Db) {}

  /** Runs `work` in one transaction with a repository bound to it. */
  transaction<T>(work: (repo: FlowRateRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new FlowRateRepository(trx)));
  }

  /**
   * The SIMs of the filter, on `sims` alone: what concerns the device (data scope, group, keyword on sn / name) is
   * a subquery of the tenant's devices, so the count and the page's sort read no device row; only the page's rows
   * are joined with their device and group (`page`).
   */
  private filtered(a: DataAccess, f: Omit<SimFilter, 'sort' | 'order'>): SimQuery {
    const t = a.tenantId;
    let q = new TenantScope(this.db, t).selectFrom('sims').where(deviceInScope(a, 'sims.device_id'));
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
    a: DataAccess,
    base: SimQuery,
    f: Pick<SimFilter, 'sort' | 'order'>,
    limit: number,
    offset: number,
    where?: RawBuilder<boolean>,
  ): Promise<SimRow[]> {
    const { key } = SORT_KEYS[f.sort];
    const dir = sql.raw(f.order);
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
      left join devices d on d.id = p.device_id and d.tenant_id = ${a.tenantId}
      left join device_groups g on g.id = d.group_id and g.tenant_id = ${a.tenantId}
      order by p.sk ${dir}, p.iccid ${dir}`.execute(this.db);
    return rows;
  }

  /** A page of the filter's SIMs in its order, and how many match in all. */
  async listPage(
    a: DataAccess,
    f: SimFilter,
    limit: number,
    offset: number,
  ): Promise<{ rows: SimRow[]; total: number }> {
    const base = this.filtered(a, f);
    const [rows, total] = await Promise.all([
      this.page(a, base, f, limit, offset),
      base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** The next `limit` SIMs of the filter in its order after `after` (none: the first ones): the export's batch. */
  pageAfter(a: DataAccess, f: SimFilter, limit: number, after: SimCursor | null): Promise<SimRow[]> {
    const { key, cast } = SORT_KEYS[f.sort];
    const cmp = sql.raw(f.order === 'asc' ? '>' : '<');
    const cursor = after ? sql<boolean>`(${key}, sims.iccid) ${cmp} (${after.k}::${cast}, ${after.iccid})` : undefined;
    return this.page(a, this.filtered(a, f), f, limit, 0, cursor);
  }

  /** The id of the SIM when it is in the caller's tenant and data scope; otherwise undefined. */
  async findSimId(a: DataAccess, iccid: string): Promise<number | undefined> {
    const row = await new TenantScope(this.db, a.tenantId)
      .selectFrom('sims')
      .select('sims.id')
      .where('sims.iccid', '=', iccid)
      .where(deviceInScope(a, 'sims.device_id'))
      .executeTakeFirst();
    return row?.id;
  }

  /** Up and down bytes per month of the last 12 (this one last), zero-filled. */
  async usageByMonth(simId: number): Promise<UsageRow[]> {
    const today = sql`(now() at time zone ${ZONE})::date`;
    const { rows } = await sql<UsageRow>`
        with months as (
          select g::date as m from generate_series(date_trunc('month', ${today}) - interval '11 months', date_trunc('month', ${today}), interval '1 month') g
        ), used as (
          select date_trunc('month', day)::date as m, sum(tx_bytes) as tx, sum(rx_bytes) as rx from sim_usage_daily
          where sim_id = ${simId} and day >= (date_trunc('month', ${today}) - interval '11 months')::date group by 1
        )
        select to_char(months.m, 'YYYY-MM') as date, coalesce(used.tx, 0)::text as tx, coalesce(used.rx, 0)::text as rx
        from months left join used using (m) order by months.m`.execute(this.db);
    return rows;
  }

  /** Up and down bytes per day of the last `days` (today last), zero-filled. */
  async usageByDay(simId: number, days: number): Promise<UsageRow[]> {
    const today = sql`(now() at time zone ${ZONE})::date`;
    const { rows } = await sql<UsageRow>`
      with days as (
        select g::date as day from generate_series(${today} - ${sql.lit(days - 1)}, ${today}, interval '1 day') g
      )
      select to_char(days.day, 'YYYY-MM-DD') as date, coalesce(u.tx_bytes, 0)::text as tx, coalesce(u.rx_bytes, 0)::text as rx
      from days left join sim_usage_daily u on u.sim_id = ${simId} and u.day = days.day order by days.day`.execute(
      this.db,
    );
    return rows;
  }

  /** The caller's SIMs by state: how many, this month's bytes, and how many expire within the reminder's days. */
  stateCounts(a: DataAccess) {
    return new TenantScope(this.db, a.tenantId)
      .selectFrom('sims')
      .where(deviceInScope(a, 'sims.device_id'))
      .select([
        'sims.state',
        sql<string>`count(*)`.as('n'),
        sql<string>`sum(${MONTH_BYTES})`.as('month'),
        sql<string>`count(*) filter (where sims.expires_at > now() and sims.expires_at <= now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS}))`.as(
          'expiring',
        ),
      ])
      .groupBy('sims.state')
      .execute();
  }

  /** The caller's SIMs' bytes of the last 7 whole days, and the days left in this month after today. */
  async recentUse(a: DataAccess): Promise<{ bytes: string | null; days_left: number } | undefined> {
    const inScope = deviceInScope(a, 'sims.device_id');
    const { rows } = await sql<{ bytes: string | null; days_left: number }>`
        select (select sum(u.tx_bytes + u.rx_bytes) from sim_usage_daily u join sims on sims.id = u.sim_id
            where sims.tenant_id = ${a.tenantId} and ${inScope}
              and u.day >= (now() at time zone ${ZONE})::date - 7 and u.day < (now() at time zone ${ZONE})::date) as bytes,
          ((date_trunc('month', (now() at time zone ${ZONE})) + interval '1 month')::date - (now() at time zone ${ZONE})::date - 1)::int as days_left`.execute(
      this.db,
    );
    return rows[0];
  }

  /** Takes the sweep's transaction-scoped advisory lock; false when another node's sweep holds it. */
  async tryLockSweep(): Promise<boolean> {
    const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${SIM_SWEEP_LOCK}) as ok`.execute(
      this.db,
    );
    return !!rows[0]?.ok;
  }

  /** Plans whose expiry has passed turn `expired` (the state trigger of 0017 decides, touched by `state = state`). */
  async expirePlans(): Promise<{ tenant_id: number | null; iccid: string }[]> {
    const { rows } = await sql<{ tenant_id: number | null; iccid: string }>`
      update sims set state = state
      where expires_at <= now() and state not in ('expired', 'suspended')
      returning tenant_id, iccid`.execute(this.db);
    return rows;
  }

  /**
   * Each SIM whose alert differs from the one last sent: `alerted_state` takes it, and (when there is one) each
   * user of its account who reads the traffic query and reaches the SIM's device gets a message, in one statement.
   */
  async alertChanged(titles: SimAlertTitles): Promise<SweepAlertRow[]> {
    const { rows } = await sql<SweepAlertRow>`
      with k as (
        select s.id, s.tenant_id, s.iccid, s.device_id,
          case when s.state = 'expired' then 'expired'
               when s.state = 'exhausted' then 'exhausted'
               when s.state <> 'suspended' and s.expires_at <= now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS}) then 'expiring'
               when s.state = 'low' then 'low'
               else '' end as kind
        from sims s
        where s.tenant_id is not null
          and ((s.state <> 'active' or s.alerted_state <> '')
            or s.expires_at <= now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS}))
      ),
      changed as (
        update sims s set alerted_state = k.kind from k
        where s.id = k.id and s.alerted_state <> k.kind
        returning s.tenant_id, s.iccid, s.device_id, k.kind
      ),
      sent as (
        insert into messages (tenant_id, user_id, kind, title, body, link)
        select c.tenant_id, u.id, 'sim.' || c.kind,
          case c.kind when 'low' then ${titles.low} when 'exhausted' then ${titles.exhausted}
            when 'expiring' then ${titles.expiring} else ${titles.expired} end,
          'ICCID ' || c.iccid || coalesce(' · ' || d.sn, '') || coalesce(' · ' || nullif(d.name, ''), ''),
          '/flowRate/flowRateSearch?keyword=' || c.iccid
        from changed c
        left join devices d on d.id = c.device_id
        -- who reads the traffic query and reaches the SIM's device (a SIM in no device: the account's readers of scope all)
        join lateral (${readersOf({
          tenantId: sql.ref('c.tenant_id'),
          departmentId: sql.ref('d.department_id'),
          ownerId: sql.ref('d.owner_id'),
          permission: PERMISSIONS.flowRateView,
        })}) u on true
        where c.kind <> ''
        returning tenant_id, user_id
      )
      select c.tenant_id, c.iccid, null::bigint as user_id, c.kind from changed c
      union all
      select distinct tenant_id, null, user_id, null from sent`.execute(this.db);
    return rows;
  }

  /** Deletes up to `batch` daily usage rows older than SIM_USAGE_KEEP_DAYS; how many went. */
  async pruneUsage(batch: number): Promise<number> {
    const res = await sql`
        delete from sim_usage_daily where ctid in (
          select ctid from sim_usage_daily where day < (now() at time zone 'Asia/Shanghai')::date - ${SIM_USAGE_KEEP_DAYS}::int
          limit ${batch})`.execute(this.db);
    return Number(res.numAffectedRows ?? 0);
  }
}

const department: DataAccess = {
  tenantId: 7,
  userId: 41,
  scope: 'department',
  departmentId: 5,
  departmentPath: '1/5/',
};
const all: DataAccess = { ...department, scope: 'all' };
const sorted: SimFilter = { sort: 'remaining', order: 'asc' };

export const flowRateQueries = defineQueries(FlowRateRepository, {
  listPage: [
    { args: [all, sorted, 20, 0], results: [[], [{ n: '0' }]] },
    {
      args: [
        department,
        {
          state: 'low,exhausted',
          carrier: 'China Mobile',
          groupId: 3,
          expiringDays: 30,
          belowPercent: 20,
          keyword: '8986_01',
          sort: 'usedMonth',
          order: 'desc',
        },
        20,
        40,
      ],
      results: [[], [{ n: '0' }]],
    },
  ],
  pageAfter: [
    [all, { sort: 'expiry', order: 'asc' }, 1000, null],
    [department, { sort: 'remaining', order: 'desc' }, 1000, { k: '512.5', iccid: '89860123456789012345' }],
  ],
  findSimId: [[department, '89860123456789012345']],
  usageByMonth: [[12]],
  usageByDay: [[12, 30]],
  stateCounts: [[all], [department]],
  recentUse: [[department]],
  tryLockSweep: [[]],
  expirePlans: [[]],
  alertChanged: [[{ low: 'Data low', exhausted: 'Data used up', expiring: 'Plan expiring', expired: 'Plan expired' }]],
  pruneUsage: [[10_000]],
});
