/**
 * The fleet list at scale: 1,000,000 devices across 1,000 tenants (skewed: the largest has ~31,600, the smallest
 * ~500), loaded with INSERT … SELECT generate_series into an embedded PostgreSQL, then `GET /apiAdmin/device/list`
 * called through `app.inject` for random tenants with the filters a fleet owner uses. The reference beside it,
 * measured in the same run and the same way, is a bare Fastify route.
 *
 * Data scope (issue 12): every tenant has a department tree of 7 (a head office, 2 regions, 4 branches), 80 % of
 * its devices filed in one of them; two sub-accounts per tenant hold `device:view` through a role scoped to
 * `department` (a region: 3 of the 7 departments) and to `own` (10 % of the devices were bound by it). The same
 * list calls are made as the main account (`all`) and as each of them, and the per-request cost of reading the
 * caller's permissions and its data scope is shown on its own.
 *
 *   node --import tsx bench/device-list.ts [--devices 1000000] [--tenants 1000] [--requests 300] [--explain]
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  bareRouteReference,
  formatSample,
  loadAverage,
  log,
  measureFn,
  measureInject,
  queryExplainer,
  secs,
  startScaleDatabase,
  type Sample,
  signSessions,
  tenantsBySize,
} from './scale.ts';
import { sql } from 'kysely';
import { deviceListQuery } from '@cpc/contracts/device';
import type { Db } from '../apps/server/src/db/database.ts';
import { loadAuthUser } from '../apps/server/src/plugins/auth.ts';
import { dataAccessOf } from '../apps/server/src/lib/data-scope.ts';
import { DeviceService } from '../apps/server/src/modules/device/service.ts';
import { TenantScope } from '../apps/server/src/db/tenant-scope.ts';

const { values: args } = parseArgs({
  options: {
    devices: { type: 'string', default: '1000000' },
    tenants: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '300' },
    explain: { type: 'boolean', default: false },
  },
});
const DEVICES = Number(args.devices);
const TENANTS = Number(args.tenants);
const REQUESTS = Number(args.requests);
const GROUPS_PER_TENANT = 15; // 5 top-level groups with 2 subgroups each
const TENANT_BASE = 1000; // customer tenant ids: TENANT_BASE + k
const DEPTS_PER_TENANT = 7; // department id = k * 7 + j + 1: j 0 head office, 1-2 regions, 3-6 branches
const WRITE_ROUNDS = 40; // committed batches per write-cost figure
const SUB_BASE = 10_000_000; // sub-account ids: SUB_BASE + 2k (department scope), SUB_BASE + 2k + 1 (own scope)

async function load(db: Db): Promise<void> {
  let t0 = performance.now();
  await sql`INSERT INTO device_models (code, name, kind, paper_width_mm) VALUES
    ('P58', 'Receipt printer 58', 'printer', 58), ('P80', 'Receipt printer 80', 'printer', 80),
    ('L100', 'Label printer', 'printer', 100), ('T10', 'Android terminal', 'android-terminal', 80)`.execute(db);
  await sql`INSERT INTO tenants (id, kind, name, auth_status)
    SELECT ${TENANT_BASE} + k, 'enterprise', 'tenant_' || k, 1 FROM generate_series(0, ${TENANTS - 1}) k`.execute(db);
  await sql`INSERT INTO users (tenant_id, username, mobile, password_hash, is_super)
    SELECT ${TENANT_BASE} + k, 'bench_' || k, NULL, 'not-a-hash', 1 FROM generate_series(0, ${TENANTS - 1}) k`.execute(
    db,
  );
  await sql`INSERT INTO sessions (id, tenant_id, user_id) SELECT gen_random_uuid(), tenant_id, id FROM users WHERE username LIKE 'bench\_%'`.execute(
    db,
  );
  // groups: id = k * 15 + j + 1; j < 5 top level, j >= 5 under (j - 5) / 2
  await sql`INSERT INTO device_groups (id, tenant_id, parent_id, name)
    SELECT k * ${GROUPS_PER_TENANT} + j + 1, ${TENANT_BASE} + k,
           CASE WHEN j < 5 THEN NULL ELSE k * ${GROUPS_PER_TENANT} + (j - 5) / 2 + 1 END,
           CASE WHEN j < 5 THEN 'Region ' || j ELSE 'Shop ' || j END
    FROM generate_series(0, ${TENANTS - 1}) k, generate_series(0, ${GROUPS_PER_TENANT - 1}) j
    ORDER BY 1`.execute(db);
  await sql`SELECT setval('device_groups_id_seq', (SELECT max(id) FROM device_groups))`.execute(db);
  // departments: path = ancestors' ids and its own, each followed by '/'
  await sql`INSERT INTO departments (id, tenant_id, parent_id, name, sort, path)
    SELECT k * ${DEPTS_PER_TENANT} + j + 1, ${TENANT_BASE} + k,
           CASE WHEN j = 0 THEN NULL WHEN j <= 2 THEN k * ${DEPTS_PER_TENANT} + 1 ELSE k * ${DEPTS_PER_TENANT} + 2 + (j - 3) / 2 END,
           'Dept ' || j, j,
           CASE WHEN j = 0 THEN (k * ${DEPTS_PER_TENANT} + 1) || '/'
                WHEN j <= 2 THEN (k * ${DEPTS_PER_TENANT} + 1) || '/' || (k * ${DEPTS_PER_TENANT} + j + 1) || '/'
                ELSE (k * ${DEPTS_PER_TENANT} + 1) || '/' || (k * ${DEPTS_PER_TENANT} + 2 + (j - 3) / 2) || '/' || (k * ${DEPTS_PER_TENANT} + j + 1) || '/' END
    FROM generate_series(0, ${TENANTS - 1}) k, generate_series(0, ${DEPTS_PER_TENANT - 1}) j ORDER BY 1`.execute(db);
  await sql`SELECT setval('departments_id_seq', (SELECT max(id) FROM departments))`.execute(db);
  // two sub-accounts per tenant, each with a device:view role: one scoped to its region (department j = 1), one to its own
  await sql`INSERT INTO roles (id, tenant_id, code, name, permissions, data_scope)
    SELECT ${SUB_BASE} + 2 * k + s, ${TENANT_BASE} + k, (ARRAY['region', 'mine'])[s + 1], (ARRAY['Region', 'Mine'])[s + 1],
           ARRAY['device:view'], (ARRAY['department', 'own'])[s + 1]
    FROM generate_series(0, ${TENANTS - 1}) k, generate_series(0, 1) s`.execute(db);
  await sql`INSERT INTO users (id, tenant_id, username, mobile, password_hash, is_super, department_id)
    SELECT ${SUB_BASE} + 2 * k + s, ${TENANT_BASE} + k, (ARRAY['bdept_', 'bown_'])[s + 1] || k, NULL, 'not-a-hash', 2,
           k * ${DEPTS_PER_TENANT} + 2
    FROM generate_series(0, ${TENANTS - 1}) k, generate_series(0, 1) s`.execute(db);
  await sql`INSERT INTO user_roles (tenant_id, user_id, role_id) SELECT tenant_id, id, id FROM users WHERE id >= ${SUB_BASE}`.execute(
    db,
  );
  await sql`INSERT INTO sessions (id, tenant_id, user_id) SELECT gen_random_uuid(), tenant_id, id FROM users WHERE id >= ${SUB_BASE}`.execute(
    db,
  );
  await sql`SELECT setval('tenants_id_seq', (SELECT max(id) FROM tenants))`.execute(db);
  log(`  tenants, users, sessions, groups: ${secs(t0)}`);

  // Bulk load without the secondary indexes, then build them once (their definitions read back from the catalogue).
  const { rows: indexes } = await sql<{ name: string; def: string }>`
    SELECT indexname AS name, indexdef AS def FROM pg_indexes
    WHERE tablename IN ('devices', 'sims') AND indexname NOT IN (SELECT conname FROM pg_constraint)`.execute(db);
  for (const i of indexes) await sql`DROP INDEX ${sql.id(i.name)}`.execute(db);
  // the SIM's data left on the device (migration 0037) is written by the load itself, not row by row by triggers
  await sql`ALTER TABLE devices DISABLE TRIGGER devices_sim_left`.execute(db);
  await sql`ALTER TABLE sims DISABLE TRIGGER sims_left_to_devices`.execute(db);

  // Tenant k = floor(TENANTS * u²) for a hash-spread u in [0, 1): skewed sizes, each tenant's rows spread over the heap.
  t0 = performance.now();
  await sql`
    INSERT INTO devices (sn, tenant_id, model_id, bind_key_hash, secret, bound_at, name, remark, group_id, firmware,
      status, connected_at, last_seen_at, heartbeat_s, paper, battery, signal, imei, iccid, lat, lng, located_at, province,
      department_id, owner_id, sim_left_mb)
    SELECT 'BN' || lpad(n::text, 8, '0'), ${TENANT_BASE} + k, 1 + n % 4, md5(n::text), md5(n::text || 's'),
      now() - (r1 * 365) * interval '1 day',
      CASE WHEN n % 5 = 0 THEN '' ELSE 'Printer ' || n END, '',
      CASE WHEN n % 10 < 7 THEN k * ${GROUPS_PER_TENANT} + (n / 10) % ${GROUPS_PER_TENANT} + 1 END,
      (ARRAY['1.0.3', '1.1.0', '1.2.0', '2.0.0', '2.0.1'])[1 + n % 5],
      CASE WHEN r2 < 0.6 THEN 'online' ELSE 'offline' END,
      CASE WHEN r2 < 0.6 THEN now() - r3 * interval '2 days' END,
      CASE WHEN r2 < 0.6 THEN now() - r3 * interval '10 minutes' WHEN n % 50 = 0 THEN NULL ELSE now() - r3 * interval '30 days' END,
      86400,
      CASE WHEN n % 40 = 0 THEN 'out' WHEN n % 97 = 0 THEN 'cover-open' ELSE 'ok' END,
      CASE WHEN n % 20 = 0 THEN NULL ELSE (r1 * 100)::int END,
      CASE WHEN n % 25 = 0 THEN NULL ELSE (r3 * 100)::int END,
      '86' || lpad(n::text, 13, '0'), '8986' || lpad(n::text, 16, '0'),
      22 + r1 * 18, 100 + r3 * 22, now(),
      (ARRAY['北京', '上海', '广东', '浙江', '江苏', '四川', '湖北', '山东', '河南', '福建'])[1 + n % 10],
      CASE WHEN n % 5 = 0 THEN NULL ELSE k * ${DEPTS_PER_TENANT} + (n / 5) % ${DEPTS_PER_TENANT} + 1 END,
      CASE WHEN n % 10 = 3 THEN ${SUB_BASE} + 2 * k + 1 END,
      1024 - ((n % 1000) + 0.5)
    FROM (
      SELECT n,
        floor(${TENANTS} * power(((n::bigint * 2654435761) % 4294967296) / 4294967296.0, 2))::int AS k,
        ((n::bigint * 40503) % 65536) / 65536.0 AS r1,
        ((n::bigint * 69069 + 1) % 1000003) / 1000003.0 AS r2,
        ((n::bigint * 48271) % 2147483647) / 2147483647.0 AS r3
      FROM generate_series(1, ${DEVICES}) n
    ) s`.execute(db);
  log(`  ${DEVICES.toLocaleString('en')} devices: ${secs(t0)}`);
  t0 = performance.now();
  await sql`INSERT INTO sims (iccid, tenant_id, device_id, carrier, plan_total_mb, used_mb, state)
    SELECT iccid, tenant_id, id, 'cmcc', 1024, (id % 1000) + 0.5, CASE WHEN id % 30 = 0 THEN 'low' ELSE 'active' END FROM devices`.execute(
    db,
  );
  log(`  ${DEVICES.toLocaleString('en')} SIMs: ${secs(t0)}`);
  // device ids follow n on a fresh table; should one not, its copy of the data left is set from its SIM here
  const fixed = await sql`
    UPDATE devices d SET sim_left_mb = s.plan_total_mb - s.used_mb FROM sims s
    WHERE s.iccid = d.iccid AND d.sim_left_mb IS DISTINCT FROM s.plan_total_mb - s.used_mb`.execute(db);
  if (fixed.numAffectedRows) log(`  data left set from the SIM on ${fixed.numAffectedRows} devices`);
  await sql`ALTER TABLE devices ENABLE TRIGGER devices_sim_left`.execute(db);
  await sql`ALTER TABLE sims ENABLE TRIGGER sims_left_to_devices`.execute(db);
  t0 = performance.now();
  for (const i of indexes) await sql.raw(i.def).execute(db);
  log(`  ${indexes.length} secondary indexes rebuilt: ${secs(t0)}`);
  t0 = performance.now();
  await sql`VACUUM ANALYZE`.execute(db);
  log(`  vacuum analyze: ${secs(t0)}`);
  const { rows: size } = await sql<{ heap: string; idx: string }>`
    SELECT pg_size_pretty(pg_relation_size('devices')) AS heap, pg_size_pretty(pg_indexes_size('devices')) AS idx`.execute(
    db,
  );
  log(`  devices table: ${size[0].heap} heap, ${size[0].idx} indexes`);
}

async function main() {
  log(
    `device-list bench: ${DEVICES.toLocaleString('en')} devices, ${TENANTS} tenants, ${os.cpus().length} CPUs, Node ${process.version}, load average ${loadAverage()}`,
  );
  const t0 = performance.now();
  const scale = await startScaleDatabase('list');
  const { db, url } = scale;
  try {
    await load(db);
    const app = await scale.app();
    const tokens = await scale.tokens();
    const sessions = await db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['sessions.id', 'sessions.tenant_id', 'sessions.user_id'])
      .where('users.username', 'like', 'bench\\_%')
      .execute();
    const subSessions = await db
      .selectFrom('sessions')
      .select(['sessions.id', 'sessions.tenant_id', 'sessions.user_id'])
      .where('sessions.user_id', '>=', SUB_BASE)
      .execute();
    const subTokens = new Map<number, string>(); // user id → token
    for (const s of subSessions)
      subTokens.set(s.user_id, await tokens.sign({ userId: s.user_id, tenantId: s.tenant_id, sessionId: s.id }));
    const scoped = (tenantId: number, kind: 'department' | 'own') =>
      subTokens.get(SUB_BASE + 2 * (tenantId - TENANT_BASE) + (kind === 'own' ? 1 : 0))!;
    const tenants = await signSessions(tokens, sessions);
    const { bySize, sizeList } = await tenantsBySize(db, 'devices', tenants);
    log(
      `tenant sizes: largest ${sizeList[0]}, median ${sizeList[Math.floor(sizeList.length / 2)]}, smallest ${sizeList.at(-1)}`,
    );

    // Deterministic pseudo-random choices, so two runs ask the same questions.
    let seedN = 42;
    const rnd = () => (seedN = (seedN * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const groupOf = (tenantId: number) => (tenantId - TENANT_BASE) * GROUPS_PER_TENANT + 1 + Math.floor(rnd() * 5);
    const mixes: Array<[string, (tenantId: number) => string]> = [
      ['default order, page 1', () => ''],
      ['status=online', () => 'status=online'],
      ['group (with subgroups)', (t) => `groupId=${groupOf(t)}`],
      ['keyword (part of sn or name)', () => `keyword=${100 + Math.floor(rnd() * 900)}`],
      ['sort=lastSeen desc', () => 'sort=lastSeen&order=desc'],
      ['sort=dataLeft asc, status=offline', () => 'sort=dataLeft&order=asc&status=offline'],
      ['sort=name asc, page 5', () => 'sort=name&order=asc&pageNo=5'],
      ['paper=out', () => 'paper=out'],
      ['model + status=online', () => `modelId=${1 + Math.floor(rnd() * 4)}&status=online`],
    ];
    const listUrl = (q: string) => `/apiAdmin/device/list?pageSize=20${q ? `&${q}` : ''}`;

    // warm-up: every mix once for a few tenants
    for (const t of bySize.slice(0, 5))
      for (const [, q] of mixes) await measureInject(app, 'warm-up', [{ url: listUrl(q(t.tenantId)), token: t.token }]);

    const results: Sample[] = [];
    results.push(await bareRouteReference(REQUESTS * 4));
    const all: number[] = [];
    for (const [name, q] of mixes) {
      const reqs = Array.from({ length: REQUESTS }, () => {
        const t = pick(tenants);
        return { url: listUrl(q(t.tenantId)), token: t.token };
      });
      const s = await measureInject(app, `random tenant: ${name}`, reqs);
      all.push(...s.ms);
      results.push(s);
    }
    results.push({ name: 'random tenant: all mixes', ms: all });
    const big: number[] = [];
    const slow: { name: string; ms: number; req: { url: string; token: string } }[] = [];
    for (const [name, q] of mixes) {
      // as many calls as for random tenants: a p99 of 75 calls was its slowest call
      const reqs = Array.from({ length: REQUESTS }, () => {
        const t = pick(bySize.slice(0, 10));
        return { url: listUrl(q(t.tenantId)), token: t.token };
      });
      const s = await measureInject(app, `10 largest: ${name}`, reqs);
      big.push(...s.ms);
      results.push(s);
      slow.push(...s.ms.map((ms, i) => ({ name, ms, req: reqs[i] })));
    }
    results.push({ name: '10 largest tenants: all mixes', ms: big });

    // Data scope: the same calls as the main account (all), a region's sub-account (department) and an `own` one.
    const scopeMixes = mixes.filter(([name]) =>
      ['default order, page 1', 'status=online', 'sort=lastSeen desc', 'keyword (part of sn or name)'].includes(name),
    );
    for (const [who, tokenOf] of [
      ['main account (all)', (t: { token: string }) => t.token],
      ['department scope', (t: { tenantId: number }) => scoped(t.tenantId, 'department')],
      ['own scope', (t: { tenantId: number }) => scoped(t.tenantId, 'own')],
    ] as const) {
      for (const [pool, label] of [
        [tenants, 'random tenant'],
        [bySize.slice(0, 10), '10 largest'],
      ] as const) {
        const ms: number[] = [];
        for (const [, q] of scopeMixes) {
          const reqs = Array.from({ length: Math.ceil(REQUESTS / 4) }, () => {
            const t = pick(pool);
            return { url: listUrl(q(t.tenantId)), token: tokenOf(t) };
          });
          ms.push(...(await measureInject(app, 'scope', reqs)).ms);
        }
        results.push({ name: `scope: ${who}, ${label}, 4 mixes`, ms });
      }
    }

    // Where the time goes: the bearer check alone, and the list's SQL alone (service call, no HTTP).
    results.push(
      await measureFn('breakdown: token + session/permission load', REQUESTS, async () => {
        const t = pick(tenants);
        await tokens.verify(t.token);
        await loadAuthUser(db, t.userId, t.tenantId, t.sessionId);
      }),
    );
    results.push(
      await measureFn('breakdown: session/permission load + data scope (dept.)', REQUESTS, async () => {
        const t = pick(tenants);
        const userId = SUB_BASE + 2 * (t.tenantId - TENANT_BASE);
        const s = subSessions.find((x) => x.user_id === userId)!;
        dataAccessOf(await loadAuthUser(db, userId, t.tenantId, s.id));
      }),
    );
    const service = new DeviceService(db);
    const users = await Promise.all(tenants.map((t) => loadAuthUser(db, t.userId, t.tenantId, t.sessionId)));
    results.push(
      await measureFn('breakdown: list SQL only (default order)', REQUESTS, () =>
        service.list(pick(users), { pageNo: 1, pageSize: 20, order: 'asc' }),
      ),
    );
    log(
      `\nload average now ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (const r of results) log(formatSample(r, 50));
    // The largest tenants' slowest calls, each asked again three times: a call slow again is its query's; one
    // fast the second time was the machine's (a pause of the process, a cold page).
    log("\nthe 10 largest tenants' five slowest calls, and the same call three times again");
    for (const c of slow.sort((a, b) => b.ms - a.ms).slice(0, 5)) {
      const again = (await measureInject(app, 'again', [c.req, c.req, c.req])).ms;
      log(`  ${c.ms.toFixed(1)} ms, again ${again.map((m) => m.toFixed(1)).join(' / ')} ms: ${c.name}, ${c.req.url}`);
    }

    if (args.explain) {
      // The SQL the list really sends (captured from the service), explained for the largest tenant.
      const spy = queryExplainer(url);
      const owner = users[tenants.indexOf(bySize[0])];
      const largest = { ...owner, scope: new TenantScope(spy.db, owner.tenantId) };
      log(`\nEXPLAIN ANALYZE of the list's SQL for the largest tenant (${sizeList[0]} devices): scans and time`);
      for (const [name, q] of mixes) {
        await spy.explain(
          name,
          () =>
            new DeviceService(spy.db).list(
              largest,
              deviceListQuery.parse(Object.fromEntries(new URLSearchParams(`pageSize=20&${q(largest.tenantId)}`))),
            ),
          (text) => (/count\(\*\)/.test(text) ? 'count' : 'page '),
        );
      }
      // the largest tenants' three slowest calls of the run, explained the same way
      for (const c of slow.slice(0, 3)) {
        const t = tenants.find((x) => x.token === c.req.token)!;
        const owner = users[tenants.indexOf(t)];
        const who = { ...owner, scope: new TenantScope(spy.db, owner.tenantId) };
        const query = c.req.url.split('?')[1];
        await spy.explain(
          `slow call (${c.ms.toFixed(1)} ms), tenant ${t.tenantId}: ${query}`,
          () =>
            new DeviceService(spy.db).list(who, deviceListQuery.parse(Object.fromEntries(new URLSearchParams(query)))),
          (text) => (/count\(\*\)/.test(text) ? 'count' : 'page '),
        );
      }
      await spy.close();
    }

    // What migration 0037's two indexes and triggers cost the writes a fleet makes, with them and (same run, same
    // rows) after dropping them: a batched last-seen flush as the gateway sends it every 2 s (667 devices: 10,000
    // at a 30 s heartbeat) and a SIM counter update of as many cards (the roll-up's write, which the trigger
    // copies onto the devices), each committed.
    const { rows: idRange } = await sql<{ lo: number; hi: number }>`
      SELECT min(id)::int AS lo, max(id)::int AS hi FROM devices`.execute(db);
    const batchIds = () =>
      Array.from({ length: 667 }, () => idRange[0].lo + Math.floor(rnd() * (idRange[0].hi - idRange[0].lo + 1)));
    let deadlocks = 0;
    const writeCost = async (label: string): Promise<Sample[]> => {
      const seen = await measureFn(`write: last-seen flush, 667 devices (${label})`, WRITE_ROUNDS, () =>
        sql`WITH u AS (UPDATE devices SET last_seen_at = now() WHERE id = ANY(${batchIds()}::bigint[]) RETURNING id, status)
          SELECT id FROM u WHERE status = 'offline'`.execute(db),
      );
      const traffic = await measureFn(`write: SIM counters, 667 cards (${label})`, WRITE_ROUNDS, async () => {
        const ids = batchIds();
        // the server's own SIM writes run beside this one: a deadlock (one of the two aborted) is tried again, as
        // the server's jobs do at their next tick, and counted
        for (;;) {
          try {
            await sql`UPDATE sims SET used_mb = used_mb + 0.01
              WHERE iccid IN (SELECT iccid FROM devices WHERE id = ANY(${ids}::bigint[]))`.execute(db);
            return;
          } catch (err) {
            if ((err as { code?: string }).code !== '40P01') throw err;
            deadlocks++;
          }
        }
      });
      return [seen, traffic];
    };
    await writeCost('warm-up');
    const writes = await writeCost('with 0037');
    await sql`
      DROP TRIGGER sims_left_to_devices ON sims;
      DROP TRIGGER devices_sim_left ON devices;
      DROP INDEX devices_tenant_trgm_idx;
      DROP INDEX devices_tenant_sim_left_idx`.execute(db);
    writes.push(...(await writeCost('without 0037')));
    // the keyword mix as it ran before the trigram index (the narrow covering index of 0033), same run
    const keyword = mixes.find(([name]) => name.startsWith('keyword'))![1];
    for (const [pool, label] of [
      [tenants, 'random tenant'],
      [bySize.slice(0, 10), '10 largest'],
    ] as const) {
      const reqs = Array.from({ length: Math.ceil(REQUESTS / 4) }, () => {
        const t = pick(pool);
        return { url: listUrl(keyword(t.tenantId)), token: t.token };
      });
      writes.push(await measureInject(app, `${label}: keyword, without 0037's index`, reqs));
    }
    log(`\nwrite cost of migration 0037 (load average now ${loadAverage()}):`);
    for (const r of writes) log(formatSample(r, 50));
    if (deadlocks) log(`(SIM counter writes tried again after a deadlock with the server's own: ${deadlocks})`);
  } finally {
    await scale.close();
  }
  log(`\ntotal ${secs(t0)}`);
}

await main();
