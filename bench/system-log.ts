/**
 * The system log at scale (issue 12): 10,000,000 entries over 200 tenants (skewed sizes), 180 days, 10,000 users
 * and 30 actions, loaded with INSERT … SELECT generate_series into an embedded PostgreSQL; then
 * `GET /apiAdmin/system/log/list` through `app.inject` for the searches the log screen makes — the first page and
 * a deep page (a cursor some weeks back) — as staff (every tenant) and as a customer (its own tenant). The
 * reference beside it, measured in the same run and the same way, is a bare Fastify route. It also measures the
 * cost of writing an entry: the audit insert alone, and a change route (profile edit) that writes one.
 *
 *   node --import tsx bench/system-log.ts [--entries 10000000] [--tenants 200] [--requests 200] [--no-explain]
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
  tenantsBySize,
} from './scale.ts';
import { sql } from 'kysely';
import { systemLogQuery } from '@cpc/contracts';
import type { Db } from '../apps/server/src/db/database.ts';
import { audit, changedFields } from '../apps/server/src/lib/audit.ts';
import { loadAuthUser, type AuthUser } from '../apps/server/src/plugins/auth.ts';
import { SystemLogService } from '../apps/server/src/modules/system-log/index.ts';
import { TenantScope } from '../apps/server/src/db/tenant-scope.ts';

const { values: args } = parseArgs({
  options: {
    entries: { type: 'string', default: '10000000' },
    tenants: { type: 'string', default: '200' },
    requests: { type: 'string', default: '200' },
    'no-explain': { type: 'boolean', default: false },
  },
});
const ENTRIES = Number(args.entries);
const TENANTS = Number(args.tenants);
const REQUESTS = Number(args.requests);
const USERS_PER_TENANT = 50;
const TENANT_BASE = 1000; // customer tenant ids: TENANT_BASE + k
const USER_BASE = 100_000; // user ids: USER_BASE + k * USERS_PER_TENANT + j (j = 0 is the main account)
const DAYS = 180;
const ACTIONS = [
  'login',
  'login',
  'login',
  'login',
  'logout',
  'device.edit',
  'device.edit',
  'device.bind',
  'device.unbind',
  'device.move',
  'device.restart',
  'device.sync',
  'device-group.add',
  'device-group.edit',
  'device-group.delete',
  'profile.update',
  'profile.avatar',
  'password.change',
  'subAccount.create',
  'subAccount.update',
  'subAccount.disable',
  'integration.key.create',
  'integration.key.update',
  'integration.key.rotate',
  'identity.submit',
  'access.denied',
  'session.revoke',
  'role.update',
  'department.add',
  'user.update',
];

async function load(db: Db): Promise<void> {
  let t0 = performance.now();
  await sql`INSERT INTO tenants (id, kind, name, auth_status)
    SELECT ${TENANT_BASE} + k, 'enterprise', 'tenant_' || k, 1 FROM generate_series(0, ${TENANTS - 1}) k`.execute(db);
  await sql`INSERT INTO users (id, tenant_id, username, mobile, password_hash, is_super)
    SELECT ${USER_BASE} + k * ${USERS_PER_TENANT} + j, ${TENANT_BASE} + k, 'u' || k || '_' || j, NULL, 'not-a-hash',
      CASE WHEN j = 0 THEN 1 ELSE 0 END
    FROM generate_series(0, ${TENANTS - 1}) k, generate_series(0, ${USERS_PER_TENANT - 1}) j`.execute(db);
  await sql`INSERT INTO sessions (id, tenant_id, user_id)
    SELECT gen_random_uuid(), tenant_id, id FROM users WHERE is_super = 1 AND id >= ${USER_BASE}`.execute(db);
  await sql`SELECT setval('tenants_id_seq', (SELECT max(id) FROM tenants))`.execute(db);
  await sql`SELECT setval('users_id_seq', (SELECT max(id) FROM users))`.execute(db);
  log(`  ${TENANTS} tenants, ${TENANTS * USERS_PER_TENANT} users: ${secs(t0)}`);

  // Bulk load without the secondary indexes, then build them once (their definitions read back from the catalogue).
  const { rows: indexes } = await sql<{ name: string; def: string }>`
    SELECT indexname AS name, indexdef AS def FROM pg_indexes
    WHERE tablename = 'audit_log' AND indexname NOT IN (SELECT conname FROM pg_constraint)`.execute(db);
  for (const i of indexes) await sql`DROP INDEX ${sql.id(i.name)}`.execute(db);
  await sql`ALTER TABLE audit_log SET UNLOGGED`.execute(db);
  const actions = sql.raw(`ARRAY[${ACTIONS.map((a) => `'${a}'`).join(',')}]`);
  const CHUNK = 1_000_000;
  t0 = performance.now();
  for (let from = 1; from <= ENTRIES; from += CHUNK) {
    const to = Math.min(ENTRIES, from + CHUNK - 1);
    // Tenant k = floor(TENANTS * u²) (skewed: the largest ~7 %, the smallest a few thousand); entries spread
    // evenly over DAYS; 3 % refused access (denied), a tenth of the sign-ins failed, 1 % of the first action's
    // failures of no known account (no tenant), the rest ok.
    await sql`
      INSERT INTO audit_log (at, tenant_id, user_id, ip, action, resource, resource_id, result, subject, details)
      SELECT now() - (r1 * ${DAYS}) * interval '1 day',
        CASE WHEN a = 1 AND r2 >= 0.99 THEN NULL ELSE ${TENANT_BASE} + k END,
        CASE WHEN a = 1 AND r2 >= 0.99 THEN NULL ELSE ${USER_BASE} + k * ${USERS_PER_TENANT} + (n % ${USERS_PER_TENANT}) END,
        '10.' || (n % 250) || '.' || (k % 250) || '.' || (n % 199),
        (${actions})[a],
        CASE WHEN a = 26 THEN 'route' WHEN a >= 6 AND a <= 15 THEN 'device' WHEN a >= 16 THEN 'user' ELSE '' END,
        CASE WHEN a = 26 THEN 'GET /apiAdmin/system/log/list' WHEN a >= 6 THEN (k * 5000 + n % 5000)::text ELSE '' END,
        CASE WHEN a = 26 THEN 'denied' WHEN r2 >= 0.9 AND a <= 4 THEN 'fail' ELSE 'ok' END,
        CASE WHEN a <= 4 THEN 'u' || k || '_' || (n % ${USERS_PER_TENANT}) ELSE '' END,
        CASE WHEN a >= 6 THEN jsonb_build_object('changes', jsonb_build_object('name',
          jsonb_build_object('before', 'Printer ' || (n % 997), 'after', 'Printer ' || (n % 991))))
          WHEN a <= 4 THEN jsonb_build_object('device', 'Chrome 120 · Windows') ELSE '{}'::jsonb END
      FROM (
        SELECT n,
          floor(${TENANTS} * power(((n::bigint * 2654435761) % 4294967296) / 4294967296.0, 2))::int AS k,
          ((n::bigint * 40503) % 65536) / 65536.0 AS r1,
          ((n::bigint * 69069 + 1) % 1000003) / 1000003.0 AS r2,
          CASE WHEN ((n::bigint * 69069 + 1) % 1000003) / 1000003.0 >= 0.97 THEN 26
            ELSE 1 + ((n::bigint * 48271) % 2147483647) % ${ACTIONS.length} END AS a
        FROM generate_series(${from}::bigint, ${to}::bigint) n
      ) s`.execute(db);
    log(`  ${to.toLocaleString('en')} entries: ${secs(t0)}`);
  }
  await sql`ALTER TABLE audit_log SET LOGGED`.execute(db);
  log(`  entries written (and logged): ${secs(t0)}`);
  t0 = performance.now();
  for (const i of indexes) await sql.raw(i.def).execute(db);
  log(`  ${indexes.length} secondary indexes rebuilt: ${secs(t0)}`);
  t0 = performance.now();
  await sql`VACUUM ANALYZE audit_log`.execute(db);
  await sql`ANALYZE`.execute(db);
  log(`  vacuum analyze: ${secs(t0)}`);
  const { rows: size } = await sql<{ heap: string; idx: string; n: string }>`
    SELECT pg_size_pretty(pg_relation_size('audit_log')) AS heap, pg_size_pretty(pg_indexes_size('audit_log')) AS idx,
      (SELECT reltuples::bigint FROM pg_class WHERE relname = 'audit_log')::text AS n`.execute(db);
  log(`  audit_log: ~${Number(size[0].n).toLocaleString('en')} rows, ${size[0].heap} heap, ${size[0].idx} indexes`);
}

async function main() {
  log(
    `system-log bench: ${ENTRIES.toLocaleString('en')} entries, ${TENANTS} tenants, ${os.cpus().length} CPUs, Node ${process.version}, load average ${loadAverage()}`,
  );
  const t0 = performance.now();
  const scale = await startScaleDatabase('log');
  const { db, url } = scale;
  try {
    await load(db);
    const app = await scale.app();
    const tokens = await scale.tokens();
    // staff: the seeded admin, with a session of its own
    const adminRow = await db
      .selectFrom('users')
      .select(['id', 'tenant_id'])
      .where('username', '=', 'admin')
      .executeTakeFirstOrThrow();
    const staffSession = crypto.randomUUID();
    await db
      .insertInto('sessions')
      .values({ id: staffSession, tenant_id: adminRow.tenant_id, user_id: adminRow.id })
      .execute();
    const staff = {
      user: await loadAuthUser(db, adminRow.id, adminRow.tenant_id, staffSession),
      token: await tokens.sign({ userId: adminRow.id, tenantId: adminRow.tenant_id, sessionId: staffSession }),
    };
    const sessions = await db
      .selectFrom('sessions')
      .select(['id', 'tenant_id', 'user_id'])
      .where('user_id', '>=', USER_BASE)
      .execute();
    const customers = await Promise.all(
      sessions.map(async (s) => ({
        tenantId: s.tenant_id,
        user: await loadAuthUser(db, s.user_id, s.tenant_id, s.id),
        token: await tokens.sign({ userId: s.user_id, tenantId: s.tenant_id, sessionId: s.id }),
      })),
    );
    const { bySize, sizeList } = await tenantsBySize(db, 'audit_log', customers);
    log(
      `tenant sizes: largest ${sizeList[0].toLocaleString('en')}, median ${sizeList[Math.floor(sizeList.length / 2)].toLocaleString('en')}, smallest ${sizeList.at(-1)!.toLocaleString('en')}`,
    );

    // Deterministic pseudo-random choices, so two runs ask the same questions.
    let seedN = 42;
    const rnd = () => (seedN = (seedN * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    const DAY_MS = 86_400_000;
    const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
    /** A cursor 30–150 days back: the key of an entry the user would reach by paging that far. */
    const deepCursor = () => `${Math.floor((Date.now() - (30 + rnd() * 120) * DAY_MS) * 1000)}.9000000000000000`;
    const userName = () => {
      const k = Math.floor(rnd() * TENANTS);
      return `u${k}_${1 + Math.floor(rnd() * (USERS_PER_TENANT - 1))}`;
    };
    type Mix = [string, 'staff' | 'customer', () => string];
    const mixes: Mix[] = [
      ['staff: no filter', 'staff', () => ''],
      ['staff: by user (name)', 'staff', () => `user=${userName()}`],
      ['staff: by action (device.edit)', 'staff', () => 'action=device.edit'],
      ['staff: by action prefix (subAccount.)', 'staff', () => 'action=subAccount.'],
      ['staff: by result (denied)', 'staff', () => 'result=denied'],
      ['staff: by result (fail)', 'staff', () => 'result=fail'],
      [
        'staff: time range (one day)',
        'staff',
        () => {
          const back = (1 + rnd() * 170) * DAY_MS;
          return `from=${iso(back)}&to=${iso(back - DAY_MS)}`;
        },
      ],
      ['staff: object (device id)', 'staff', () => `resource=device&resourceId=${Math.floor(rnd() * TENANTS * 5000)}`],
      ['customer: own tenant, no filter', 'customer', () => ''],
      ['customer: own tenant, by action (login)', 'customer', () => 'action=login'],
      ['customer: own tenant, by result (fail)', 'customer', () => 'result=fail'],
      [
        'customer: own tenant, one week',
        'customer',
        () => {
          const back = (7 + rnd() * 170) * DAY_MS;
          return `from=${iso(back)}&to=${iso(back - 7 * DAY_MS)}`;
        },
      ],
    ];
    const listUrl = (q: string) => `/apiAdmin/system/log/list?pageSize=20${q ? `&${q}` : ''}`;
    const tokenFor = (who: 'staff' | 'customer') => (who === 'staff' ? staff.token : pick(customers).token);

    // warm-up
    for (const [, who, q] of mixes)
      for (let i = 0; i < 5; i++) await measureInject(app, 'warm-up', [{ url: listUrl(q()), token: tokenFor(who) }]);

    const results: Sample[] = [];
    results.push(await bareRouteReference(REQUESTS * 4));
    const allFirst: number[] = [];
    const allDeep: number[] = [];
    for (const [name, who, q] of mixes) {
      const first = await measureInject(
        app,
        `${name}, first page`,
        Array.from({ length: REQUESTS }, () => ({ url: listUrl(q()), token: tokenFor(who) })),
      );
      const deep = await measureInject(
        app,
        `${name}, deep page`,
        Array.from({ length: REQUESTS }, () => ({
          url: listUrl(`${q()}&cursor=${deepCursor()}`),
          token: tokenFor(who),
        })),
      );
      allFirst.push(...first.ms);
      allDeep.push(...deep.ms);
      results.push(first, deep);
      log(
        `  measured ${name} (rows per page: ${(first.rows / REQUESTS).toFixed(1)} / ${(deep.rows / REQUESTS).toFixed(1)})`,
      );
    }
    results.push({ name: 'all searches: first pages', ms: allFirst });
    results.push({ name: 'all searches: deep pages', ms: allDeep });

    // The cost of writing an entry: the insert alone into the 10M-row table with its six indexes, and a change
    // route that writes one (profile edit: the update reads its values before, then the insert).
    const c = bySize[0];
    let n = 0;
    results.push(
      await measureFn('write: audit() insert alone', REQUESTS, () =>
        audit(db, {
          tenantId: c.tenantId,
          userId: c.user.id,
          ip: '10.0.0.1',
          action: 'profile.update',
          resource: 'user',
          resourceId: c.user.id,
          result: 'ok',
          changes: changedFields({ nickname: 'a' }, { nickname: `b${n++}` }),
        }),
      ),
    );
    results.push(
      await measureInject(
        app,
        'write: POST updateProfile (update + audit insert)',
        Array.from({ length: REQUESTS }, (_, i) => ({
          method: 'POST' as const,
          url: '/apiAdmin/user/v1/user/updateProfile',
          token: c.token,
          payload: { nickname: `N${i}`, email: '' },
        })),
      ),
    );
    results.push(
      await measureFn('write: the same update without the audit insert (SQL)', REQUESTS, async () => {
        await c.user.scope
          .updateTable('users')
          .set({ nickname: `M${n++}`, email: '' })
          .where('users.id', '=', c.user.id)
          .execute();
      }),
    );

    log(
      `\nload average now ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    for (const r of results) log(formatSample(r, 58, 50));

    if (!args['no-explain']) {
      // The SQL the list really sends (captured from the service), explained.
      const spy = queryExplainer(url);
      const service = new SystemLogService(spy.db as unknown as Db);
      const asSpy = (u: AuthUser): AuthUser => ({ ...u, scope: new TenantScope(spy.db, u.tenantId) });
      log(`\nEXPLAIN ANALYZE of the list's SQL (first page, then a deep page): scans and time`);
      for (const [name, who, q] of mixes) {
        for (const deep of [false, true]) {
          const u = asSpy(who === 'staff' ? staff.user : bySize[0].user);
          const query = `pageSize=20&${q()}${deep ? `&cursor=${deepCursor()}` : ''}`;
          await spy.explain(
            name,
            () => service.list(u, systemLogQuery.parse(Object.fromEntries(new URLSearchParams(query)))),
            (text) => (/count\(\*\)/.test(text) ? 'count' : deep ? 'deep ' : 'page '),
            /WITH RECURSIVE|from "users" where lower/i,
          );
        }
      }
      await spy.close();
    }
  } finally {
    await scale.close();
  }
  log(`\ntotal ${secs(t0)}`);
}

await main();
