import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { redactText, redactUrl } from '../src/lib/log-redact.ts';
import { seed } from '../src/seed.ts';
import { ADMIN_PASSWORD, caller, createTestDatabase, UNLIMITED } from './harness.ts';
import { waitUntil } from './wait.ts';

/**
 * What an operator's log collector receives: the node's log lines at level info, as `npm start` writes them.
 * A bearer secret in a query string (the live-event ticket, a signed link's sig, a sign-in code) is never in them;
 * the path that was asked is.
 */

const lines: string[] = [];
let app: FastifyInstance;
let db: Db;
let dataDir: string;
let base: string;

beforeAll(async () => {
  const url = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-test-logs-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: url,
    CAPTCHA_PROVIDER: 'off',
    LOG_LEVEL: 'info',
    ADMIN_PASSWORD,
    NODE_ENV: 'test',
    MQTT_PORT: '0',
    ...UNLIMITED,
  });
  db = createDb(url, 5);
  await migrate(db);
  await seed(db, ADMIN_PASSWORD);
  let partial = '';
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      const text = partial + chunk.toString('utf8');
      const parts = text.split('\n');
      partial = parts.pop()!;
      lines.push(...parts.filter(Boolean));
      done();
    },
  });
  app = await buildApp(config, db, { logStream });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
}, 60_000);

afterAll(async () => {
  await app.close();
  await db.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const logged = () => lines.join('\n');

describe('secrets in query strings never reach the log', () => {
  it('logs the live-event stream by its path, without its ticket', async () => {
    const call = caller(app);
    const login = await call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: 'admin', password: ADMIN_PASSWORD },
    });
    const t = await call({ method: 'POST', url: '/apiAdmin/device/events/ticket', token: login.body_.data.token });
    const ticket = t.body_.data.ticket as string;
    expect(ticket.length).toBeGreaterThan(10);

    const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.get(`${base}/apiAdmin/device/events?ticket=${encodeURIComponent(ticket)}`, resolve).on('error', reject),
    );
    expect(res.statusCode).toBe(200);
    res.destroy();
    await waitUntil('the stream in the log', () => lines.some((l) => l.includes('/apiAdmin/device/events?ticket=')));
    // a ticket refused is written the same way
    await new Promise<void>((resolve, reject) =>
      http
        .get(`${base}/apiAdmin/device/events?ticket=${encodeURIComponent(`${ticket}x`)}&lang=en`, (r) => {
          r.resume();
          r.on('end', resolve);
        })
        .on('error', reject),
    );

    const text = logged();
    expect(text).toContain('/apiAdmin/device/events?ticket=[Redacted]');
    expect(text).toContain('/apiAdmin/device/events?ticket=[Redacted]&lang=en');
    expect(text).not.toContain(ticket);
    expect(text).not.toContain(encodeURIComponent(ticket));
    // the bearer token of the sign-in, and its password, are not there either
    expect(text).not.toContain(login.body_.data.token);
    expect(text).not.toContain(ADMIN_PASSWORD);
  });

  it('redacts tokens, codes and signatures in any URL logged, also of a route that does not exist', async () => {
    const secrets = ['tok-5e1c7e7a', 'code-0d9f21', 'state-77aa10', 'sig-4242abcd', 'pw-Secret123'];
    for (const url of [
      `/apiAdmin/nowhere?access_token=${secrets[0]}&page=2`,
      `/callback?code=${secrets[1]}&state=${secrets[2]}`,
      `/apiAdmin/objects/a/b.png?exp=99&sig=${secrets[3]}`,
      `/apiAdmin/nowhere?password=${secrets[4]}`,
    ]) {
      await new Promise<void>((resolve, reject) =>
        http
          .get(`${base}${url}`, (r) => {
            r.resume();
            r.on('end', resolve);
          })
          .on('error', reject),
      );
    }
    await waitUntil('the last request in the log', () => lines.some((l) => l.includes('/apiAdmin/nowhere?password=')));
    const text = logged();
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).toContain('/apiAdmin/nowhere?access_token=[Redacted]&page=2');
    expect(text).toContain('/callback?code=[Redacted]&state=[Redacted]');
    expect(text).toContain('/apiAdmin/objects/a/b.png?exp=99&sig=[Redacted]');
  });

  it('redacts the same parameters inside messages and error texts', async () => {
    const err = new Error('GET /x?ticket=tk-31337 failed', { cause: new Error('from /y?exp=1&sig=sg-31337') });
    app.log.error({ err, url: '/z?state=st-31337&page=1' }, 'while fetching /w?access_token=at-31337');
    await waitUntil('the error line', () => lines.some((l) => l.includes('while fetching')));
    const line = lines.find((l) => l.includes('while fetching'))!;
    expect(line).not.toMatch(/31337/);
    expect(line).toContain('/x?ticket=[Redacted] failed');
    expect(line).toContain('/y?exp=1&sig=[Redacted]');
    expect(line).toContain('/z?state=[Redacted]&page=1');
    expect(line).toContain('/w?access_token=[Redacted]');

    expect(redactUrl('/a?ticket=x&b=1#f')).toBe('/a?ticket=[Redacted]&b=1#f');
    expect(redactUrl('/a?Refresh_Token=x&sign=y&deptCode=7')).toBe(
      '/a?Refresh_Token=[Redacted]&sign=[Redacted]&deptCode=7',
    );
    expect(redactUrl('/a/b')).toBe('/a/b');
    expect(redactText('GET https://h/x?X-Amz-Signature=abc&X-Amz-Date=1 failed: "/y?state=s1"')).toBe(
      'GET https://h/x?X-Amz-Signature=[Redacted]&X-Amz-Date=1 failed: "/y?state=[Redacted]"',
    );
  });
});
