import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { startEmbeddedPostgres, type EmbeddedDb } from '../src/db/embedded.ts';
import { buildApp } from '../src/app.ts';
import { seed } from '../src/seed.ts';
import { signOpenRequest } from '../src/modules/open-api/signature.ts';
import { bindInDb, registerInDb } from '../../device-sim/src/register-db.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { waitUntil } from './device-helpers.ts';

/**
 * A reused nonce is refused also after PostgreSQL crashes (issue 5 audit): every nonce is on disk before its
 * call is answered. PostgreSQL runs on its own here, with its WAL writer slowed to 10 s so that a commit made
 * without waiting for the disk stays in memory; one of its processes is killed with SIGKILL right after the
 * calls (the postmaster then kills the rest and recovers from the log on disk), and each call is replayed
 * exactly as it was sent.
 */
let embedded: EmbeddedDb;
let db: Db;
let app: FastifyInstance;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-nonce-crash-'));
const key = { appId: `ak${randomBytes(8).toString('hex')}`, secret: randomBytes(30).toString('base64url') };
const [printer, idle] = makeSpecs(2, { seed: 91, prefix: 'NCR' });

beforeAll(async () => {
  embedded = await startEmbeddedPostgres(dir);
  const admin = new pg.Client(embedded.url);
  await admin.connect();
  await admin.query(`ALTER SYSTEM SET wal_writer_delay = '10s'`);
  await admin.query('SELECT pg_reload_conf()');
  await admin.end();
  db = createDb(embedded.url, 4);
  await migrate(db);
  await seed(db, 'Admin12345');
  const tenant = await db
    .insertInto('tenants')
    .values({ kind: 'enterprise', name: 'nonce crash', auth_status: 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('app_keys')
    .values({ tenant_id: tenant.id, app_id: key.appId, secret: key.secret, name: 'till' })
    .execute();
  await registerInDb(db, [printer, idle]);
  await bindInDb(db, tenant.id, [printer.sn, idle.sn]);
  // no DATABASE_URL: no job queue or LISTEN connection of their own, nothing else writes to the database meanwhile
  const config = loadConfig({
    DATA_DIR: path.join(dir, 'data'),
    CAPTCHA_PROVIDER: 'off',
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    MQTT_PORT: '0',
    OPEN_LOG_FLUSH_MS: '60000',
    OPEN_RATE_LIMIT: '1000',
  });
  app = await buildApp(config, db);
  await app.ready();
}, 120_000);

afterAll(async () => {
  await app?.close().catch(() => {});
  await db?.destroy().catch(() => {});
  await embedded?.stop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A signed call, kept so that it can be sent again byte for byte. */
function signed(method: 'GET' | 'POST', url: string, body?: object): InjectOptions {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { ...signOpenRequest({ ...key, method, url, body: payload }) };
  if (payload) headers['content-type'] = 'application/json';
  return { method, url, headers, payload };
}

describe('nonces after a crash of PostgreSQL', () => {
  it('refuses every replay of a call answered before the crash: a read, a new job, a repeated submit, a clear', async () => {
    const origin = `order-${randomBytes(4).toString('hex')}`;
    // the order matters: a job's insert is a durable commit that flushes the log up to it, so the calls after it
    // are the ones whose nonces only their own durability keeps
    const calls: Array<[string, InjectOptions]> = [
      ['a new job', signed('POST', '/open/v1/print', { deviceSn: printer.sn, content: 'Hello', originId: origin })],
      [
        'a repeated submit',
        signed('POST', '/open/v1/print', { deviceSn: printer.sn, content: 'Hello', originId: origin }),
      ],
      ['a clear of an empty queue', signed('POST', `/open/v1/devices/${idle.sn}/clear`)],
      ['a read', signed('GET', '/open/v1/devices')],
    ];
    const victim = new pg.Client(embedded.url);
    await victim.connect();
    victim.on('error', () => {});
    const { rows } = await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    for (const [name, call] of calls) {
      const res = await app.inject(call);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
    }
    // PostgreSQL crashes: the postmaster ends every other process of the cluster at once and replays the log on disk
    process.kill(rows[0].pid, 'SIGKILL');
    await waitUntil(
      'PostgreSQL back after its recovery',
      async () => {
        const c = new pg.Client(embedded.url);
        c.on('error', () => {});
        try {
          await c.connect();
          await c.query('SELECT 1');
          return true;
        } finally {
          await c.end().catch(() => {});
        }
      },
      60_000,
    );
    // the pool's connections died with the crash: each is tried (and dropped) before the replays, which must not
    // half-run on one (a replay that recorded its nonce and then failed would hide a lost nonce)
    await waitUntil('the pool connected again', async () => {
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => sql`SELECT pg_sleep(0.05)`.execute(db)));
      return results.every((r) => r.status === 'fulfilled');
    });
    for (const [name, call] of calls) {
      const res = await app.inject(call);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(401);
      expect(res.json().data.reason, name).toBe('nonce_reused');
    }
    // and the job made before the crash is still there, once
    const jobs = await db.selectFrom('print_jobs').select('id').where('origin_id', '=', origin).execute();
    expect(jobs).toHaveLength(1);
  }, 120_000);
});
