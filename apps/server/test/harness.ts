import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../src/config.ts';
import { createDb, migrate, type Db } from '../src/db/database.ts';
import { buildApp } from '../src/app.ts';
import { seed } from '../src/seed.ts';
import { lastSmsCode } from '../src/lib/sms.ts';

export interface Harness {
  app: FastifyInstance;
  db: Db;
  config: Config;
  adminPassword: string;
  dataDir: string;
  call(
    opts: InjectOptions & { token?: string },
  ): Promise<LightMyRequestResponse & { body_: { code: number; msg: string; data: any } }>;
  login(username: string, password: string): Promise<{ token: string; cookie: string }>;
  lastSmsCode(mobile: string): string;
  close(): Promise<void>;
}

export const ADMIN_PASSWORD = 'Admin12345';

/**
 * The tests register and sign in many times from one inject address: the per-address rate limits are set out
 * of their way (test/rate-limit.test.ts sets its own to prove they hold).
 */
export const UNLIMITED = {
  RATE_LIMIT_CAPTCHA: '1000000/60',
  RATE_LIMIT_SMS: '1000000/60',
  RATE_LIMIT_REGISTER: '1000000/60',
  RATE_LIMIT_NOT_FOUND: '1000000/60',
};

/** A fresh database on the shared real PostgreSQL, migrated and seeded, and the app built on it. */
/** `inject` with an optional bearer token, the answer's JSON (or null) as `body_`. */
export function caller(app: FastifyInstance): Harness['call'] {
  return async (opts) => {
    const { token, ...rest } = opts;
    const res = await app.inject({
      ...rest,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(rest.headers ?? {}) },
    });
    let parsed: any;
    try {
      parsed = res.json();
    } catch {
      parsed = null;
    }
    return Object.assign(res, { body_: parsed });
  };
}

/** A new empty database on the shared real PostgreSQL; its URL. */
export async function createTestDatabase(): Promise<string> {
  const base = inject('pgUrl');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(base);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function createHarness(env: Record<string, string> = {}): Promise<Harness> {
  const url = new URL(await createTestDatabase());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-test-data-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: url.toString(),
    CAPTCHA_PROVIDER: 'off',
    LOG_LEVEL: 'silent',
    ADMIN_PASSWORD,
    NODE_ENV: 'test',
    MQTT_PORT: '0',
    ...UNLIMITED,
    ...env,
  });
  const db = createDb(url.toString(), 5);
  await migrate(db);
  await seed(db, ADMIN_PASSWORD);
  const app = await buildApp(config, db);
  await app.ready();

  const h: Harness = {
    app,
    db,
    config,
    dataDir,
    adminPassword: ADMIN_PASSWORD,
    call: caller(app),
    async login(username, password) {
      const res = await h.call({ method: 'POST', url: '/apiAdmin/user/v1/login', payload: { username, password } });
      if (res.statusCode !== 200) throw new Error(`login failed: ${res.body}`);
      const cookie = String(res.headers['set-cookie']).split(';')[0];
      return { token: res.body_.data.token, cookie };
    },
    lastSmsCode: (mobile) => lastSmsCode(dataDir, mobile),
    async close() {
      await app.close();
      await db.destroy();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

let mobileSeq = 0;
/** A unique valid mobile number per call within a test file. */
export const nextMobile = () =>
  `139${String(process.pid % 10000).padStart(4, '0')}${String(++mobileSeq).padStart(4, '0')}`;

/** Registers a customer through the real SMS flow and returns its session. */
export async function registerCustomer(
  h: Harness,
  type: 'individual' | 'enterprise' = 'individual',
  username = `cust_${randomBytes(3).toString('hex')}`,
) {
  const mobile = nextMobile();
  const sms = await h.call({ method: 'POST', url: '/apiAdmin/sms/send', payload: { mobile, purpose: 'register' } });
  if (sms.statusCode !== 200) throw new Error(`sms failed: ${sms.body}`);
  const password = 'Passw0rd99';
  const res = await h.call({
    method: 'POST',
    url: '/apiAdmin/register',
    payload: { type, username, mobile, smsCode: h.lastSmsCode(mobile), password, confirmPassword: password },
  });
  if (res.statusCode !== 200) throw new Error(`register failed: ${res.body}`);
  return {
    username,
    mobile,
    password,
    token: res.body_.data.token as string,
    cookie: String(res.headers['set-cookie']).split(';')[0],
  };
}

/** The smallest valid PNG and JPEG, to upload as identity images. */
export const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
export const JPEG_1x1 = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);

export function multipart(fields: Record<string, string>, file?: { name: string; bytes: Buffer; type?: string }) {
  const boundary = `----cpc${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    parts.push(file.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Uploads an image with the SPEC §7 token flow and returns its key. */
export async function uploadImage(h: Harness, token: string, name = 'front.png', bytes = PNG_1x1): Promise<string> {
  const t = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken?bucket=permanentfile', token });
  const body = multipart({ token: t.body_.data.token }, { name, bytes });
  const res = await h.call({ method: 'POST', url: '/apiAdmin/upload', ...body });
  if (res.statusCode !== 200) throw new Error(`upload failed: ${res.body}`);
  return res.body_.data.key;
}
