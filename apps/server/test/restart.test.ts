import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServerBuilt, SERVER_NODE_FLAGS, serverEntry } from '../../../scripts/server-build.mjs';
import { startFailure } from '../src/server.ts';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { waitUntil } from './wait.ts';

/**
 * Crash and restart, and a clean stop on Ctrl-C, with the embedded PostgreSQL (issue 10): the server runs as its
 * own process on a data folder of its own, as `npm start` and `npm run demo` run it. A stop by signal ends with
 * exit code 0 (the stop was asked for and went well); 1 means the stop failed.
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-restart-'));
// the console's files are not what is tested: an empty folder spares `npm start` a build of apps/web
const webDist = path.join(tmp, 'web');
fs.mkdirSync(webDist);
const started: ChildProcess[] = [];

interface Launched {
  child: ChildProcess;
  /** Every line written to stdout and stderr so far. */
  lines: string[];
  ready: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function launch(args: string[], env: Record<string, string>, detached = false): Launched {
  const { NODE_OPTIONS: _, DATABASE_URL: __, ...inherited } = process.env;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached,
  });
  started.push(child);
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const http = /running at (http:\/\/\S+?)\/?$/.exec(line);
      if (http) resolve(http[1].replace('localhost', '127.0.0.1'));
    });
    readline.createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
    void exited.then(({ code, signal }) =>
      reject(new Error(`exited (${code ?? signal}) before serving:\n${lines.join('\n')}`)),
    );
  });
  ready.catch(() => {});
  return { child, lines, ready, exited };
}

const env = (dataDir: string): Record<string, string> => ({
  DATA_DIR: dataDir,
  PORT: '0',
  MQTT_PORT: '0',
  HOST: '127.0.0.1',
  CAPTCHA_PROVIDER: 'off',
  LOG_LEVEL: 'info',
  WEB_DIST: webDist,
});

const server = (dataDir: string, detached = false) =>
  launch([...SERVER_NODE_FLAGS, serverEntry('main')], env(dataDir), detached);

const lockFile = (dataDir: string) => path.join(dataDir, 'db', 'pg', 'postmaster.pid');
const postgresPid = (dataDir: string) => Number(fs.readFileSync(lockFile(dataDir), 'utf8').split('\n')[0]);

const idOf = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());

/** The state letter of /proc/<pid>/stat (R, S, Z…), undefined when there is no such process. */
function stateOf(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2];
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // a killed process not reaped yet counts as gone
  return stateOf(pid) !== 'Z';
}

async function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms / 1000} s`)), ms)),
  );
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a person would see as trouble in the output: pino lines at error level or above, stack traces. */
function trouble(lines: string[]): string[] {
  return lines.filter((l) => {
    if (/^\s+at \S/.test(l)) return true;
    if (!l.startsWith('{')) return false;
    try {
      return (JSON.parse(l) as { level?: number }).level! >= 50;
    } catch {
      return false;
    }
  });
}

/** Ctrl-C as a terminal sends it: SIGINT to every process of the foreground group. */
async function ctrlC(run: Launched, dataDir: string): Promise<void> {
  const pgPid = postgresPid(dataDir);
  expect(alive(pgPid)).toBe(true);
  process.kill(-run.child.pid!, 'SIGINT');
  const { code, signal } = await within(45_000, 'stopping', run.exited);
  expect({ code, signal, trouble: trouble(run.lines) }).toEqual({ code: 0, signal: null, trouble: [] });
  expect(alive(pgPid)).toBe(false);
  expect(fs.existsSync(lockFile(dataDir))).toBe(false);
}

const template = path.join(tmp, 'template');
/** A data folder of its own whose PostgreSQL is initialised: a copy (owners kept) saves each test an initdb. */
function dataFolder(name: string): string {
  const dir = path.join(tmp, name);
  execFileSync('cp', ['-a', template, dir]);
  return dir;
}

beforeAll(async () => {
  await ensureServerBuilt({ quiet: true });
  const pg = await startEmbeddedPostgres(path.join(template, 'db'));
  await pg.stop();
}, 120_000);

/** Clean-ups that must run even when a test failed half-way. */
const afterAllEnd: Array<() => void> = [];

afterAll(() => {
  for (const end of afterAllEnd) end();
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // a PostgreSQL a failed test left behind
  for (const d of fs.readdirSync(tmp)) {
    if (fs.existsSync(lockFile(path.join(tmp, d)))) {
      try {
        process.kill(postgresPid(path.join(tmp, d)), 'SIGQUIT');
      } catch {
        // it has already gone
      }
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('restart and stop with the embedded PostgreSQL', () => {
  it('starts again at once after kill -9 of the server, with its data, and stops its PostgreSQL left running, not a live one', async () => {
    const dataDir = dataFolder('crash');
    const first = server(dataDir);
    const url = await within(60_000, 'the first start', first.ready);
    const password = /Platform admin: admin \/ (\S+)/.exec(first.lines.join('\n'))?.[1];
    expect(password).toBeTruthy();
    const orphan = postgresPid(dataDir);

    first.child.kill('SIGKILL');
    await first.exited;
    // the server alone died: its PostgreSQL, in a process group of its own, is still there
    expect(alive(orphan)).toBe(true);

    const second = server(dataDir);
    const url2 = await within(30_000, 'the start after kill -9', second.ready);
    expect(url2).not.toBe(url);
    expect(alive(orphan)).toBe(false);
    // a second server on the same data while this one runs is refused, and leaves this one's database alone
    const third = server(dataDir);
    expect(await within(30_000, 'the refused start', third.exited)).toEqual({ code: 1, signal: null });
    expect(third.lines.join('\n')).toContain(
      `Cloud Print Console could not start: the data folder ${path.join(dataDir, 'db', 'pg')} is in use by another running server (process ${second.child.pid}`,
    );
    // the same database: the admin keeps the password printed on the first start
    expect(second.lines.join('\n')).toContain('password as printed on first start');
    const res = await fetch(`${url2}/apiAdmin/user/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect({ status: res.status, code: ((await res.json()) as { code: number }).code }).toEqual({
      status: 200,
      code: 200,
    });

    second.child.kill('SIGTERM');
    expect(await within(45_000, 'stopping', second.exited)).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(lockFile(dataDir))).toBe(false);
    expect(trouble(second.lines)).toEqual([]);
  }, 150_000);

  it('starts again at once after kill -9 of the server and its PostgreSQL together, five times running', async () => {
    const dataDir = dataFolder('together');
    const starts: string[] = [];
    for (let round = 1; round <= 5; round++) {
      const run = server(dataDir);
      try {
        await within(60_000, `start ${round}`, run.ready);
        starts.push('ready');
      } catch (e) {
        const from = run.lines.findIndex((l) => /could not start/.test(l));
        starts.push(from >= 0 ? run.lines.slice(from).join('\n') : String(e));
        break;
      }
      const pgPid = postgresPid(dataDir);
      // both at once, as a power cut or the OOM killer of a container would: no stop of any kind runs
      process.kill(run.child.pid!, 'SIGKILL');
      process.kill(pgPid, 'SIGKILL');
      await run.exited;
    }
    expect(starts).toEqual(['ready', 'ready', 'ready', 'ready', 'ready']);
    const last = server(dataDir);
    await within(60_000, 'the last start', last.ready);
    expect(last.lines.join('\n')).toContain('password as printed on first start');
    last.child.kill('SIGTERM');
    expect(await within(45_000, 'stopping', last.exited)).toEqual({ code: 0, signal: null });
  }, 300_000);

  it('starts when the lock file names a killed PostgreSQL not reaped yet, and ends its backends still running', async () => {
    const dataDir = dataFolder('zombie');
    const dbDir = path.join(dataDir, 'db');
    const first = await startEmbeddedPostgres(dbDir);
    const pgPid = postgresPid(dataDir);
    // a backend busy in a loop that never waits does not notice its postmaster's death and stays attached to its
    // shared memory: PostgreSQL refuses to start while it is there
    const busy = new pg.Client({ connectionString: first.url });
    await busy.connect();
    busy.on('error', () => {});
    void busy.query('DO $$ BEGIN LOOP PERFORM 1; END LOOP; END $$').catch(() => {});
    const backend = await waitUntil('the busy backend', async () => {
      const c = new pg.Client({ connectionString: first.url });
      await c.connect();
      try {
        const r = await c.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE query LIKE 'DO $$ BEGIN LOOP%' AND state = 'active'",
        );
        return r.rows[0]?.pid;
      } finally {
        await c.end();
      }
    });
    // whatever happens below, the busy backend must not outlive the test: it would spin on a core for good
    const endBusy = () => {
      if (alive(backend)) process.kill(backend, 'SIGKILL');
    };
    afterAllEnd.push(endBusy);
    process.kill(pgPid, 'SIGKILL');
    await waitUntil('the postmaster to die', () => !alive(pgPid));
    // the killed postmaster's pid, not reaped by its parent yet: `sleep` never waits for the child its shell forked
    // (of PostgreSQL's user: PostgreSQL takes a pid it may not signal for another user's process, not its own)
    const holder = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 60'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      ...(process.getuid?.() === 0 ? { uid: idOf('-u'), gid: idOf('-g') } : {}),
    });
    started.push(holder);
    const zombie = Number(await new Promise<string>((r) => holder.stdout!.once('data', (d: Buffer) => r(String(d)))));
    await waitUntil('a zombie', () => stateOf(zombie) === 'Z');
    const lock = fs.readFileSync(lockFile(dataDir), 'utf8').split('\n');
    fs.writeFileSync(lockFile(dataDir), [String(zombie), ...lock.slice(1)].join('\n'));
    expect(alive(backend)).toBe(true);

    const again = await within(30_000, 'the start', startEmbeddedPostgres(dbDir));
    try {
      expect(alive(backend)).toBe(false);
      const c = new pg.Client({ connectionString: again.url });
      await c.connect();
      expect((await c.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
      await c.end();
    } finally {
      await again.stop();
      busy.end().catch(() => {});
      holder.kill('SIGKILL');
    }
  }, 90_000);

  it('stops `npm start` on Ctrl-C in order: exit code 0, no error logged, its PostgreSQL gone', async () => {
    const dataDir = dataFolder('start');
    const run = launch(['scripts/start.mjs'], env(dataDir), true);
    const url = await within(60_000, 'the start', run.ready);
    // sign-ins under way when Ctrl-C comes: each is answered before the database goes, or refused once closed
    const statuses: number[] = [];
    let going = true;
    const load = Array.from({ length: 6 }, async () => {
      while (going) {
        try {
          const res = await fetch(`${url}/apiAdmin/user/v1/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ username: `nobody${statuses.length}`, password: 'Wrong12345' }),
          });
          statuses.push(res.status);
          await res.arrayBuffer();
        } catch {
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    });
    while (statuses.length < 20) await new Promise((r) => setTimeout(r, 10));
    try {
      await ctrlC(run, dataDir);
    } finally {
      going = false;
      await Promise.all(load);
    }
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
  }, 150_000);

  it('stops `npm run demo` on Ctrl-C in order: exit code 0, no error logged, its PostgreSQL gone', async () => {
    const dataDir = dataFolder('demo');
    const run = launch(['--import', 'tsx', 'scripts/demo.mjs'], { ...env(dataDir), DEMO_DEVICES: '8' }, true);
    await within(90_000, 'the demo start', run.ready);
    await ctrlC(run, dataDir);
  }, 180_000);

  it('stops the embedded PostgreSQL of a program without a stop of its own on Ctrl-C (a bench, a script)', async () => {
    const dataDir = dataFolder('bare');
    const embedded = path.join(ROOT, 'apps/server/src/db/embedded.ts');
    const script = `import { startEmbeddedPostgres } from ${JSON.stringify(embedded)};
      const db = await startEmbeddedPostgres(${JSON.stringify(path.join(dataDir, 'db'))});
      console.log('running at http://127.0.0.1/');
      setTimeout(() => {}, 600_000);`;
    const run = launch(['--import', 'tsx', '--input-type=module', '-e', script], {}, true);
    await within(60_000, 'the start', run.ready);
    const pgPid = postgresPid(dataDir);
    process.kill(-run.child.pid!, 'SIGINT');
    // ended as SIGINT ends a program (128 + 2), its database stopped first
    expect(await within(45_000, 'stopping', run.exited)).toEqual({ code: 130, signal: null });
    expect(alive(pgPid)).toBe(false);
    expect(fs.existsSync(lockFile(dataDir))).toBe(false);
  }, 120_000);

  it('prints why a start failed and what to do, never `undefined`', async () => {
    // a data folder PostgreSQL refuses: a PG_VERSION without the cluster it names
    const dataDir = path.join(tmp, 'broken');
    fs.mkdirSync(path.join(dataDir, 'db', 'pg'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'db', 'pg', 'PG_VERSION'), '9\n');
    const run = server(dataDir);
    expect(await within(30_000, 'the failed start', run.exited)).toEqual({ code: 1, signal: null });
    const out = run.lines.join('\n');
    expect(out).toContain(
      `Cloud Print Console could not start: the embedded PostgreSQL on ${path.join(dataDir, 'db', 'pg')} stopped while starting`,
    );
    expect(out).toContain('set DATA_DIR to another folder');
    expect(out).toContain('PostgreSQL said:');
    expect(run.lines).not.toContain('undefined');
  });

  it('describes a failure without a message by what it has', () => {
    expect(startFailure(undefined)).not.toMatch(/undefined/);
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(startFailure(new AggregateError([refused, refused]))).toBe(
      'Cloud Print Console could not start: connect ECONNREFUSED 127.0.0.1:5432',
    );
  });
});
