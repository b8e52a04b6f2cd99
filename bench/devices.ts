/**
 * The device gateway under a fleet: the server (embedded PostgreSQL and Aedes) runs in a child process, the
 * simulated fleet in another (10,000 devices at a 30 s heartbeat by default; `--fleet inline`: in this process,
 * beside the console's client and its event stream, as before), ramped to it; then it reports devices
 * connected, the server's RSS and CPU, and the command round trip console → device → succeeded (POST
 * /device/command, the device's ack and result over MQTT, the `succeeded` event on the console's SSE stream).
 * Each figure stands beside a reference measured in the same run: the server's RSS before the fleet, a bare
 * Aedes and a bare Mosquitto publish → deliver round trip, a bare Fastify route's latency.
 *
 *   node --import tsx bench/devices.ts [--devices 10000] [--ramp 250] [--heartbeat 30] [--commands 200] [--steady 60] [--load 0]
 *     [--fleet child|inline] [--reboot-delay 3]
 *
 * `--load N` runs N processes spinning on the CPU beside the whole run, references included: a loaded machine
 * that anyone can reproduce.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import readline from 'node:readline';
import Fastify from 'fastify';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { sql } from 'kysely';
import { createDb } from '../apps/server/src/db/database.ts';
import { hashPassword } from '../apps/server/src/lib/password.ts';
import { createFleet } from '../apps/device-sim/src/fleet.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { CpuSampler, describeWindow } from './cpu-sampler.ts';
import { ensureServerBuilt, SERVER_NODE_FLAGS, serverEntry } from '../scripts/server-build.mjs';

const { values: args } = parseArgs({
  options: {
    devices: { type: 'string', default: '10000' },
    ramp: { type: 'string', default: '250' },
    heartbeat: { type: 'string', default: '30' },
    commands: { type: 'string', default: '200' },
    steady: { type: 'string', default: '60' },
    load: { type: 'string', default: '0' },
    /** How long a rebooted device stays away (the simulator's default: 3 s, so it comes back during the commands). */
    'reboot-delay': { type: 'string', default: '3' },
    /** Where the simulated fleet runs: `child` (its own process, as devices are not the console's) or `inline`. */
    fleet: { type: 'string', default: 'child' },
    'fleet-child': { type: 'boolean', default: false },
  },
});
const log = (m: string) => process.stdout.write(`${m}\n`);

// ---------------------------------------------------------------------------------------------------------------

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`;
const pp = (xs: number[]) =>
  xs.length === 0 ? 'none' : `p50 ${ms(quantile(xs, 0.5))} / p99 ${ms(quantile(xs, 0.99))}`;
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}
/** CPU seconds (user + system) a process has used. */
function cpuSeconds(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Publish → deliver round trip through a broker (QoS 1), one message at a time. */
async function brokerRoundTrip(url: string, n: number): Promise<number[]> {
  const sub = await mqtt.connectAsync(url, { protocolVersion: 4, clientId: `bench-sub-${process.pid}` });
  const pub = await mqtt.connectAsync(url, { protocolVersion: 4, clientId: `bench-pub-${process.pid}` });
  await sub.subscribeAsync('bench/rt', { qos: 1 });
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const got = new Promise<void>((resolve) => sub.once('message', () => resolve()));
    await pub.publishAsync('bench/rt', JSON.stringify({ i }), { qos: 1 });
    await got;
    out.push(performance.now() - t0);
  }
  await Promise.all([sub.endAsync(), pub.endAsync()]);
  return out;
}

/** How many QoS 1 messages a second a broker carries from one publisher to one subscriber (100 on the wire at once). */
async function brokerThroughput(url: string, n = 20_000): Promise<number> {
  const sub = await mqtt.connectAsync(url, { protocolVersion: 4, clientId: `bench-tsub-${process.pid}` });
  const pub = await mqtt.connectAsync(url, { protocolVersion: 4, clientId: `bench-tpub-${process.pid}` });
  await sub.subscribeAsync('bench/tp', { qos: 1 });
  let received = 0;
  const all = new Promise<void>((resolve) => sub.on('message', () => ++received === n && resolve()));
  const payload = JSON.stringify({ t: 'heartbeat', battery: 80, signal: 70, paper: 'ok' });
  const t0 = performance.now();
  for (let i = 0; i < n; i += 100)
    await Promise.all(
      Array.from({ length: Math.min(100, n - i) }, () => pub.publishAsync('bench/tp', payload, { qos: 1 })),
    );
  await all;
  const perSecond = n / ((performance.now() - t0) / 1000);
  await Promise.all([sub.endAsync(), pub.endAsync()]);
  return perSecond;
}

interface BrokerRef {
  latency: number[];
  throughput: number;
}

const measureBroker = async (url: string, n: number): Promise<BrokerRef> => ({
  latency: await brokerRoundTrip(url, n),
  throughput: await brokerThroughput(url),
});

async function bareAedes(n: number): Promise<BrokerRef> {
  const aedes = await Aedes.createBroker();
  const server = net.createServer(aedes.handle);
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
  try {
    return await measureBroker(`mqtt://127.0.0.1:${port}`, n);
  } finally {
    await new Promise<void>((r) => aedes.close(() => r()));
    await new Promise<void>((r) => server.close(() => r()));
  }
}

async function bareMosquitto(n: number): Promise<BrokerRef | null> {
  if (!fs.existsSync('/usr/sbin/mosquitto')) return null;
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mosquitto-'));
  const conf = path.join(dir, 'm.conf');
  fs.writeFileSync(
    conf,
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n${process.getuid?.() === 0 ? 'user root\n' : ''}`,
  );
  const child = spawn('/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 100; i++) {
      const ok = await new Promise<boolean>((resolve) =>
        net
          .connect(port, '127.0.0.1')
          .once('connect', function (this: net.Socket) {
            this.destroy();
            resolve(true);
          })
          .once('error', () => resolve(false)),
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    return await measureBroker(`mqtt://127.0.0.1:${port}`, n);
  } finally {
    child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** fetch, tried once more when a kept-alive connection turns out to be closed. */
async function request(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    return fetch(url, init);
  }
}

async function httpLatency(url: string, n: number, headers: Record<string, string> = {}): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await request(url, { headers });
    await res.arrayBuffer();
    out.push(performance.now() - t0);
  }
  return out;
}

async function bareFastify(n: number): Promise<number[]> {
  const app = Fastify();
  app.get('/ping', async () => ({ code: 200, msg: 'ok', data: null }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    await httpLatency(`${url}/ping`, 50);
    return await httpLatency(`${url}/ping`, n);
  } finally {
    await app.close();
  }
}

interface Started {
  child: ChildProcess;
  url: string;
  mqttUrl: string;
  databaseUrl: string;
  dataDir: string;
  /** The server's `process.memoryUsage()`, asked on its stdin. */
  memory(): Promise<NodeJS.MemoryUsage>;
}

async function startServerProcess(): Promise<Started> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-devices-'));
  // compiled, as `npm start` runs it
  await ensureServerBuilt();
  // BENCH_SERVER_FLAGS: Node flags to try on the server (V8 heap settings, say), beside the ones npm start uses
  const flags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...flags, serverEntry('supervised')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      MQTT_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CAPTCHA_PROVIDER: 'off',
      ADMIN_PASSWORD: 'BenchAdmin123',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  // its stdout carries its log lines too (JSON as well): each answer is told by its key
  const waiting: { url?: (l: Record<string, unknown>) => void; memory?: (l: Record<string, unknown>) => void } = {};
  // BENCH_SERVER_OUT: a file for the server's other output (what `--trace-gc` in BENCH_SERVER_FLAGS prints, say),
  // each line after the wall-clock ms it came at
  const other = process.env.BENCH_SERVER_OUT;
  readline.createInterface({ input: child.stdout! }).on('line', (l) => {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(l) as Record<string, unknown>;
    } catch {
      // each line with the wall-clock ms it came at, to set beside the slowest calls' (a GC's line ends it)
      if (other) fs.appendFileSync(other, `${Date.now()} ${l}\n`);
      return;
    }
    for (const key of ['url', 'memory'] as const) if (key in parsed) waiting[key]?.(parsed);
  });
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    waiting.url = resolve;
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  const memory = () =>
    new Promise<NodeJS.MemoryUsage>((resolve) => {
      waiting.memory = (l) => resolve(l.memory as NodeJS.MemoryUsage);
      child.stdin!.write('memory\n');
    });
  return { child, dataDir, memory, ...(ready as { url: string; mqttUrl: string; databaseUrl: string }) };
}

/** The simulated fleet as the benchmark drives it, wherever it runs. */
interface FleetHandle {
  /** Starts the ramp (it goes on in the background). */
  start(): void;
  stats(): Promise<{ online: number; sent: number }>;
  /** Serial numbers of the devices connected now. */
  onlineSns(): Promise<string[]>;
  /** CPU seconds the fleet's process has used (inline: this process, which also drives the console). */
  cpuSeconds(): number;
  /** The fleet's process id (inline: this process). */
  pid: number;
  stop(): Promise<void>;
}
interface FleetSetup {
  url: string;
  devices: number;
  heartbeatS: number;
  rampPerSecond: number;
  rebootDelayMs: number;
}
const fleetSpecs = (n: number) => makeSpecs(n, { seed: 99, prefix: 'BENCH' });
const fleetOptions = (o: FleetSetup) => ({
  url: o.url,
  specs: fleetSpecs(o.devices),
  seed: 99,
  heartbeatS: o.heartbeatS,
  rampPerSecond: o.rampPerSecond,
  rebootDelayMs: o.rebootDelayMs,
  stepMs: 0,
  start: false,
});

async function inlineFleet(o: FleetSetup): Promise<FleetHandle> {
  const fleet = await createFleet(fleetOptions(o));
  return {
    start: () => void fleet.start().catch(() => {}),
    stats: async () => fleet.stats(),
    onlineSns: async () => fleet.devices.filter((d) => d.online).map((d) => d.sn),
    cpuSeconds: () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    },
    pid: process.pid,
    stop: () => fleet.stop().catch(() => {}),
  };
}

/** The fleet in a process of its own (`--fleet-child`), asked over its stdin and answering one JSON line each. */
async function childFleet(o: FleetSetup): Promise<FleetHandle> {
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--fleet-child'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  let next = 0;
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{"id":')) return;
    const m = JSON.parse(line) as { id: number } & Record<string, unknown>;
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  const ask = <T>(op: string, extra: object = {}) =>
    new Promise<T>((resolve) => {
      const id = ++next;
      waiting.set(id, (m) => resolve(m as T));
      child.stdin!.write(`${JSON.stringify({ id, op, ...extra })}\n`);
    });
  await ask('create', { setup: o });
  return {
    start: () => void ask('start'),
    stats: () => ask<{ online: number; sent: number }>('stats'),
    onlineSns: async () => (await ask<{ sns: string[] }>('online')).sns,
    cpuSeconds: () => cpuSeconds(child.pid!),
    pid: child.pid!,
    stop: async () => {
      await ask('stop');
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
    },
  };
}

/** `--fleet-child`: runs the fleet and answers the benchmark's questions until it says stop. */
async function fleetChild(): Promise<void> {
  let fleet: Awaited<ReturnType<typeof createFleet>> | undefined;
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const m = JSON.parse(line) as { id: number; op: string; setup?: FleetSetup };
    let out: object = {};
    if (m.op === 'create') fleet = await createFleet(fleetOptions(m.setup!));
    else if (m.op === 'start') void fleet!.start().catch(() => {});
    else if (m.op === 'stats') {
      const { online, sent } = fleet!.stats();
      out = { online, sent };
    } else if (m.op === 'online') out = { sns: fleet!.devices.filter((d) => d.online).map((d) => d.sn) };
    else if (m.op === 'stop') await fleet?.stop().catch(() => {});
    process.stdout.write(`${JSON.stringify({ id: m.id, ...out })}\n`);
    if (m.op === 'stop') process.exit(0);
  }
}

async function main(): Promise<void> {
  const N = Number(args.devices);
  const RAMP = Number(args.ramp);
  const HEARTBEAT = Number(args.heartbeat);
  const COMMANDS = Number(args.commands);
  const STEADY = Number(args.steady);
  log(
    `device gateway benchmark: ${N} devices, ramp ${RAMP}/s, heartbeat ${HEARTBEAT} s, ${COMMANDS} commands; ${os.cpus().length} CPUs, ${mb(os.totalmem() / 1024)} RAM, Node ${process.version}`,
  );

  // the loaded machine, if asked for: busy loops at normal priority for the whole run
  const burners = Array.from({ length: Number(args.load) }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  if (burners.length) log(`${burners.length} processes spinning on the CPU beside the whole run (--load)`);
  process.once('exit', () => burners.forEach((b) => b.kill('SIGKILL')));

  // References first (beside the --load processes, if any)
  const loadAtStart = os.loadavg()[0];
  log('references …');
  const refFastify = await bareFastify(1000);
  const refAedes = await bareAedes(1000);
  const refMosquitto = await bareMosquitto(1000);

  const srv = await startServerProcess();
  const db = createDb(srv.databaseUrl, 4);
  const specs = fleetSpecs(N);
  let fleet: FleetHandle | undefined;
  try {
    // a customer that owns the whole fleet, and its console session
    const tenant = await db
      .insertInto('tenants')
      .values({ kind: 'enterprise', name: 'bench', auth_status: 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('users')
      .values({
        tenant_id: tenant.id,
        username: 'bench',
        mobile: null,
        password_hash: await hashPassword('BenchUser123'),
        is_super: 1,
      })
      .execute();
    const login = await fetch(`${srv.url}/apiAdmin/user/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'BenchUser123' }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const auth = { authorization: `Bearer ${token}` };
    let t0 = performance.now();
    const ids = await registerInDb(db, specs);
    await bindInDb(
      db,
      tenant.id,
      specs.map((s) => s.sn),
    );
    log(`registered and bound ${N} devices in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    await new Promise((r) => setTimeout(r, 2000));
    const idleRss = rssKb(srv.child.pid!);
    const idleMem = await srv.memory();
    const idleApi = await httpLatency(`${srv.url}/apiAdmin/device/task/list?pageSize=1`, 300, auth);

    // the ramp
    log(`ramping the fleet to ${srv.mqttUrl} …`);
    t0 = performance.now();
    const setup = {
      url: srv.mqttUrl,
      devices: N,
      heartbeatS: HEARTBEAT,
      rampPerSecond: RAMP,
      rebootDelayMs: Number(args['reboot-delay']) * 1000,
    };
    fleet = args.fleet === 'inline' ? await inlineFleet(setup) : await childFleet(setup);
    const cpu0 = cpuSeconds(srv.child.pid!);
    const fleetCpu0 = fleet.cpuSeconds();
    fleet.start();
    const deadline = Date.now() + (N / RAMP) * 1000 + 120_000;
    let online = 0;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2000));
      online = Number(
        (
          await sql<{
            n: string;
          }>`SELECT count(*) AS n FROM devices WHERE status = 'online' AND tenant_id = ${tenant.id}`.execute(db)
        ).rows[0].n,
      );
      process.stdout.write(
        `\r  ${online} online in the database, ${(await fleet.stats()).online} connected in the fleet, server RSS ${mb(rssKb(srv.child.pid!))}   `,
      );
      if (online >= N) break;
    }
    const rampS = (performance.now() - t0) / 1000;
    const rampCpu = cpuSeconds(srv.child.pid!) - cpu0;
    const fleetRampCpu = fleet.cpuSeconds() - fleetCpu0;
    process.stdout.write('\n');

    // steady state: heartbeats, status reports
    log(`steady state for ${STEADY} s …`);
    const cpu1 = cpuSeconds(srv.child.pid!);
    const sent1 = (await fleet.stats()).sent;
    await new Promise((r) => setTimeout(r, STEADY * 1000));
    const steadyCpu = (cpuSeconds(srv.child.pid!) - cpu1) / STEADY;
    const steadyRate = ((await fleet.stats()).sent - sent1) / STEADY;
    const steadyRss = rssKb(srv.child.pid!);
    const steadyMem = await srv.memory();
    const stillOnline = Number(
      (
        await sql<{
          n: string;
        }>`SELECT count(*) AS n FROM devices WHERE status = 'online' AND tenant_id = ${tenant.id}`.execute(db)
      ).rows[0].n,
    );
    const loadedApi = await httpLatency(`${srv.url}/apiAdmin/device/task/list?pageSize=1`, 300, auth);

    // command round trips, observed on the console's event stream
    const ticket = (
      (await (await request(`${srv.url}/apiAdmin/device/events/ticket`, { method: 'POST', headers: auth })).json()) as {
        data: { ticket: string };
      }
    ).data.ticket;
    const waiting = new Map<string, () => void>();
    const seen = new Set<string>();
    // what the console's stream carried, by event type (the fleet's device snapshots beside the commands' tasks)
    const streamed = new Map<string, number>();
    let streamedBytes = 0;
    // wall-clock times on this machine's one clock, beside the task row's (the server's now() at each statement)
    const askedAt = new Map<string, number>();
    const toldAt = new Map<string, number>();
    const ac = new AbortController();
    const stream = await fetch(`${srv.url}/apiAdmin/device/events?ticket=${encodeURIComponent(ticket)}`, {
      signal: ac.signal,
    });
    void (async () => {
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
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
            const type = /^event: (\S+)$/m.exec(frame)?.[1] ?? 'comment';
            streamed.set(type, (streamed.get(type) ?? 0) + 1);
            streamedBytes += frame.length + 2;
            // each frame starts with its `id:` line (the stream's resume point) since live events got ids
            if (!/^event: task$/m.test(frame)) continue;
            const data = JSON.parse(/^data: (.+)$/m.exec(frame)![1]) as { id: string; state: string };
            if (data.state !== 'succeeded') continue;
            seen.add(data.id);
            toldAt.set(data.id, Date.now());
            waiting.get(data.id)?.();
          }
        }
      } catch {
        // closed
      }
    })();
    const onlineDevices = await fleet.onlineSns();
    // the fleet's own commits (last-seen flushes, roll-ups) per second just before, to take out of the commands'
    const commits = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`.execute(db)
        ).rows[0].n,
      );
    const base0 = { n: await commits(), t: performance.now() };
    await new Promise((r) => setTimeout(r, 5000));
    const base1 = { n: await commits(), t: performance.now() };
    const commandsFrom = new Date();
    // which processes ran, and which waited for a CPU, while each command was on its way
    const sampler = new CpuSampler(
      new Map([
        [srv.child.pid!, 'server'],
        [fleet.pid, fleet.pid === process.pid ? 'benchmark + fleet' : 'fleet'],
        ...(fleet.pid === process.pid ? [] : [[process.pid, 'benchmark'] as const]),
        ...burners.map((b) => [b.pid!, 'spinner'] as const),
      ]),
    );
    // each round trip's time, its task, and when it began (ms into the commands: do the slow ones bunch up?)
    const rounds: { ms: number; id: string; at: number; asked: number }[] = [];
    const commandsStart = performance.now();
    if (process.env.BENCH_SERVER_OUT) log(`commands begin at ${Date.now()} (wall-clock ms, as in BENCH_SERVER_OUT)`);
    const late: string[] = [];
    for (let i = 0; i < COMMANDS && onlineDevices.length; i++) {
      const sn = onlineDevices[(i * 7919) % onlineDevices.length];
      const start = performance.now();
      const asked = Date.now();
      const res = await request(`${srv.url}/apiAdmin/device/command`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ deviceIds: [ids.get(sn)], type: 'reboot' }),
      });
      const taskId = ((await res.json()) as { data: { taskIds: string[] } }).data.taskIds[0];
      askedAt.set(taskId, asked);
      const done = seen.has(taskId) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(taskId, resolve));
      const ok = await Promise.race([
        done.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 10_000)),
      ]);
      waiting.delete(taskId);
      if (ok) rounds.push({ ms: performance.now() - start, id: taskId, at: start - commandsStart, asked });
      else late.push(taskId);
    }
    const base2 = { n: await commits(), t: performance.now() };
    const streamS = (base2.t - base0.t) / 1000;
    await sampler.stop();
    ac.abort();
    const fleetCommitsPerMs = (base1.n - base0.n - 1) / (base1.t - base0.t);
    const commandCommits =
      (base2.n - base1.n - 1 - fleetCommitsPerMs * (base2.t - base1.t)) / Math.max(rounds.length, 1);
    // where the round trip's time goes: the task row's times (the server's now() at each statement) and this
    // client's, on the machine's one clock
    const { rows: taskTimes } = await sql<{ id: string; created: number; sent: number; acked: number; done: number }>`
      SELECT id, extract(epoch FROM created_at) * 1000 AS created, extract(epoch FROM sent_at) * 1000 AS sent,
        extract(epoch FROM delivered_at) * 1000 AS acked, extract(epoch FROM finished_at) * 1000 AS done
      FROM device_tasks WHERE created_at >= ${commandsFrom} AND state = 'succeeded'`.execute(db);
    const stages = taskTimes
      .filter((r) => askedAt.has(r.id) && toldAt.has(r.id))
      .map((r) => ({
        id: r.id,
        asked: askedAt.get(r.id)!,
        created: Number(r.created),
        sent: Number(r.sent),
        acked: Number(r.acked),
        done: Number(r.done),
        told: toldAt.get(r.id)!,
      }));
    type Stage = (typeof stages)[number];
    const legs: [string, (r: Stage) => number][] = [
      ['asked → created', (r) => r.created - r.asked],
      ['created → sent', (r) => r.sent - r.created],
      ['sent → acknowledged', (r) => r.acked - r.sent],
      ['acknowledged → result written', (r) => r.done - r.acked],
      ['result written → console told', (r) => r.told - r.done],
    ];
    const failed = late.length;
    if (late.length) {
      const states = await db
        .selectFrom('device_tasks')
        .select(['state', 'attempts'])
        .where('id', 'in', late)
        .execute();
      log(`not back within 10 s: ${states.map((t) => `${t.state} after ${t.attempts} deliveries`).join(', ')}`);
    }
    const byTask = new Map(stages.map((r) => [r.id, r]));
    const slowest = [...rounds].sort((a, b) => b.ms - a.ms).slice(0, 8);
    const legsOf = (r: Stage | undefined) => (r ? legs.map(([, f]) => f(r).toFixed(0)).join('+') : '?');
    log(
      `slowest round trips (ms into the commands; the legs below, in order): ${slowest
        .map((x) => `${ms(x.ms)} at ${(x.at / 1000).toFixed(1)} s (${legsOf(byTask.get(x.id))})`)
        .join(', ')}`,
    );
    // CPU ms each process used in the slowest calls' windows, "+Nw": its main thread's ms waiting for a CPU
    for (const x of slowest.slice(0, 5)) {
      const span = sampler.span(x.asked, x.asked + x.ms);
      log(`  ${ms(x.ms)} (sampled over ${span} ms): ${describeWindow(sampler.window(x.asked, x.asked + x.ms))}`);
    }
    if (rounds.length) {
      const first = rounds[0].asked;
      const last = rounds.at(-1)!.asked + rounds.at(-1)!.ms;
      log(`  all commands, ${((last - first) / 1000).toFixed(1)} s: ${describeWindow(sampler.window(first, last), 8)}`);
    }
    const peakRss = rssKb(srv.child.pid!);
    const peakMem = await srv.memory();

    log('');
    log('| figure | this run | reference (same run) |');
    log('|---|---|---|');
    log(
      `| devices connected | ${online} of ${N} online in the database after ${rampS.toFixed(0)} s (ramp ${RAMP}/s); ${stillOnline} still online after ${STEADY} s of heartbeats | ${N} asked for |`,
    );
    const heap = (m: NodeJS.MemoryUsage) =>
      `V8 heap ${mb(m.heapUsed / 1024)} used of ${mb(m.heapTotal / 1024)}, external ${mb(m.external / 1024)}`;
    log(
      `| server RSS | ${mb(steadyRss)} with the fleet (${mb(peakRss)} after the commands) | ${mb(idleRss)} before the fleet |`,
    );
    log(`| of which | ${heap(steadyMem)} (${heap(peakMem)} after the commands) | ${heap(idleMem)} before the fleet |`);
    log(
      `| server CPU | ${(steadyCpu * 100).toFixed(0)} % of one core steady (${((rampCpu / rampS) * 100).toFixed(0)} % during the ramp) | ` +
        `the fleet's own process: ${((fleetRampCpu / rampS) * 100).toFixed(0)} % during the ramp |`,
    );
    log(
      `| device messages, steady (heartbeats, status, location, traffic) | ${steadyRate.toFixed(0)}/s taken by the server at ${(steadyCpu * 100).toFixed(0)} % of one core: ` +
        `${(steadyRate / Math.max(steadyCpu, 0.001)).toFixed(0)}/s a core | raw broker throughput, QoS 1, one publisher → one subscriber: bare Aedes ` +
        `${refAedes.throughput.toFixed(0)}/s${refMosquitto ? `, bare Mosquitto ${refMosquitto.throughput.toFixed(0)}/s` : ''} |`,
    );
    log(
      `| machine load (1 min) | ${os.loadavg()[0].toFixed(1)} at the end (${loadAtStart.toFixed(1)} at the start) on ${os.cpus().length} CPUs` +
        `${burners.length ? `, ${burners.length} spinning processes beside the run` : ''} | – |`,
    );
    log(
      `| command round trip console → device → succeeded (${rounds.length} reboots${failed ? `, ${failed} not back within 10 s` : ''}) | ${pp(rounds.map((r) => r.ms))} | bare Aedes ` +
        `publish → deliver ${pp(refAedes.latency)}${refMosquitto ? `; bare Mosquitto ${pp(refMosquitto.latency)}` : ''} |`,
    );
    log(
      `| of which, by the task row's times and this client's | ${legs.map(([name, f]) => `${name} ${pp(stages.map(f))}`).join('; ')} | – |`,
    );
    log(
      `| the console's event stream during the commands (and the 5 s before) | ${[...streamed]
        .sort((a, b) => b[1] - a[1])
        .map(([type, count]) => `${type} ${(count / streamS).toFixed(0)}/s`)
        .join(', ')}; ${(streamedBytes / 1024 / streamS).toFixed(0)} KiB/s | – |`,
    );
    log(
      `| PostgreSQL commits per command | ${commandCommits.toFixed(1)} (the fleet's own ${(fleetCommitsPerMs * 1000).toFixed(1)}/s taken out) | – |`,
    );
    log(
      `| API call (GET /device/task/list) under the fleet | ${pp(loadedApi)} (${pp(idleApi)} before the fleet) | bare Fastify route ${pp(refFastify)} |`,
    );
  } finally {
    await fleet?.stop().catch(() => {});
    await db.destroy();
    srv.child.stdin!.write('stop\n');
    await new Promise((r) => srv.child.once('exit', r));
    fs.rmSync(srv.dataDir, { recursive: true, force: true });
  }
}

if (args['fleet-child']) await fleetChild();
else await main();
process.exit(0);
