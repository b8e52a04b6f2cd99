/**
 * One announcement to 100,000 users (issue 14): 100,000 users across --tenants tenants (half individual, half
 * enterprise), --notices live announcements of every audience and ~1/3 of them read by each user (notice_reads),
 * loaded with INSERT … SELECT generate_series into an embedded PostgreSQL. Two server nodes on that database
 * (each its own app, its own LISTEN connection), --streams consoles' live event streams open over real HTTP,
 * split across both nodes. Then:
 * - staff publish one announcement to everyone (node A): the time from the publish call until each stream
 *   received its `notice` event, and until each console, on hearing it, read its unread count again from its own
 *   node and saw one more (what a console does): p50 / p99 / last;
 * - `GET /notice/unreadCount` and `GET /notice/getList` for --requests random users (inject on node A), beside
 *   a bare Fastify route and a signed-in call with a trivial query (`/message/unreadCount`) measured the same way
 *   in the same run.
 *
 *   node --import tsx bench/notice.ts [--users 100000] [--tenants 2000] [--notices 20] [--streams 200] [--requests 500]
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { loadConfig } from '../apps/server/src/config.ts';
import { buildApp } from '../apps/server/src/app.ts';
import { createDb, type Db } from '../apps/server/src/db/database.ts';
import {
  bareRouteReference,
  formatSample,
  loadAverage,
  log,
  measureInject,
  pct,
  secs,
  startScaleDatabase,
  type Sample,
} from './scale.ts';

const { values: args } = parseArgs({
  options: {
    users: { type: 'string', default: '100000' },
    tenants: { type: 'string', default: '2000' },
    notices: { type: 'string', default: '20' },
    streams: { type: 'string', default: '200' },
    requests: { type: 'string', default: '500' },
  },
});
const USERS = Number(args.users);
const TENANTS = Number(args.tenants);
const NOTICES = Number(args.notices);
const STREAMS = Number(args.streams);
const REQUESTS = Number(args.requests);
const TENANT_BASE = 1000;
const AUDIENCES = ['all', 'individual', 'enterprise', 'tenants'] as const;

async function load(db: Db): Promise<void> {
  let t0 = performance.now();
  await sql`INSERT INTO tenants (id, kind, name, auth_status)
    SELECT ${TENANT_BASE} + k, CASE WHEN k % 2 = 0 THEN 'individual' ELSE 'enterprise' END, 'tenant_' || k, 1
    FROM generate_series(0, ${TENANTS - 1}) k`.execute(db);
  await sql`SELECT setval('tenants_id_seq', (SELECT max(id) FROM tenants))`.execute(db);
  // users spread over the tenants; the first of each tenant its main account
  await sql`INSERT INTO users (tenant_id, username, mobile, password_hash, is_super)
    SELECT ${TENANT_BASE} + (n % ${TENANTS}), 'bench_' || n, NULL, 'not-a-hash', CASE WHEN n < ${TENANTS} THEN 1 ELSE 2 END
    FROM generate_series(0, ${USERS - 1}) n`.execute(db);
  await sql`INSERT INTO sessions (id, tenant_id, user_id)
    SELECT gen_random_uuid(), tenant_id, id FROM users WHERE username LIKE 'bench\\_%'`.execute(db);
  await sql`INSERT INTO sessions (id, tenant_id, user_id)
    SELECT gen_random_uuid(), tenant_id, id FROM users WHERE username = 'admin'`.execute(db);
  log(`  ${TENANTS} tenants, ${USERS.toLocaleString('en')} users and their sessions: ${secs(t0)}`);
  t0 = performance.now();
  // live announcements of each audience (the chosen-tenant ones name 50 tenants each), published over the last days
  await sql`INSERT INTO notices (title, body_html, state, audience, tenant_ids, pinned, published_at, announced_at)
    SELECT 'Notice ' || i, '<p>Body of notice ' || i || '</p>', 'published',
      (ARRAY['all', 'individual', 'enterprise', 'tenants'])[1 + i % ${AUDIENCES.length}],
      CASE WHEN i % 4 = 3 THEN ARRAY(SELECT ${TENANT_BASE} + ((i * 37 + j * 41) % ${TENANTS}) FROM generate_series(0, 49) j)::bigint[] ELSE '{}' END,
      i % 7 = 0, now() - i * interval '1 hour', now()
    FROM generate_series(1, ${NOTICES}) i`.execute(db);
  // each user has read about a third of them
  await sql`INSERT INTO notice_reads (user_id, notice_id)
    SELECT u.id, n.id FROM users u, notices n WHERE u.username LIKE 'bench\\_%' AND (u.id + n.id) % 3 = 0`.execute(db);
  await sql`ANALYZE`.execute(db);
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM notice_reads`.execute(db);
  log(`  ${NOTICES} live notices, ${Number(rows[0].n).toLocaleString('en')} read marks: ${secs(t0)}`);
}

interface Stream {
  node: number;
  token: string;
  got: Promise<number>;
  close(): void;
}

/** A console's live event stream over real HTTP; `got` resolves (performance.now()) at the `notice` event of `id()`. */
async function openStream(base: string, app: FastifyInstance, token: string, id: () => number, node: number) {
  const t = await app.inject({
    method: 'POST',
    url: '/apiAdmin/device/events/ticket',
    headers: { authorization: `Bearer ${token}` },
  });
  if (t.statusCode !== 200) throw new Error(`ticket: ${t.body}`);
  const ac = new AbortController();
  const res = await fetch(`${base}/apiAdmin/device/events?ticket=${encodeURIComponent(t.json().data.ticket)}`, {
    signal: ac.signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`stream: ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const got = new Promise<number>((resolve) => {
    void (async () => {
      let buf = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buf += value;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (/^event: notice$/m.test(frame)) {
              const data = JSON.parse(/^data: (.+)$/m.exec(frame)?.[1] ?? '{}') as { id?: number };
              if (data.id === id()) resolve(performance.now());
            }
          }
        }
      } catch {
        // closed
      }
    })();
  });
  return { node, token, got, close: () => ac.abort() } satisfies Stream;
}

const summary = (name: string, ms: number[]) =>
  `${name.padEnd(58)} n=${String(ms.length).padStart(5)}  p50 ${pct(ms, 0.5).toFixed(1).padStart(7)} ms  p99 ${pct(ms, 0.99).toFixed(1).padStart(7)} ms  last ${Math.max(...ms).toFixed(1)} ms`;

async function main() {
  log(
    `notice bench: ${USERS.toLocaleString('en')} users in ${TENANTS} tenants, ${NOTICES} live notices, ${STREAMS} ` +
      `streams on 2 nodes, ${os.cpus().length} CPUs, Node ${process.version}, load average ${loadAverage()}`,
  );
  const t0 = performance.now();
  const scale = await startScaleDatabase('notice');
  const { db } = scale;
  let nodeB: FastifyInstance | undefined;
  const dbB = createDb(scale.url, 10);
  const streams: Stream[] = [];
  try {
    await load(db);
    const nodeA = await scale.app();
    nodeB = await buildApp(
      loadConfig({
        DATA_DIR: path.join(scale.dir, 'data'),
        DATABASE_URL: scale.url,
        LOG_LEVEL: 'silent',
        CAPTCHA_PROVIDER: 'off',
        NODE_ENV: 'test',
        MQTT_PORT: '0',
        SWEEP_INTERVAL_MS: '60000',
      }),
      dbB,
    );
    await nodeB.ready();
    const nodes = [nodeA, nodeB];
    const bases = [
      await nodeA.listen({ port: 0, host: '127.0.0.1' }),
      await nodeB.listen({ port: 0, host: '127.0.0.1' }),
    ];
    const tokens = await scale.tokens();
    const sessions = await db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['sessions.id', 'sessions.tenant_id', 'sessions.user_id', 'users.username'])
      .where(sql<boolean>`users.username = 'admin' or (users.id * 7919) % ${USERS} < ${STREAMS + REQUESTS}`)
      .execute();
    const sign = (s: (typeof sessions)[number]) =>
      tokens.sign({ userId: s.user_id, tenantId: s.tenant_id, sessionId: s.id });
    const admin = sessions.find((s) => s.username === 'admin')!;
    const staff = await sign(admin);
    const customers = sessions.filter((s) => s.username !== 'admin');
    const readers = await Promise.all(customers.slice(0, REQUESTS).map(sign));
    const watchers = await Promise.all(customers.slice(REQUESTS, REQUESTS + STREAMS).map(sign));
    log(`signed ${readers.length} readers and ${watchers.length} watchers`);

    // the calls a console makes, at 100k users
    const ref = await bareRouteReference(REQUESTS);
    await measureInject(
      nodeA,
      'warm-up',
      readers.slice(0, 50).map((token) => ({ url: '/apiAdmin/notice/unreadCount', token })),
    );
    const count = await measureInject(
      nodeA,
      'GET /notice/unreadCount (one user of 100k)',
      readers.map((token) => ({ url: '/apiAdmin/notice/unreadCount', token })),
    );
    const list = await measureInject(
      nodeA,
      'GET /notice/getList pageSize 10',
      readers.map((token) => ({ url: '/apiAdmin/notice/getList?pageSize=10', token })),
    );
    // the same sign-in work (token, session and permissions read) around a trivial query: what is the notice's own
    const messages = await measureInject(
      nodeA,
      'reference: GET /message/unreadCount (signed in, no messages)',
      readers.map((token) => ({ url: '/apiAdmin/message/unreadCount', token })),
    );
    for (const s of [ref, messages, count, list] as Sample[]) log(formatSample(s, 58));

    // the consoles: open streams on both nodes, and each console's unread count before
    let noticeId = 0;
    for (let i = 0; i < watchers.length; i++) {
      const node = i % 2;
      streams.push(await openStream(bases[node], nodes[node], watchers[i], () => noticeId, node));
    }
    const countOf = async (node: number, token: string) => {
      const res = await fetch(`${bases[node]}/apiAdmin/notice/unreadCount`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await res.json()) as { data: { count: number } }).data.count;
    };
    const before = await Promise.all(streams.map((s) => countOf(s.node, s.token)));
    await new Promise((r) => setTimeout(r, 500));
    log(
      `\n${streams.length} streams open (${streams.filter((s) => s.node === 0).length} on node A, the rest on B); load average ${loadAverage()}`,
    );

    const draft = await nodeA.inject({
      method: 'POST',
      url: '/apiAdmin/notice/manage/create',
      headers: { authorization: `Bearer ${staff}` },
      payload: { title: 'Maintenance tonight', bodyHtml: '<p>All printers restart at <strong>02:00</strong>.</p>' },
    });
    noticeId = draft.json().data.id;
    const tPublish = performance.now();
    const pub = await nodeA.inject({
      method: 'POST',
      url: '/apiAdmin/notice/manage/publish',
      headers: { authorization: `Bearer ${staff}` },
      payload: { id: noticeId },
    });
    const publishMs = performance.now() - tPublish;
    if (pub.statusCode !== 200) throw new Error(`publish: ${pub.body}`);
    // each console, on hearing it, reads its count again from its own node
    const shown = await Promise.all(
      streams.map(async (s, i) => {
        const heard = await s.got;
        const n = await countOf(s.node, s.token);
        if (n !== before[i] + 1) throw new Error(`console ${i}: count ${before[i]} → ${n}`);
        return { heard: heard - tPublish, shown: performance.now() - tPublish, node: s.node };
      }),
    );
    log(`publish call (one row written, whatever the audience's size): ${publishMs.toFixed(1)} ms`);
    log(
      summary(
        'notice event heard, all streams',
        shown.map((s) => s.heard),
      ),
    );
    for (const node of [0, 1])
      log(
        summary(
          `  on node ${node ? 'B (through NOTIFY)' : 'A (the publishing node)'}`,
          shown.filter((s) => s.node === node).map((s) => s.heard),
        ),
      );
    log(
      summary(
        'unread count shown (event + count read again)',
        shown.map((s) => s.shown),
      ),
    );
    log(`load average now ${loadAverage()}`);
  } finally {
    for (const s of streams) s.close();
    await nodeB?.close();
    await dbB.destroy();
    await scale.close();
  }
  log(`\ntotal ${secs(t0)}`);
}

await main();
