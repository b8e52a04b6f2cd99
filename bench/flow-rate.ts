/**
 * The traffic query at scale (issue 13): 1,000,000 SIMs (each in a device) across 1,000 tenants (skewed like the
 * device list: the largest has ~31,600, the smallest ~500), loaded with INSERT … SELECT generate_series into an
 * embedded PostgreSQL, with 13 months (395 days) of daily usage for the SIMs of the measured tenants (see
 * --full-tenants: all 395 days for every SIM would be 395 M rows). Then, through `app.inject`:
 * `GET /apiAdmin/flowRate/sim/list` with each filter and sort, one SIM's chart (30 d, 90 d, 12 m), the summary,
 * beside a bare Fastify route measured the same way in the same run.
 *
 * Then the daily usage roll-up's cost: 10,000 devices each sending a traffic report (byte counters) every
 * --traffic-every-s seconds, through the real roll-up code (`Presence.traffic`), for --rollup-s seconds: the
 * CPU time of this process (process.cpuUsage) and of PostgreSQL's processes (/proc) per second of reports,
 * beside the same load through the statement the gateway ran before the roll-up (a plain upsert of used_mb).
 *
 *   node --import tsx bench/flow-rate.ts [--sims 1000000] [--tenants 1000] [--full-tenants 40] [--requests 200]
 *     [--rollup-devices 10000] [--traffic-every-s 60] [--rollup-s 60] [--skip-query]
 *
 * The roll-up is measured three ways in the same run: the statement the gateway ran before issue 13 (a plain
 * upsert of used_mb), the roll-up one statement per report (`Presence.trafficNow`, as before the batching), and
 * the batched roll-up (`Presence.traffic`, one statement per LAST_SEEN_FLUSH_MS = 2 s for every report heard).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { Db } from '../apps/server/src/db/database.ts';
import { loadAuthUser } from '../apps/server/src/plugins/auth.ts';
import { FlowRateService, sweepSims } from '../apps/server/src/modules/flow-rate/index.ts';
import { Presence } from '../apps/server/src/plugins/mqtt/presence.ts';
import {
  bareRouteReference,
  formatSample,
  loadAverage,
  log,
  measureFn,
  measureInject,
  pct,
  secs,
  startScaleDatabase,
  type Sample,
  signSessions,
  tenantsBySize,
} from './scale.ts';

const { values: args } = parseArgs({
  options: {
    sims: { type: 'string', default: '1000000' },
    tenants: { type: 'string', default: '1000' },
    'full-tenants': { type: 'string', default: '40' },
    requests: { type: 'string', default: '200' },
    'rollup-devices': { type: 'string', default: '10000' },
    'traffic-every-s': { type: 'string', default: '60' },
    'rollup-s': { type: 'string', default: '60' },
    // only the roll-up (load, then the reports): for iterating on it
    'skip-query': { type: 'boolean', default: false },
  },
});
const SIMS = Number(args.sims);
const TENANTS = Number(args.tenants);
const FULL_TENANTS = Math.min(Number(args['full-tenants']), TENANTS);
const REQUESTS = Number(args.requests);
const ROLLUP_DEVICES = Math.min(Number(args['rollup-devices']), SIMS);
const TRAFFIC_EVERY_S = Number(args['traffic-every-s']);
const ROLLUP_S = Number(args['rollup-s']);
const SKIP_QUERY = args['skip-query'];
const DAYS = 395;
const GROUPS_PER_TENANT = 6;
const TENANT_BASE = 1000;

/** The measured tenants with a full series: the largest, and every (TENANTS / FULL_TENANTS)th of the others. */
const fullTenantIds = () => {
  const step = Math.max(1, Math.floor(TENANTS / FULL_TENANTS));
  const ids = new Set<number>([TENANT_BASE]); // k = 0 is the largest (k = floor(T·u²) favours small k)
  for (let k = step; ids.size < FULL_TENANTS && k < TENANTS; k += step) ids.add(TENANT_BASE + k);
  return [...ids];
};

async function load(db: Db): Promise<void> {
  let t0 = performance.now();
  await sql`INSERT INTO device_models (code, name, kind, paper_width_mm) VALUES ('P58', 'Receipt printer 58', 'printer', 58)`.execute(
    db,
  );
  await sql`INSERT INTO tenants (id, kind, name, auth_status)
    SELECT ${TENANT_BASE} + k, 'enterprise', 'tenant_' || k, 1 FROM generate_series(0, ${TENANTS - 1}) k`.execute(db);
  await sql`INSERT INTO users (tenant_id, username, mobile, password_hash, is_super)
    SELECT ${TENANT_BASE} + k, 'bench_' || k, NULL, 'not-a-hash', 1 FROM generate_series(0, ${TENANTS - 1}) k`.execute(
    db,
  );
  await sql`INSERT INTO sessions (id, tenant_id, user_id) SELECT gen_random_uuid(), tenant_id, id FROM users WHERE username LIKE 'bench\_%'`.execute(
    db,
  );
  await sql`INSERT INTO device_groups (id, tenant_id, parent_id, name)
    SELECT k * ${GROUPS_PER_TENANT} + j + 1, ${TENANT_BASE} + k, NULL, 'Shop ' || j
    FROM generate_series(0, ${TENANTS - 1}) k, generate_series(0, ${GROUPS_PER_TENANT - 1}) j ORDER BY 1`.execute(db);
  await sql`SELECT setval('device_groups_id_seq', (SELECT max(id) FROM device_groups))`.execute(db);
  await sql`SELECT setval('tenants_id_seq', (SELECT max(id) FROM tenants))`.execute(db);
  log(`  tenants, users, sessions, groups: ${secs(t0)}`);

  const { rows: indexes } = await sql<{ name: string; def: string }>`
    SELECT indexname AS name, indexdef AS def FROM pg_indexes
    WHERE tablename IN ('devices', 'sims', 'sim_usage_daily') AND indexname NOT IN (SELECT conname FROM pg_constraint)`.execute(
    db,
  );
  for (const i of indexes) await sql`DROP INDEX ${sql.id(i.name)}`.execute(db);

  t0 = performance.now();
  await sql`
    INSERT INTO devices (sn, tenant_id, model_id, bind_key_hash, secret, bound_at, name, remark, group_id, firmware,
      status, last_seen_at, heartbeat_s, paper, iccid)
    SELECT 'BN' || lpad(n::text, 8, '0'), ${TENANT_BASE} + k, 1, md5(n::text), md5(n::text || 's'),
      now() - (r1 * 365) * interval '1 day', CASE WHEN n % 5 = 0 THEN '' ELSE 'Printer ' || n END, '',
      CASE WHEN n % 10 < 7 THEN k * ${GROUPS_PER_TENANT} + (n / 10) % ${GROUPS_PER_TENANT} + 1 END,
      '1.0.0', 'offline', now() - r1 * interval '1 day', 86400, 'ok', '8986' || lpad(n::text, 16, '0')
    FROM (
      SELECT n,
        floor(${TENANTS} * power(((n::bigint * 2654435761) % 4294967296) / 4294967296.0, 2))::int AS k,
        ((n::bigint * 40503) % 65536) / 65536.0 AS r1
      FROM generate_series(1, ${SIMS}) n
    ) s`.execute(db);
  log(`  ${SIMS.toLocaleString('en')} devices: ${secs(t0)}`);

  // SIMs: plans of 0 (none), 512, 1024 or 2048 MB, used from 0 to 110 % of the plan, expiry from 30 days ago to a
  // year ahead, this month's bytes up to 1 GB; the state trigger of 0017 sets each state
  t0 = performance.now();
  await sql`
    INSERT INTO sims (iccid, tenant_id, device_id, carrier, plan_total_mb, used_mb, expires_at, counted_at, tx_bytes,
      rx_bytes, month_start, month_bytes)
    SELECT d.iccid, d.tenant_id, d.id, (ARRAY['cmcc', 'cucc', 'ctcc'])[1 + d.id % 3], p.plan,
      round(p.plan * ((d.id * 7919) % 1100) / 1000.0, 2),
      CASE WHEN d.id % 11 = 0 THEN NULL ELSE now() + (((d.id * 104729) % 395) - 30) * interval '1 day' END,
      now(), (d.id * 31) % 100000000, (d.id * 37) % 1000000000,
      date_trunc('month', now() AT TIME ZONE 'Asia/Shanghai')::date, (d.id * 7331) % 1073741824
    FROM devices d, LATERAL (SELECT (ARRAY[0, 512, 1024, 2048])[1 + d.id % 4]::numeric AS plan) p`.execute(db);
  log(`  ${SIMS.toLocaleString('en')} SIMs: ${secs(t0)}`);
  // the steady state: every alert already sent (the first sweep after the migration tells each SIM's state once)
  t0 = performance.now();
  await sql`
    UPDATE sims SET alerted_state = CASE WHEN state = 'expired' THEN 'expired' WHEN state = 'exhausted' THEN 'exhausted'
      WHEN state <> 'suspended' AND expires_at <= now() + interval '7 days' THEN 'expiring' WHEN state = 'low' THEN 'low'
      ELSE '' END`.execute(db);
  log(`  alerts marked as sent: ${secs(t0)}`);

  // 13 months of daily usage for the measured tenants' SIMs
  t0 = performance.now();
  const full = fullTenantIds();
  await sql`ALTER TABLE sim_usage_daily SET UNLOGGED`.execute(db);
  await sql`ALTER TABLE sim_usage_daily DROP CONSTRAINT sim_usage_daily_pkey`.execute(db);
  await sql`
    INSERT INTO sim_usage_daily (sim_id, day, tx_bytes, rx_bytes)
    SELECT s.id, (now() AT TIME ZONE 'Asia/Shanghai')::date - g, ((s.id * 13 + g * 7) % 5000) * 1024,
      ((s.id * 17 + g * 11) % 40000) * 1024
    FROM sims s, generate_series(0, ${DAYS - 1}) g
    WHERE s.tenant_id = ANY(${full}::bigint[])`.execute(db);
  const { rows: count } = await sql<{ n: string }>`SELECT count(*) AS n FROM sim_usage_daily`.execute(db);
  log(
    `  ${Number(count[0].n).toLocaleString('en')} daily usage rows (${full.length} tenants × ${DAYS} days): ${secs(t0)}`,
  );
  t0 = performance.now();
  await sql`ALTER TABLE sim_usage_daily ADD PRIMARY KEY (sim_id, day)`.execute(db);
  await sql`ALTER TABLE sim_usage_daily SET LOGGED`.execute(db);
  for (const i of indexes) await sql.raw(i.def).execute(db);
  log(`  primary key and ${indexes.length} secondary indexes built, table logged: ${secs(t0)}`);
  t0 = performance.now();
  await sql`VACUUM ANALYZE`.execute(db);
  log(`  vacuum analyze: ${secs(t0)}`);
  const { rows: size } = await sql<{ sims: string; daily: string }>`
    SELECT pg_size_pretty(pg_total_relation_size('sims')) AS sims,
      pg_size_pretty(pg_total_relation_size('sim_usage_daily')) AS daily`.execute(db);
  log(`  sims ${size[0].sims}, sim_usage_daily ${size[0].daily} (with indexes)`);
}

/** CPU seconds (user + system) of each of PostgreSQL's processes (the postmaster and its children), from /proc. */
function postgresCpu(dataDir: string): Map<number, number> {
  const out = new Map<number, number>();
  const pidFile = fs
    .readdirSync(dataDir, { recursive: true, withFileTypes: false })
    .map(String)
    .find((f) => f.endsWith('postmaster.pid'));
  if (!pidFile) return out;
  const master = Number(fs.readFileSync(path.join(dataDir, pidFile), 'utf8').split('\n')[0]);
  const tick = 100; // USER_HZ
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(p) !== master && Number(f[1]) !== master) continue;
      out.set(Number(p), (Number(f[11]) + Number(f[12])) / tick);
    } catch {
      // a process gone meanwhile
    }
  }
  return out;
}

/** PostgreSQL's CPU seconds between two readings (a process that ended meanwhile is not counted). */
const cpuSince = (before: Map<number, number>, after: Map<number, number>) =>
  [...after].reduce((sum, [pid, s]) => sum + s - (before.get(pid) ?? 0), 0);

interface RollupResult {
  name: string;
  reports: number;
  wallS: number;
  nodeCpuS: number;
  pgCpuS: number;
  ms: number[];
  /** Row updates of `sims` in the window, and how many of them were HOT (no index entry written). */
  simUpdates: number;
  simHot: number;
}

/** Updates of `sims` so far, and the HOT ones (pg_stat_user_tables; the statistics are flushed about once a second). */
async function simUpdateStats(db: Db): Promise<{ upd: number; hot: number }> {
  await new Promise((r) => setTimeout(r, 1100));
  const { rows } = await sql<{ upd: string; hot: string }>`
    SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'sims'`.execute(db);
  return { upd: Number(rows[0]?.upd ?? 0), hot: Number(rows[0]?.hot ?? 0) };
}

/**
 * `devices` each send one report every TRAFFIC_EVERY_S seconds (spread evenly, 10 ticks a second) for ROLLUP_S
 * seconds through `send`; the CPU of this process and of PostgreSQL over the window.
 */
async function rollupLoad(
  db: Db,
  name: string,
  dataDir: string,
  devices: Array<{ id: number; iccid: string }>,
  send: (d: { id: number; iccid: string }, step: number) => Promise<void>,
): Promise<RollupResult> {
  const perTick = devices.length / TRAFFIC_EVERY_S / 10;
  const ms: number[] = [];
  const pending = new Set<Promise<void>>();
  let carry = 0;
  let next = 0;
  let step = 1;
  const stats0 = await simUpdateStats(db);
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpu(dataDir);
  const t0 = performance.now();
  for (let tick = 0; tick < ROLLUP_S * 10; tick++) {
    carry += perTick;
    while (carry >= 1) {
      carry -= 1;
      const d = devices[next];
      next = (next + 1) % devices.length;
      if (next === 0) step++;
      const s = performance.now();
      const p = send(d, step).then(() => {
        ms.push(performance.now() - s);
        pending.delete(p);
      });
      pending.add(p);
    }
    const wait = t0 + (tick + 1) * 100 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(pending);
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const pgCpuS = cpuSince(pg0, postgresCpu(dataDir));
  const stats1 = await simUpdateStats(db);
  return {
    name,
    reports: ms.length,
    wallS,
    nodeCpuS: (cpu.user + cpu.system) / 1e6,
    pgCpuS,
    ms,
    simUpdates: stats1.upd - stats0.upd,
    simHot: stats1.hot - stats0.hot,
  };
}

const share = (cpuS: number, wallS: number) => `${((cpuS / wallS) * 100).toFixed(2)} %`;
const fmtRollup = (r: RollupResult) =>
  `${r.name.padEnd(40)} ${r.reports} reports in ${r.wallS.toFixed(1)} s (${(r.reports / r.wallS).toFixed(0)}/s): ` +
  `Node ${share(r.nodeCpuS, r.wallS)} of a core, PostgreSQL ${share(r.pgCpuS, r.wallS)}, ` +
  `per report p50 ${pct(r.ms, 0.5).toFixed(2)} ms p99 ${pct(r.ms, 0.99).toFixed(2)} ms; ` +
  `sims rows updated ${r.simUpdates} (HOT ${r.simHot})`;

async function main() {
  log(
    `flow-rate bench: ${SIMS.toLocaleString('en')} SIMs, ${TENANTS} tenants, ${FULL_TENANTS} with ${DAYS} days of usage, ` +
      `${os.cpus().length} CPUs, Node ${process.version}, load average ${loadAverage()}`,
  );
  const t0 = performance.now();
  const scale = await startScaleDatabase('flow');
  const { db } = scale;
  try {
    await load(db);
    if (!SKIP_QUERY) await queries(db, scale);
    await rollups(db, scale.dir);
  } finally {
    await scale.close();
  }
  log(`\ntotal ${secs(t0)}`);
}

/** The traffic query through the real routes. */
async function queries(db: Db, scale: Awaited<ReturnType<typeof startScaleDatabase>>): Promise<void> {
  {
    const app = await scale.app();
    const tokens = await scale.tokens();
    const sessions = await db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['sessions.id', 'sessions.tenant_id', 'sessions.user_id'])
      .where('users.username', 'like', 'bench\\_%')
      .execute();
    const tenants = await signSessions(tokens, sessions);
    const { sizes, bySize, sizeList } = await tenantsBySize(db, 'sims', tenants);
    const full = new Set(fullTenantIds());
    const fullTenants = tenants.filter((t) => full.has(t.tenantId) && t.tenantId !== bySize[0].tenantId);
    const fullSizes = fullTenants.map((t) => sizes.get(t.tenantId) ?? 0).sort((a, b) => a - b);
    log(
      `tenant sizes: largest ${sizeList[0]}, median ${sizeList[Math.floor(sizeList.length / 2)]}, smallest ${sizeList.at(-1)}; ` +
        `the measured tenants with a full series: median ${fullSizes[Math.floor(fullSizes.length / 2)]} SIMs`,
    );

    let seedN = 42;
    const rnd = () => (seedN = (seedN * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const groupOf = (tenantId: number) => (tenantId - TENANT_BASE) * GROUPS_PER_TENANT + 1 + Math.floor(rnd() * 6);
    const mixes: Array<[string, (tenantId: number) => string]> = [
      ['default (least left first), page 1', () => ''],
      ['state=low,exhausted', () => 'state=low,exhausted'],
      ['carrier=cucc', () => 'carrier=cucc'],
      ['groupId', (t) => `groupId=${groupOf(t)}`],
      ['expiringDays=7', () => 'expiringDays=7'],
      ['belowPercent=20', () => 'belowPercent=20'],
      ['keyword (part of ICCID / sn / name)', () => `keyword=${100 + Math.floor(rnd() * 900)}`],
      ['sort=usedMonth desc', () => 'sort=usedMonth&order=desc'],
      ['sort=expiry asc, page 5', () => 'sort=expiry&order=asc&pageNo=5'],
    ];
    const listUrl = (q: string) => `/apiAdmin/flowRate/sim/list?pageSize=20${q ? `&${q}` : ''}`;

    // SIMs of the measured tenants, for the chart
    const chartSims = new Map<number, string[]>();
    for (const t of fullTenants) {
      const rows = await db
        .selectFrom('sims')
        .select('iccid')
        .where('tenant_id', '=', t.tenantId)
        .orderBy('iccid')
        .limit(50)
        .execute();
      chartSims.set(
        t.tenantId,
        rows.map((r) => r.iccid),
      );
    }
    const usageUrl = (t: { tenantId: number }, range: string) =>
      `/apiAdmin/flowRate/sim/usage?iccid=${pick(chartSims.get(t.tenantId)!)}&range=${range}`;

    for (const t of bySize.slice(0, 3))
      for (const [, q] of mixes) await measureInject(app, 'warm-up', [{ url: listUrl(q(t.tenantId)), token: t.token }]);

    const results: Sample[] = [];
    results.push(await bareRouteReference(REQUESTS * 4));
    const typical: number[] = [];
    for (const [name, q] of mixes) {
      const s = await measureInject(
        app,
        `list, random tenant: ${name}`,
        Array.from({ length: REQUESTS }, () => {
          const t = pick(tenants);
          return { url: listUrl(q(t.tenantId)), token: t.token };
        }),
      );
      typical.push(...s.ms);
      results.push(s);
    }
    results.push({ name: 'list, random tenant: all mixes', ms: typical });
    for (const range of ['30d', '90d', '12m']) {
      results.push(
        await measureInject(
          app,
          `chart of one SIM (13 months stored): ${range}`,
          Array.from({ length: REQUESTS }, () => {
            const t = pick(fullTenants);
            return { url: usageUrl(t, range), token: t.token };
          }),
        ),
      );
    }
    results.push(
      await measureInject(
        app,
        'summary, measured tenant (13 months stored)',
        Array.from({ length: REQUESTS }, () => {
          const t = pick(fullTenants);
          return { url: '/apiAdmin/flowRate/sim/summary', token: t.token };
        }),
      ),
    );
    const largest = bySize[0];
    const big: number[] = [];
    for (const [name, q] of mixes) {
      const s = await measureInject(
        app,
        `list, largest tenant (${sizeList[0]}): ${name}`,
        Array.from({ length: Math.ceil(REQUESTS / 4) }, () => ({
          url: listUrl(q(largest.tenantId)),
          token: largest.token,
        })),
      );
      big.push(...s.ms);
      results.push(s);
    }
    results.push({ name: `list, largest tenant: all mixes`, ms: big });
    results.push(
      await measureInject(
        app,
        'summary, largest tenant (13 months stored)',
        Array.from({ length: Math.ceil(REQUESTS / 4) }, () => ({
          url: '/apiAdmin/flowRate/sim/summary',
          token: largest.token,
        })),
      ),
    );
    results.push(
      await measureInject(
        app,
        'export (CSV, streamed), median measured tenant',
        Array.from({ length: 20 }, () => {
          const t = fullTenants.find((x) => sizes.get(x.tenantId) === fullSizes[Math.floor(fullSizes.length / 2)])!;
          return { url: '/apiAdmin/flowRate/sim/export', token: t.token };
        }),
      ),
    );
    const service = new FlowRateService(db);
    const users = await Promise.all(tenants.map((t) => loadAuthUser(db, t.userId, t.tenantId, t.sessionId)));
    results.push(
      await measureFn('breakdown: list SQL only (default order), random tenant', REQUESTS, () =>
        service.list(pick(users), { pageNo: 1, pageSize: 20, sort: 'remaining', order: 'asc' }),
      ),
    );
    log(`\nload average now ${loadAverage()}`);
    for (const r of results) log(formatSample(r, 58));
  }
}

/** The roll-up: 10,000 devices reporting their counters, three ways; then the SIM sweep. */
async function rollups(db: Db, dataDir: string): Promise<void> {
  {
    // The roll-up: 10,000 devices reporting their counters.
    const devices = (
      await db.selectFrom('devices').select(['id', 'iccid']).orderBy('id').limit(ROLLUP_DEVICES).execute()
    ).map((d) => ({ id: d.id, iccid: d.iccid! }));
    const presence = new Presence(db, { publish: () => {} }, { heartbeatS: 30, telemetrySampleS: 60 });
    // the gateway's timers: last-seen times and the batched roll-up, every LAST_SEEN_FLUSH_MS (2 s)
    const batches: Array<{ ms: number; reports: number }> = [];
    const flusher = setInterval(() => {
      const reports = presence.pendingReports;
      const s0 = performance.now();
      void presence.flush();
      void presence.flushTraffic().then(() => reports && batches.push({ ms: performance.now() - s0, reports }));
    }, 2000);
    const counters = (d: { id: number }, step: number) => ({
      usedMb: Math.round((d.id % 500) + step * 0.37 * 100) / 100,
      txBytes: (d.id % 1000) * 1000 + step * 40_000,
      rxBytes: (d.id % 1000) * 9000 + step * 350_000,
    });
    // the previous gateway statement (before issue 13): the counter written, nothing rolled up
    const before = async (d: { id: number; iccid: string }, step: number) => {
      await sql`
        INSERT INTO sims (iccid, tenant_id, device_id, used_mb)
        SELECT coalesce(${d.iccid}::text, dv.iccid), dv.tenant_id, dv.id, ${counters(d, step).usedMb}::numeric FROM devices dv
        WHERE dv.id = ${d.id} AND coalesce(${d.iccid}::text, dv.iccid) IS NOT NULL
        ON CONFLICT (iccid) DO UPDATE SET used_mb = excluded.used_mb, device_id = excluded.device_id
        WHERE sims.used_mb IS DISTINCT FROM excluded.used_mb OR sims.device_id IS DISTINCT FROM excluded.device_id`.execute(
        db,
      );
    };
    const rollup = (d: { id: number; iccid: string }, step: number) =>
      presence.traffic(d.id, { iccid: d.iccid, ...counters(d, step) });
    const each = (d: { id: number; iccid: string }, step: number) =>
      presence.trafficNow(d.id, { iccid: d.iccid, ...counters(d, step) });
    log(
      `\nroll-up: ${ROLLUP_DEVICES.toLocaleString('en')} devices, one traffic report each every ${TRAFFIC_EVERY_S} s ` +
        `(${(ROLLUP_DEVICES / TRAFFIC_EVERY_S).toFixed(0)}/s), ${ROLLUP_S} s each; load average ${loadAverage()}`,
    );
    // every SIM's baseline first (its first report counts nothing)
    for (let i = 0; i < devices.length; i += 200) await Promise.all(devices.slice(i, i + 200).map((d) => each(d, 0)));
    const idle = await rollupLoad(db, 'idle (no reports)', dataDir, devices, async () => {});
    // consecutive counters, phase after phase (each device reports once a phase): growth as a device makes it,
    // no state change beyond the real ones (a jump in the counters would change many SIMs' state at once)
    const a = await rollupLoad(db, 'reference: previous upsert of used_mb', dataDir, devices, (d, s) => before(d, s));
    const b = await rollupLoad(db, 'roll-up, a statement per report', dataDir, devices, (d, s) => each(d, s + 1));
    const c = await rollupLoad(db, 'roll-up, batched (Presence.traffic)', dataDir, devices, (d, s) => rollup(d, s + 2));
    clearInterval(flusher);
    await presence.flushTraffic();
    for (const r of [idle, a, b, c]) log(fmtRollup(r));
    const bm = batches.map((x) => x.ms);
    const br = batches.map((x) => x.reports);
    log(
      `  batched: ${batches.length} statements, ${pct(br, 0.5)} reports each (p50), ` +
        `statement p50 ${pct(bm, 0.5).toFixed(1)} ms p99 ${pct(bm, 0.99).toFixed(1)} ms`,
    );
    const { rows: rolled } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM sim_usage_daily WHERE day = (now() AT TIME ZONE 'Asia/Shanghai')::date
        AND sim_id IN (SELECT id FROM sims WHERE device_id <= ${devices.at(-1)!.id})`.execute(db);
    log(`  daily rows of today for the reporting SIMs: ${rolled[0].n} (one per SIM, not one per report)`);
    // the periodic SIM sweep (expiry, alerts, pruning; once a minute on one node) in the steady state
    const sweeps = await measureFn('SIM sweep (expiry, alerts, pruning), steady state', 5, () =>
      sweepSims(db, { publish: () => {} }),
    );
    log(formatSample(sweeps, 58));
    log(`load average now ${loadAverage()}`);
  }
}

await main();
