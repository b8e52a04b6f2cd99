import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../apps/server/src/db/embedded.ts';
import { startServer, type Running } from '../apps/server/src/server.ts';

export interface E2eServer {
  url: string;
  databaseUrl: string;
  dataDir: string;
  adminPassword: string;
  /** The embedded device broker, for the fleet simulator (devices.e2e.ts). */
  mqttUrl: string;
}

export type E2eServers = Record<'plain' | 'legacy' | 'modern', E2eServer>;

declare module 'vitest' {
  export interface ProvidedContext {
    /** One set of servers per test worker (`E2E_WORKERS`, see vitest.config.ts): a worker's files use only its own. */
    serverSets: E2eServers[];
  }
}

export const ADMIN_PASSWORD = 'E2eAdmin123';
/** Test files run side by side (set in vitest.config.ts); each worker gets a set of servers of its own. */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS) || 1);
// E2E_WEB_DIST lets parallel work build the console into a folder of its own
const WEB_DIST = process.env.E2E_WEB_DIST ?? path.resolve(import.meta.dirname, '../apps/web/dist');

/**
 * Real servers on ephemeral ports, serving the built console: one per payload scheme, each with its own
 * database on one real PostgreSQL (embedded unless DATABASE_URL is set) — and that once per test worker, so
 * files running side by side never read each other's newest captcha, SMS code or mail.
 */
export default async function setup(project: TestProject) {
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html')))
    throw new Error('apps/web/dist is missing: build the console first (npm test does)');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-e2e-'));
  const embedded = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(path.join(root, 'db'));
  const baseUrl = process.env.DATABASE_URL ?? embedded!.url;
  const running: Running[] = [];
  const sets: E2eServers[] = [];
  for (let set = 1; set <= E2E_WORKERS; set++) sets.push(await startSet(set));
  project.provide('serverSets', sets);
  return async () => {
    for (const r of running) await r.stop().catch(() => {});
    await embedded?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  };

  async function startSet(set: number): Promise<E2eServers> {
    const servers = {} as E2eServers;
    for (const scheme of ['plain', 'legacy', 'modern'] as const) {
      const dbName = `e2e_${scheme}_${set}_${process.pid}`;
      const admin = new pg.Client(baseUrl);
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
      await admin.query(`CREATE DATABASE ${dbName}`);
      await admin.end();
      const u = new URL(baseUrl);
      u.pathname = `/${dbName}`;
      const dataDir = path.join(root, `${scheme}-${set}`);
      const r = await startServer({
        PORT: '0',
        MQTT_PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: u.toString(),
        ADMIN_PASSWORD,
        CAPTCHA_PROVIDER: 'svg',
        PAYLOAD_CRYPTO: scheme === 'plain' ? 'off' : scheme,
        ACCESS_TOKEN_TTL: scheme === 'plain' ? '8' : '900',
        LOG_LEVEL: 'warn',
        WEB_DIST,
        NODE_ENV: 'test',
        // the flows register and sign in many times from 127.0.0.1: the per-address limits are out of their way
        // (apps/server/test/rate-limit.test.ts proves they hold)
        RATE_LIMIT_CAPTCHA: '100000/60',
        RATE_LIMIT_SMS: '100000/60',
        RATE_LIMIT_REGISTER: '100000/60',
        RATE_LIMIT_NOT_FOUND: '100000/60',
      });
      running.push(r);
      servers[scheme] = {
        url: r.url,
        databaseUrl: u.toString(),
        dataDir,
        adminPassword: ADMIN_PASSWORD,
        mqttUrl: r.mqttUrl,
      };
    }
    return servers;
  }
}
