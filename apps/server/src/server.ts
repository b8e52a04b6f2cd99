import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from './config.ts';
import { createDb, migrate, type Db } from './db/database.ts';
import { startEmbeddedPostgres, type EmbeddedDb } from './db/embedded.ts';
import { buildApp } from './app.ts';
import { seed, type AdminCredentials } from './seed.ts';
import path from 'node:path';

export interface Running {
  app: FastifyInstance;
  db: Db;
  config: Config;
  url: string;
  /** Where devices connect (the embedded broker, or MQTT_URL). */
  mqttUrl: string;
  admin: AdminCredentials;
  databaseUrl: string;
  stop(): Promise<void>;
}

/** Starts everything one server process needs: PostgreSQL (embedded unless DATABASE_URL), migrations, seed, HTTP. */
export async function startServer(env: Record<string, string | undefined> = process.env): Promise<Running> {
  const config = loadConfig(env);
  let embedded: EmbeddedDb | undefined;
  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres(path.join(config.dataDir, 'db'));
    databaseUrl = embedded.url;
  }
  const db = createDb(databaseUrl);
  let app: FastifyInstance | undefined;
  try {
    await migrate(db);
    const admin = await seed(db, config.ADMIN_PASSWORD);
    // the live-event fan-out LISTENs on its own connection, also to the embedded database
    app = await buildApp({ ...config, DATABASE_URL: databaseUrl }, db);
    await app.listen({ port: config.PORT, host: config.HOST });
    const { port } = app.server.address() as { port: number };
    const started = app;
    return {
      app,
      db,
      config,
      admin,
      databaseUrl,
      url: `http://localhost:${port}`,
      mqttUrl: app.gateway.deviceUrl,
      async stop() {
        // the embedded database stops even when closing the app or the pool failed: it would outlive the process
        try {
          await started.close();
        } finally {
          try {
            await db.destroy();
          } finally {
            await embedded?.stop();
          }
        }
      },
    };
  } catch (e) {
    // what did start (the broker, the LISTEN connection) stops before the database goes
    await app?.close().catch(() => {});
    await db.destroy().catch(() => {});
    await embedded?.stop().catch(() => {});
    throw e;
  }
}

/**
 * The line printed when a start fails: the error's own words, never `undefined` (a rejection without a reason)
 * nor an empty line (a connection's AggregateError has no message of its own, its attempts have).
 */
export function startFailure(e: unknown): string {
  return `Cloud Print Console could not start: ${describe(e)}`;
}

function describe(e: unknown): string {
  if (e instanceof AggregateError && !e.message) return [...new Set(e.errors.map(describe))].join('; ');
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    const text = e.message || e.name;
    return code && !text.includes(String(code)) ? `${text} (${code})` : text;
  }
  if (e === undefined || e === null || e === '')
    return 'an error without a description was raised; run again with LOG_LEVEL=debug to see more';
  return String(e);
}

/**
 * Stops the server in order (stop taking work, close, then its PostgreSQL) on SIGINT, SIGTERM and SIGHUP or when
 * `stop()` is called, then exits 0 (1 when stopping failed). A signal that comes while the server is still starting
 * waits for `started()`: the embedded PostgreSQL runs in its own process group and would outlive a process ended
 * by the signal's default action.
 */
export function stopInOrder(): { started(running: Running): void; stop(): void } {
  let running: Running | undefined;
  let asked = false;
  let stopping = false;
  const stop = () => {
    asked = true;
    if (stopping || !running) return;
    stopping = true;
    running.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`stopping failed: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(1);
      },
    );
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, stop);
  return {
    started(r) {
      running = r;
      if (asked) stop();
    },
    stop,
  };
}
