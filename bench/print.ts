/**
 * Cloud printing under load (issue 5): the server (embedded PostgreSQL with fsync on, the embedded Aedes broker,
 * ephemeral ports) runs in a child process; this process signs open-API calls like an integrator's software and
 * runs 1,000 simulated printers. It reports accepted submits per second (each one a durable commit of its job
 * row), with the printers offline and then online and printing, submit → printed latency at steady rates, and
 * what one job costs (CPU of each process, PostgreSQL commits and WAL flushes), beside references measured in
 * the same run: a bare Fastify route in its own process (same client, same body) and bare durable INSERT
 * commits on the same PostgreSQL.
 *
 *   node --import tsx bench/print.ts [--printers 1000] [--submits 5000] [--concurrency 64] [--rate 200] [--steady 30] [--line-ms 0]
 *
 * BENCH_CPU_PROF=<dir> makes the server process write a CPU profile there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { createDb } from '../apps/server/src/db/database.ts';
import { createFleet } from '../apps/device-sim/src/fleet.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { signedFetch, type OpenKey } from '../apps/server/test/open-client.ts';
import { ensureServerBuilt, SERVER_NODE_FLAGS, serverEntry } from '../scripts/server-build.mjs';

const { values: args } = parseArgs({
  options: {
    bare: { type: 'boolean', default: false },
    printers: { type: 'string', default: '1000' },
    submits: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '64' },
    rate: { type: 'string', default: '200' },
    steady: { type: 'string', default: '30' },
    'line-ms': { type: 'string', default: '0' },
  },
});
const log = (m: string) => process.stdout.write(`${m}\n`);

// ---------------------------------------------------------------------------------------------------------------

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`;
const pp = (xs: number[]) => `p50 ${ms(quantile(xs, 0.5))} / p99 ${ms(quantile(xs, 0.99))}`;
const perS = (n: number, s: number) => `${Math.round(n / s).toLocaleString('en-US')}/s`;

/** CPU seconds (user + system) a process has used. */
function cpuSeconds(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** The processes of one PostgreSQL instance: its postmaster (the parent of a backend) and the postmaster's children. */
function postgresPids(postmaster: number): number[] {
  const out = [postmaster];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (ppid === postmaster) out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}
/**
 * CPU seconds used by one PostgreSQL instance's processes, sampled twice a second so that a backend that has
 * exited still counts (with its last reading); processes are told apart by pid and start time.
 */
function postgresCpu(postmaster: number): { read(): number; stop(): void } {
  const last = new Map<string, number>();
  const sample = () => {
    for (const p of postgresPids(postmaster)) {
      try {
        const f = fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
        last.set(`${p}:${f[19]}`, (Number(f[11]) + Number(f[12])) / 100);
      } catch {
        // gone: its last reading stays
      }
    }
  };
  const timer = setInterval(sample, 500);
  timer.unref();
  return {
    read() {
      sample();
      return [...last.values()].reduce((a, b) => a + b, 0);
    },
    stop: () => clearInterval(timer),
  };
}
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** Runs `n` calls of `fn` with `concurrency` in flight; answers the wall time in seconds and the failures. */
async function closedLoop(
  n: number,
  concurrency: number,
  fn: (i: number) => Promise<boolean>,
): Promise<{ seconds: number; failed: number }> {
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < n; i = next++) if (!(await fn(i).catch(() => false))) failed++;
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, failed };
}

/**
 * Starts `rate` calls a second for `seconds` (an open loop: a slow answer does not slow the arrivals). At most
 * `maxInFlight` are on the wire, as an integrator's connection pool would allow; a call waiting for a slot is
 * late, and `fn` gets its scheduled start so that the wait counts in its latency.
 */
async function openLoop(
  rate: number,
  seconds: number,
  fn: (i: number, scheduledAt: number) => Promise<void>,
  maxInFlight = 256,
): Promise<void> {
  const total = Math.round(rate * seconds);
  const all: Promise<void>[] = [];
  const waiting: Array<() => void> = [];
  let inFlight = 0;
  const slot = async () => {
    while (inFlight >= maxInFlight) await new Promise<void>((r) => waiting.push(r));
    inFlight++;
  };
  const release = () => {
    inFlight--;
    waiting.shift()?.();
  };
  const t0 = performance.now();
  let launched = 0;
  while (launched < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * rate) + 1);
    for (; launched < due; launched++) {
      const i = launched;
      const scheduledAt = t0 + (i * 1000) / rate;
      all.push(
        slot()
          .then(() => fn(i, scheduledAt))
          .catch(() => {})
          .finally(release),
      );
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.all(all);
}

/** Latencies of the bare route at `rate` for up to 10 s. */
async function bareLatency(call: (i: number) => Promise<boolean>, rate: number, seconds: number): Promise<number[]> {
  const out: number[] = [];
  await openLoop(rate, Math.min(seconds, 10), async (i, at) => {
    await call(i);
    out.push(performance.now() - at);
  });
  return out;
}

const receipt = (originId: string) =>
  `<C><B>Noodle House</B></C>\n<C>Order ${originId}</C>\n<HR>\n2 x beef noodles        24.00\n1 x green tea            6.00\n<HR>\n<R><B>Total 30.00</B></R>\n<QR>https://example.com/o/${originId}</QR>\n<CUT>`;

interface Child {
  child: ChildProcess;
  info: Record<string, string>;
}

/** This file again in a child process with `flag`; resolves with the JSON line it prints when ready. */
async function startChild(flag: '--serve' | '--bare', env: Record<string, string>): Promise<Child> {
  // BENCH_CPU_PROF=<dir>: the server writes a CPU profile there when it stops (open it in Chrome's DevTools)
  const prof =
    flag === '--serve' && process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
  // the server compiled, as `npm start` runs it; the bare route from this file
  if (flag === '--serve') await ensureServerBuilt();
  // BENCH_SERVER_FLAGS: Node flags to try on the server, beside the ones npm start uses
  const tried = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const argv =
    flag === '--serve'
      ? [...SERVER_NODE_FLAGS, ...tried, ...prof, serverEntry('supervised')]
      : ['--import', 'tsx', import.meta.filename, flag];
  const child = spawn(process.execPath, argv, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout! });
    rl.on('line', (l) => l.startsWith('{') && resolve(l));
    child.once('exit', (code) => reject(new Error(`${flag} exited with ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

async function stopChild(c: Child): Promise<void> {
  c.child.stdin!.write('stop\n');
  await new Promise((r) => c.child.once('exit', r));
}

async function main(): Promise<void> {
  const PRINTERS = Number(args.printers);
  const SUBMITS = Number(args.submits);
  const C = Number(args.concurrency);
  const RATE = Number(args.rate);
  const STEADY = Number(args.steady);
  const LINE_MS = Number(args['line-ms']);
  log(
    `printing benchmark: ${PRINTERS} printers, ${SUBMITS} submits at concurrency ${C}, then ${RATE} jobs/s for ${STEADY} s; ${os.cpus().length} CPUs, Node ${process.version}`,
  );
  const loadAtStart = os.loadavg()[0];
  const body = (originId: string, sn: string) => ({ deviceSn: sn, content: receipt(originId), copies: 1, originId });

  // reference: a bare Fastify route in its own process, called by the same client with the same body
  log('reference: bare Fastify …');
  const bare = await startChild('--bare', {});
  const bareUrl = bare.info.url;
  const bareKey: OpenKey = { appId: 'bare', secret: 'bare' };
  const bareCall = (i: number) =>
    signedFetch(bareUrl, bareKey, 'POST', '/open/v1/print', body(`warm-${i}`, 'BENCH-00001')).then(
      (r) => r.status === 200,
    );
  await closedLoop(500, C, bareCall);
  const bareRun = await closedLoop(SUBMITS, C, bareCall);
  // (it stays up: its latency is measured again right before each steady phase)

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-print-'));
  const srv = await startChild('--serve', {
    DATA_DIR: dataDir,
    PORT: '0',
    MQTT_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    CAPTCHA_PROVIDER: 'off',
    ADMIN_PASSWORD: 'BenchAdmin123',
    // one key carries the whole load here; its per-second limit (50 by default) is a product setting, not a capacity
    OPEN_RATE_LIMIT: '100000',
  });
  const { url, mqttUrl, databaseUrl } = srv.info;
  const pid = srv.child.pid!;
  const db = createDb(databaseUrl, C);
  let fleet: Awaited<ReturnType<typeof createFleet>> | undefined;
  let pgCpu: ReturnType<typeof postgresCpu> | undefined;
  try {
    const settings = Object.fromEntries(
      await Promise.all(
        ['synchronous_commit', 'fsync', 'wal_sync_method', 'full_page_writes', 'shared_buffers'].map(
          async (n) =>
            [n, (await sql<Record<string, string>>`SELECT current_setting(${n}) AS v`.execute(db)).rows[0].v] as const,
        ),
      ),
    );
    log(
      `PostgreSQL: ${Object.entries(settings)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
    );

    // reference: bare durable commits on the same database, one row the size of a job, same concurrency
    await sql`CREATE TABLE bench_commit (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), origin_id text NOT NULL, payload bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`.execute(
      db,
    );
    const payload = Buffer.alloc(600, 7);
    const commitRun = await closedLoop(SUBMITS, C, async (i) => {
      await sql`INSERT INTO bench_commit (origin_id, payload) VALUES (${`o-${i}`}, ${payload}) RETURNING id`.execute(
        db,
      );
      return true;
    });
    await sql`DROP TABLE bench_commit`.execute(db);

    // a customer, its app key, its printers (registered and bound; they connect after the first phase)
    const tenant = await db
      .insertInto('tenants')
      .values({ kind: 'enterprise', name: 'bench', auth_status: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const key: OpenKey = {
      appId: `ak${randomBytes(8).toString('hex')}`,
      secret: randomBytes(30).toString('base64url'),
    };
    await db
      .insertInto('app_keys')
      .values({ tenant_id: tenant.id, app_id: key.appId, secret: key.secret, name: 'bench' })
      .execute();
    const specs = makeSpecs(PRINTERS, { seed: 55, prefix: 'BENCHP' });
    await registerInDb(db, specs);
    await bindInDb(
      db,
      tenant.id,
      specs.map((s) => s.sn),
    );
    fleet = await createFleet({
      url: mqttUrl,
      specs,
      seed: 55,
      heartbeatS: 30,
      rampPerSecond: 500,
      printLineMs: LINE_MS,
      randomFaults: false,
      start: false,
    });

    // when each job came out of its printer (the simulator's clock is this process's)
    const printedAt = new Map<string, number>();
    for (const d of fleet.devices) d.on('printed', (m: { id: string }) => printedAt.set(m.id, performance.now()));
    const submit = (originId: string, i: number) =>
      signedFetch(url, key, 'POST', '/open/v1/print', body(originId, specs[(i * 7919) % PRINTERS].sn));
    const recorded = async (prefix: string) =>
      (
        await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM print_jobs WHERE origin_id LIKE ${`${prefix}%`} AND state = 'printed'`.execute(
          db,
        )
      ).rows[0].n;
    /** Waits until the jobs came out of their printers and the server recorded them `printed`; answers how many did. */
    const allPrinted = async (prefix: string, ids: string[], timeoutMs: number) => {
      const end = Date.now() + timeoutMs;
      while (Date.now() < end && ids.some((id) => !printedAt.has(id))) await new Promise((r) => setTimeout(r, 100));
      while (Date.now() < end && (await recorded(prefix)) < ids.length) await new Promise((r) => setTimeout(r, 200));
      return { printed: ids.filter((id) => printedAt.has(id)).length, recorded: await recorded(prefix) };
    };

    // what a job costs: CPU of each process, PostgreSQL commits and WAL flushes, between two readings
    const backend = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0].pid;
    const postmaster = Number(fs.readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
    const pg = postgresCpu(postmaster);
    pgCpu = pg;
    const counters = async () => {
      const commits = Number(
        (
          await sql<{
            n: string;
          }>`SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`.execute(db)
        ).rows[0].n,
      );
      // PostgreSQL 18 counts WAL fsyncs in pg_stat_io, earlier versions in pg_stat_wal
      const walSyncs = await sql<{ n: string }>`SELECT sum(fsyncs) AS n FROM pg_stat_io WHERE object = 'wal'`
        .execute(db)
        .then((r) => Number(r.rows[0].n))
        .catch(() =>
          sql<{ n: string }>`SELECT wal_sync AS n FROM pg_stat_wal`.execute(db).then((r) => Number(r.rows[0].n)),
        )
        .catch(() => NaN);
      return { commits, walSyncs, server: cpuSeconds(pid), postgres: pg.read(), bench: ownCpu() };
    };
    type Counters = Awaited<ReturnType<typeof counters>>;
    /** What the online fleet costs a second with no job at all (heartbeats, sweeps, flushes), for `costOf`. */
    type Idle = { commits: number; walSyncs: number; postgres: number; server: number };
    const costOf = (a: Counters, b: Counters, jobs: number, seconds: number, idle?: Idle) => {
      const per = (k: 'server' | 'postgres' | 'bench') => ms(((b[k] - a[k]) * 1000) / Math.max(1, jobs));
      const line =
        `CPU per job: server ${per('server')}, PostgreSQL ${per('postgres')}, this process ${per('bench')}; per job ${((b.commits - a.commits) / Math.max(1, jobs)).toFixed(1)} ` +
        `commits, ${((b.walSyncs - a.walSyncs) / Math.max(1, jobs)).toFixed(2)} WAL fsyncs; server at ${(((b.server - a.server) / seconds) * 100).toFixed(0)} % of one core`;
      if (!idle) return line;
      // the same with the idle fleet's own rate over the phase's seconds taken out
      const net = (k: keyof Idle) => (b[k] - a[k] - idle[k] * seconds) / Math.max(1, jobs);
      return (
        `${line}; net of the idle fleet: ${net('commits').toFixed(1)} commits, ${net('walSyncs').toFixed(2)} WAL fsyncs, ` +
        `PostgreSQL ${ms(net('postgres') * 1000)}, server ${ms(net('server') * 1000)} per job`
      );
    };
    const pause = (msWait: number) => new Promise((r) => setTimeout(r, msWait));

    // 1. accepted submits per second, printers offline: the submit alone (signature, nonce, job row), jobs queued
    const warmIds: string[] = [];
    await closedLoop(Math.min(300, SUBMITS), C, async (i) => {
      const r = await submit(`queued-warm-${i}`, i);
      if (r.status === 200) warmIds.push(r.body!.data.id);
      return r.status === 200;
    });
    log(`${SUBMITS} submits at concurrency ${C}, printers offline …`);
    let c0 = await counters();
    const queuedIds: string[] = [];
    const queuedRun = await closedLoop(SUBMITS, C, async (i) => {
      const r = await submit(`queued-${i}`, i);
      if (r.status === 200) queuedIds.push(r.body!.data.id);
      return r.status === 200;
    });
    const queuedCost = costOf(c0, await counters(), queuedIds.length, queuedRun.seconds);

    // 2. the printers connect: each hello sends its queued jobs, in order
    log(`connecting ${PRINTERS} printers to ${mqttUrl}; their queued jobs follow …`);
    c0 = await counters();
    let t0 = performance.now();
    await fleet.start();
    const online = fleet.stats().online;
    const drain = await allPrinted('queued-', [...warmIds, ...queuedIds], 300_000);
    const drainS = (performance.now() - t0) / 1000;
    const drainCost = costOf(c0, await counters(), drain.recorded, drainS);
    await pause(3000);

    // 3. accepted submits per second, printers online: each job also goes down, is acknowledged, printed, recorded
    log(`${SUBMITS} submits at concurrency ${C}, printers online …`);
    c0 = await counters();
    t0 = performance.now();
    const burstIds: string[] = [];
    const burstRun = await closedLoop(SUBMITS, C, async (i) => {
      const r = await submit(`burst-${i}`, i);
      if (r.status === 200) burstIds.push(r.body!.data.id);
      return r.status === 200;
    });
    const burst = await allPrinted('burst-', burstIds, 300_000);
    const burstS = (performance.now() - t0) / 1000;
    const burstEnd = await counters();
    const burstCost = costOf(c0, burstEnd, burst.recorded, burstS);
    const burstCommits = (burstEnd.commits - c0.commits) / Math.max(1, burst.recorded);
    await pause(3000);

    // 4. steady rates: submit → answered, → printed on the printer, → `printed` recorded by the server; the rate
    // asked for, and first a rate this machine sustains (40 % of the end-to-end rate of phase 3) for the latency
    // of an unsaturated server
    const steadyAt = async (rate: number, prefix: string) => {
      log(`${rate} jobs/s for ${STEADY} s …`);
      const answer: number[] = [];
      const sentAt = new Map<string, number>();
      let refusedN = 0;
      let noAnswer = 0;
      const bareLat = await bareLatency(bareCall, rate, STEADY);
      const a = await counters();
      const from = performance.now();
      await openLoop(rate, STEADY, async (i, start) => {
        try {
          const r = await submit(`${prefix}${i}`, i);
          answer.push(performance.now() - start);
          if (r.status === 200) sentAt.set(r.body!.data.id, start);
          else refusedN++;
        } catch {
          noAnswer++;
        }
      });
      const ids = [...sentAt.keys()];
      const done = await allPrinted(prefix, ids, 300_000);
      const cost = costOf(a, await counters(), done.recorded, (performance.now() - from) / 1000, idle);
      const toPrinted = ids.filter((id) => printedAt.has(id)).map((id) => printedAt.get(id)! - sentAt.get(id)!);
      const { rows } = await sql<{ ms: number }>`
        SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM print_jobs WHERE origin_id LIKE ${`${prefix}%`} AND state = 'printed'`.execute(
        db,
      );
      const failures = `${refusedN ? `, ${refusedN} refused` : ''}${noAnswer ? `, ${noAnswer} without an answer` : ''}`;
      return {
        rate,
        bareLat,
        answer,
        failures,
        toPrinted,
        toRecorded: rows.map((r) => Number(r.ms)),
        printed: done.printed,
        asked: ids.length,
        cost,
      };
    };
    // the online fleet's own cost with no job, for the steady phases' figures net of it
    const i0 = await counters();
    const idleFrom = performance.now();
    await pause(5000);
    const i1 = await counters();
    const idleS = (performance.now() - idleFrom) / 1000;
    const idle = {
      commits: (i1.commits - i0.commits) / idleS,
      walSyncs: (i1.walSyncs - i0.walSyncs) / idleS,
      postgres: (i1.postgres - i0.postgres) / idleS,
      server: (i1.server - i0.server) / idleS,
    };
    const lowRate = Math.max(5, Math.round((burst.recorded / burstS) * 0.4));
    const low = await steadyAt(lowRate, 'low-');
    await pause(3000);
    const high = await steadyAt(RATE, 'steady-');
    const { rows: states } = await sql<{
      state: string;
      n: number;
    }>`SELECT state, count(*)::int AS n FROM print_jobs GROUP BY state ORDER BY state`.execute(db);
    const repeats = fleet.stats().printsReceived - fleet.stats().printed;
    const printedIds = fleet.devices.flatMap((d) => d.printed.map((p) => p.id));
    const printedTwice = printedIds.length - new Set(printedIds).size;
    const refused = (n: number) => (n ? `, ${n} refused or without an answer` : '');

    log('');
    log('| figure | this run | reference (same run) |');
    log('|---|---|---|');
    log(
      `| durability | synchronous_commit=${settings.synchronous_commit}, fsync=${settings.fsync} (${settings.wal_sync_method}): a submit is answered after its job row is on disk | – |`,
    );
    log(
      `| accepted submits, printers offline (jobs queued) | ${perS(queuedIds.length, queuedRun.seconds)} (${queuedIds.length} in ${queuedRun.seconds.toFixed(1)} s at concurrency ` +
        `${C}${refused(queuedRun.failed)}) | bare Fastify route ${perS(SUBMITS - bareRun.failed, bareRun.seconds)}; bare durable INSERT commits ${perS(SUBMITS, commitRun.seconds)} |`,
    );
    log(
      `| printers connect, queued jobs printed | ${online} of ${PRINTERS} online; ${drain.printed} printed, ${drain.recorded} recorded ` +
        `\`printed\` after ${drainS.toFixed(1)} s: ${perS(drain.recorded, drainS)} | – |`,
    );
    log(
      `| accepted submits, printers online and printing | ${perS(burstIds.length, burstRun.seconds)} (${burstIds.length} in ${burstRun.seconds.toFixed(1)} s${refused(burstRun.failed)}); ` +
        `all printed and recorded after ${burstS.toFixed(1)} s: ${perS(burst.recorded, burstS)} end to end | bare Fastify route ${perS(SUBMITS - bareRun.failed, bareRun.seconds)} |`,
    );
    for (const st of [low, high]) {
      log(
        `| submit answered at ${st.rate}/s | ${pp(st.answer)}${st.failures} | bare Fastify route at ${st.rate}/s ${pp(st.bareLat)} |`,
      );
      log(
        `| submit → printed on the printer at ${st.rate}/s | ${pp(st.toPrinted)} (${st.printed} of ${st.asked} printed) | – |`,
      );
      log(
        `| submit → \`printed\` recorded by the server at ${st.rate}/s | ${pp(st.toRecorded)} (the server's clock: job created → result stored) | – |`,
      );
    }
    log(
      `| machine load (1 min) | ${os.loadavg()[0].toFixed(1)} at the end (${loadAtStart.toFixed(1)} at the start) on ${os.cpus().length} CPUs | – |`,
    );
    // issue 17's figures, each beside its aim
    const bareRate = (SUBMITS - bareRun.failed) / bareRun.seconds;
    const submitRatio = queuedIds.length / queuedRun.seconds / bareRate;
    const printedMax = Math.max(drain.recorded / drainS, burst.recorded / burstS);
    const p99High = quantile(high.toPrinted, 0.99);
    const verdict = (met: boolean) => (met ? 'met' : '**not met**');
    log('');
    log('| issue 17 | this run | aim |');
    log('|---|---|---|');
    log(
      `| accepted durable submits vs the bare route | ${perS(queuedIds.length, queuedRun.seconds)} vs ${perS(SUBMITS - bareRun.failed, bareRun.seconds)}: ` +
        `${(submitRatio * 100).toFixed(0)} % | ≥ 60 % — ${verdict(submitRatio >= 0.6)} |`,
    );
    log(
      `| commits per printed job (submit with printers online → \`printed\` recorded) | ${burstCommits.toFixed(2)} | ≤ 2 — ${verdict(burstCommits <= 2)} |`,
    );
    log(
      `| printed jobs/s, the larger of the two end-to-end phases | ${Math.round(printedMax).toLocaleString('en-US')}/s | ≥ 600/s — ${verdict(printedMax >= 600)} |`,
    );
    log(
      `| submit → printed at ${high.rate}/s | ${pp(high.toPrinted)} | p99 ≤ 200 ms — ${verdict(high.toPrinted.length > 0 && p99High <= 200)} |`,
    );
    log('');
    log('What a job costs, per phase (the printers print instantly: the simulator\'s own work is in "this process"):');
    log(`- submits, printers offline: ${queuedCost}`);
    log(`- queued jobs sent on hello, printed, recorded: ${drainCost}`);
    log(`- submits with printers online, to \`printed\` recorded: ${burstCost}`);
    log(`- steady ${low.rate}/s: ${low.cost}`);
    log(`- steady ${high.rate}/s: ${high.cost}`);
    log(
      `- the online fleet with no job (5 s before the steady phases): ${idle.commits.toFixed(0)} commits/s, ` +
        `${idle.walSyncs.toFixed(1)} WAL fsyncs/s, PostgreSQL ${ms(idle.postgres * 1000)} and server ${ms(idle.server * 1000)} of CPU a second`,
    );
    log(
      `job states at the end: ${states.map((s) => `${s.state} ${s.n}`).join(', ')}; print messages that arrived again and ` +
        `were answered without printing: ${repeats}; jobs printed twice: ${printedTwice}`,
    );
  } finally {
    pgCpu?.stop();
    await fleet?.stop().catch(() => {});
    await db.destroy();
    await stopChild(srv);
    await stopChild(bare);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The reference's child process: `--bare` prints one JSON line when ready and stops on a line on stdin (or when it
// closes: the benchmark is gone), as the compiled server's `supervised` entry does.

if (args.bare) {
  const app = Fastify();
  app.post('/open/v1/print', async () => ({
    code: 200,
    msg: 'ok',
    data: { id: '00000000-0000-0000-0000-000000000000', duplicate: false },
  }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  const stop = () => app.close().then(() => process.exit(0));
  readline
    .createInterface({ input: process.stdin })
    .on('line', () => void stop())
    .on('close', () => void stop());
} else {
  await main();
  process.exit(0);
}
