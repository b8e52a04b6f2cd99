/**
 * What the benchmarks at scale share (the device list, the system log): a throwaway embedded PostgreSQL with a
 * migrated, seeded database to load, the server built on it, timing helpers and percentiles.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { Kysely, PostgresDialect, sql, type CompiledQuery } from 'kysely';
import type { Database } from '../apps/server/src/db/schema.ts';
import { loadConfig } from '../apps/server/src/config.ts';
import { createDb, migrate, type Db } from '../apps/server/src/db/database.ts';
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { seed } from '../apps/server/src/seed.ts';
import { ensureSecret } from '../apps/server/src/lib/secrets.ts';
import { AccessTokens } from '../apps/server/src/lib/tokens.ts';

export const log = (m: string) => process.stdout.write(`${m}\n`);
export const secs = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export interface Sample {
  name: string;
  ms: number[];
}

export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

/** The same work without HTTP: to see where a request's time goes. */
export async function measureFn(name: string, n: number, fn: () => Promise<unknown>): Promise<Sample> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { name, ms };
}

export interface ScaleDatabase {
  dir: string;
  url: string;
  db: Db;
  /** Builds the server on the loaded database (the presence sweep set out of the measurement's way). */
  app(): Promise<FastifyInstance>;
  /** Signs access tokens as the server does. */
  tokens(): Promise<AccessTokens>;
  close(): Promise<void>;
}

/** An embedded PostgreSQL in a temporary folder with a migrated, seeded database `bench`, ready to load. */
export async function startScaleDatabase(prefix: string): Promise<ScaleDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cpc-bench-${prefix}-`));
  const t0 = performance.now();
  const embedded = await startEmbeddedPostgres(dir);
  const admin = new pg.Client(embedded.url);
  await admin.connect();
  await admin.query('CREATE DATABASE bench');
  await admin.end();
  const benchUrl = new URL(embedded.url);
  benchUrl.pathname = '/bench';
  const url = benchUrl.toString();
  const db = createDb(url, 10);
  let app: FastifyInstance | undefined;
  const close = async () => {
    await app?.close();
    await db.destroy();
    await embedded.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await migrate(db);
    await seed(db, 'BenchAdmin123');
  } catch (e) {
    await close();
    throw e;
  }
  log(`PostgreSQL up and migrated: ${secs(t0)}; loading…`);
  return {
    dir,
    url,
    db,
    async app() {
      const config = loadConfig({
        DATA_DIR: path.join(dir, 'data'),
        DATABASE_URL: url,
        LOG_LEVEL: 'silent',
        CAPTCHA_PROVIDER: 'off',
        NODE_ENV: 'test',
        MQTT_PORT: '0',
        SWEEP_INTERVAL_MS: '60000',
      });
      app = await buildApp(config, db);
      await app.ready();
      return app;
    },
    tokens: async () => new AccessTokens(await ensureSecret(db, 'jwt_secret'), 3600),
    close,
  };
}

/**
 * A database handle on `url` that remembers the SQL it sends: run a service's call on it, then `explain` prints
 * each query that call really sent, EXPLAIN ANALYZEd, as its scans and time (`kindOf` names a query in the
 * print). Only reads are explained (not a transaction's begin, set or commit), and none that `skip` matches.
 */
export function queryExplainer(url: string) {
  const captured: CompiledQuery[] = [];
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => {});
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => void (e.level === 'query' && captured.push(e.query)),
  });
  return {
    db,
    async explain(
      name: string,
      call: () => Promise<unknown>,
      kindOf: (sql: string) => string,
      skip?: RegExp,
    ): Promise<void> {
      captured.length = 0;
      await call();
      for (const c of captured.splice(0)) {
        if (!/^\s*(select|with)\b/i.test(c.sql) || skip?.test(c.sql)) continue;
        const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>({
          ...c,
          sql: `EXPLAIN (ANALYZE, BUFFERS) ${c.sql}`,
        } as CompiledQuery<{ 'QUERY PLAN': string }>);
        const plan = rows.map((r) => r['QUERY PLAN']);
        const scans = plan
          .filter((l) => /Scan|Sort Method/.test(l))
          .map((l) =>
            l
              .trim()
              .replace(/\s+\(cost=[^)]*\)/, '')
              .replace(/\(actual time=[\d.]+\.\.([\d.]+) rows=([\d.]+)[^)]*\)/, '($1 ms, $2 rows)'),
          );
        log(
          `  ${name} [${kindOf(c.sql)}] ${plan.find((l) => l.startsWith('Execution Time'))}\n      ${scans.join('\n      ')}`,
        );
      }
    },
    close: () => db.destroy(),
  };
}

export interface InjectRequest {
  url: string;
  token?: string;
  method?: 'GET' | 'POST';
  payload?: object;
}

/** Times each request through `app.inject` (a non-200 stops the run); `rows`: the list rows its JSON answers held. */
export async function measureInject(
  app: Pick<FastifyInstance, 'inject'>,
  name: string,
  requests: InjectRequest[],
): Promise<Sample & { rows: number }> {
  const ms: number[] = [];
  let rows = 0;
  for (const r of requests) {
    const t0 = performance.now();
    const res = await app.inject({
      method: r.method ?? 'GET',
      url: r.url,
      headers: r.token ? { authorization: `Bearer ${r.token}` } : {},
      ...(r.payload ? { payload: r.payload } : {}),
    });
    ms.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`${r.url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (String(res.headers['content-type']).includes('json'))
      rows += (res.json() as { data?: { list?: unknown[] } }).data?.list?.length ?? 0;
  }
  return { name, ms, rows };
}

/** One line of figures: name, count, p50 and p99; past `budgetMs` at p99 it says so. */
export function formatSample(s: Sample, width = 58, budgetMs?: number): string {
  const p99 = pct(s.ms, 0.99);
  const over = budgetMs !== undefined && p99 > budgetMs ? `  OVER ${budgetMs} ms` : '';
  return `${s.name.padEnd(width)} n=${String(s.ms.length).padStart(5)}  p50 ${pct(s.ms, 0.5).toFixed(2).padStart(7)} ms  p99 ${p99.toFixed(2).padStart(7)} ms${over}`;
}

/**
 * The reference every benchmark prints beside its figures: a bare Fastify route answering a small envelope,
 * warmed up, then timed `n` times through inject like the real calls.
 */
export async function bareRouteReference(n: number): Promise<Sample> {
  const bare = Fastify();
  bare.get('/ping', async () => ({ code: 200, msg: 'ok', data: { list: [], total: 0 } }));
  await bare.ready();
  try {
    const ping = (k: number) => Array.from({ length: k }, () => ({ url: '/ping' }));
    await measureInject(bare, 'warm-up', ping(200));
    const { name, ms } = await measureInject(bare, 'reference: bare Fastify route (inject)', ping(n));
    return { name, ms };
  } finally {
    await bare.close();
  }
}

export interface SignedSession {
  tenantId: number;
  userId: number;
  sessionId: string;
  token: string;
}

/** Access tokens for sessions of the generated data, as the server signs them. */
export function signSessions(
  tokens: AccessTokens,
  sessions: { id: string; tenant_id: number; user_id: number }[],
): Promise<SignedSession[]> {
  return Promise.all(
    sessions.map(async (s) => ({
      tenantId: s.tenant_id,
      userId: s.user_id,
      sessionId: s.id,
      token: await tokens.sign({ userId: s.user_id, tenantId: s.tenant_id, sessionId: s.id }),
    })),
  );
}

/**
 * How many rows of `table` each tenant has, and `tenants` ordered by it, largest first (the benches measure the
 * largest, the median and the smallest account).
 */
export async function tenantsBySize<T extends { tenantId: number }>(
  db: Db,
  table: 'sims' | 'devices' | 'audit_log',
  tenants: T[],
): Promise<{ sizes: Map<number, number>; bySize: T[]; sizeList: number[] }> {
  const rows = await db
    .selectFrom(table)
    .select(['tenant_id', sql<number>`count(*)`.as('n')])
    .groupBy('tenant_id')
    .execute();
  const sizes = new Map(rows.map((r) => [Number(r.tenant_id), Number(r.n)]));
  const bySize = [...tenants].sort((a, b) => (sizes.get(b.tenantId) ?? 0) - (sizes.get(a.tenantId) ?? 0));
  return { sizes, bySize, sizeList: bySize.map((t) => sizes.get(t.tenantId) ?? 0) };
}
