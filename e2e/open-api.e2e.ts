import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AppKeyWithSecret,
  PrintJobDetail,
  WebhookDeliveryDetail,
  WebhookDeliveryItem,
} from '@cpc/contracts/integration';
import type { OpenPrintJob, PrintJobState, WebhookPayload } from '@cpc/contracts/open-api';
import { startServer, type Running } from '../apps/server/src/server.ts';
import { lastSmsCode } from '../apps/server/src/lib/sms.ts';
import { createFleet, type Fleet } from '../apps/device-sim/src/fleet.ts';
import { bindInDb, registerInDb } from '../apps/device-sim/src/register-db.ts';
import { makeSpecs } from '../apps/device-sim/src/specs.ts';
import { signedFetch, type OpenKey } from '../apps/server/test/open-client.ts';
import { server as e2eServer, uniqueMobile, uniqueName } from './browser.ts';

/**
 * The open API end to end over real HTTP (issue 5): an integrator's signed calls to a server started as an
 * operator starts it (its own database; HTTP and the device broker on ephemeral ports), the fleet simulator's
 * printers on the broker, and the integrator's own callback receiver on an ephemeral local port, verifying every
 * signature as docs/open-api.md says. Retries of callbacks wait 1 s here (WEBHOOK_BACKOFF_S) instead of minutes.
 */

let running: Running;
let fleet: Fleet;
let receiver: HttpServer;
let dataDir = '';
let token = '';
let key: AppKeyWithSecret;
const specs = makeSpecs(4, { seed: 23, prefix: uniqueName('OPE').toUpperCase() });
const [ready, flaky, retried, away] = specs;

interface Callback {
  headers: IncomingHttpHeaders;
  body: string;
  json: WebhookPayload;
  signatureValid: boolean;
  status: number;
}
const callbacks: Callback[] = [];
/** What the receiver answers to a callback (the n-th of its delivery); 200 unless a test says otherwise. */
let answer: (c: Omit<Callback, 'status'>, n: number) => number = () => 200;

beforeAll(async () => {
  // a database of its own on the suite's PostgreSQL
  const base = new URL(e2eServer('plain').databaseUrl);
  const name = `e2e_open_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  base.pathname = `/${name}`;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-open-e2e-'));
  running = await startServer({
    DATABASE_URL: base.toString(),
    DATA_DIR: dataDir,
    PORT: '0',
    MQTT_PORT: '0',
    HOST: '127.0.0.1',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    CAPTCHA_PROVIDER: 'off',
    ADMIN_PASSWORD: 'OpenE2eAdmin1',
    WEBHOOK_BACKOFF_S: '1,1,1',
    WEBHOOK_TIMEOUT_MS: '3000',
    JOB_QUEUE_POLL_MS: '500',
    SWEEP_INTERVAL_MS: '500',
    PRINT_ACK_TIMEOUT_S: '5',
    PRINT_RETRY_BACKOFF_S: '1',
  });

  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      // verified as an integrator verifies: HMAC of the raw body with the secret, compared in constant time
      const expected = createHmac('sha256', key?.secret ?? '')
        .update(body)
        .digest('hex');
      const sig = String(req.headers['x-cpc-signature'] ?? '');
      const signatureValid = sig.length === 64 && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
      const json = JSON.parse(body) as WebhookPayload;
      const call = { headers: req.headers, body, json, signatureValid };
      const status = answer(call, callbacks.filter((c) => c.json.id === json.id).length + 1);
      callbacks.push({ ...call, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

  // a customer registers over HTTP, creates a key calling back to the receiver, and has four printers bound
  const mobile = uniqueMobile();
  await api('POST', '/apiAdmin/sms/send', { mobile, purpose: 'register' });
  const username = uniqueName('open');
  const reg = await api<{ token: string }>('POST', '/apiAdmin/register', {
    type: 'enterprise',
    username,
    mobile,
    smsCode: lastSmsCode(dataDir, mobile),
    password: 'Passw0rd99',
    confirmPassword: 'Passw0rd99',
  });
  token = reg.token;
  key = await api<AppKeyWithSecret>('POST', '/apiAdmin/integration/key/create', {
    name: 'POS',
    callbackUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cpc/callback`,
  });
  const tenant = await running.db
    .selectFrom('users')
    .select('tenant_id')
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
  await registerInDb(running.db, specs);
  await bindInDb(
    running.db,
    tenant.tenant_id,
    specs.map((s) => s.sn),
  );
  fleet = await createFleet({
    url: running.mqttUrl,
    specs,
    start: false,
    randomFaults: false,
    printLineMs: 20,
    heartbeatS: 30,
  });
}, 120_000);

afterAll(async () => {
  await fleet?.stop().catch(() => {});
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  await running?.stop().catch(() => {});
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A console call over HTTP with the customer's token; answers `data`, throws on anything but 200. */
async function api<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const res = await fetch(`${running.url}${url}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { code: number; msg: string; data: T };
  if (json.code !== 200) throw new Error(`${method} ${url}: ${json.code} ${json.msg}`);
  return json.data;
}

const openKey = (): OpenKey => ({ appId: key.appId, secret: key.secret });
async function submit(deviceSn: string, body: Record<string, unknown> = {}): Promise<OpenPrintJob> {
  const res = await signedFetch(running.url, openKey(), 'POST', '/open/v1/print', {
    deviceSn,
    content: 'Hello',
    originId: `o-${randomBytes(6).toString('hex')}`,
    ...body,
  });
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body!.data as OpenPrintJob;
}
async function jobState(id: string): Promise<PrintJobState> {
  const res = await signedFetch(running.url, openKey(), 'GET', `/open/v1/print/${id}`);
  return (res.body!.data as OpenPrintJob).state;
}
async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const jobPrinted = (id: string) => until(`job ${id} printed`, async () => (await jobState(id)) === 'printed');
const callbacksOf = (jobId: string) => callbacks.filter((c) => c.json.job?.id === jobId);

describe('the open API over real HTTP, with simulated printers and a callback receiver', () => {
  it('prints a signed submit on the printer and calls back, signed, with every state up to printed', async () => {
    await fleet.powerOn(ready.sn);
    const content = '<C><B>Table 7</B></C>\n1 x noodles      12.00\n<HR>\n<R>Total 12.00</R>\n<CUT>';
    const job = await submit(ready.sn, { content });
    await jobPrinted(job.id);
    const detail = await api<PrintJobDetail>('GET', `/apiAdmin/integration/job/${job.id}`);
    const out = fleet.get(ready.sn).printed.find((p) => p.id === job.id)!;
    expect(out.lines).toEqual(detail.preview);
    expect(out.lines).toContain('1 x noodles      12.00');
    const got = await until('the printed callback', async () =>
      callbacksOf(job.id).some((c) => c.json.job.state === 'printed') ? callbacksOf(job.id) : null,
    );
    expect(got.map((c) => c.json.job.state)).toEqual(
      expect.arrayContaining(['sent', 'delivered', 'printing', 'printed']),
    );
    for (const c of got) {
      expect(c.signatureValid).toBe(true);
      expect(c.headers['x-cpc-app-id']).toBe(key.appId);
      expect(c.headers['x-cpc-delivery']).toBe(c.json.id);
      expect(c.json).toMatchObject({
        event: 'print.job.state',
        appId: key.appId,
        job: { id: job.id, deviceSn: ready.sn },
      });
    }
  });

  it('prints the rest of its queue exactly once, in order, after a printer drops off the line mid-queue and returns', async () => {
    await fleet.powerOn(flaky.sn);
    const d = fleet.get(flaky.sn);
    const receipt = (n: number) => Array.from({ length: 10 }, (_, i) => `job ${n} line ${i}`).join('\n');
    const first: OpenPrintJob[] = [];
    for (let n = 0; n < 4; n++) first.push(await submit(flaky.sn, { content: receipt(n) }));
    await until('the first job printed', async () => d.printed.length >= 1);
    d.kill();
    await until('the printer offline', async () => {
      const res = await signedFetch(running.url, openKey(), 'GET', `/open/v1/devices/${flaky.sn}/status`);
      return res.body?.data.state === 'offline';
    });
    const later: OpenPrintJob[] = [];
    for (let n = 4; n < 7; n++) later.push(await submit(flaky.sn, { content: receipt(n) }));
    expect(later.map((j) => j.state)).toEqual(['queued', 'queued', 'queued']);
    await d.powerOn();
    const all = [...first, ...later];
    for (const j of all) await jobPrinted(j.id);
    await d.printIdle();
    expect(d.printed.map((p) => p.id)).toEqual(all.map((j) => j.id));
    expect(d.printed.map((p) => p.lines[0])).toEqual(all.map((_, n) => `job ${n} line 0`));
  });

  it('calls back on the fourth try when the receiver fails the first three', async () => {
    await fleet.powerOn(retried.sn);
    const origin = `retry-${randomBytes(4).toString('hex')}`;
    answer = (c, n) => (c.json.job.originId === origin && c.json.job.state === 'printed' && n <= 3 ? 503 : 200);
    try {
      const job = await submit(retried.sn, { originId: origin });
      await jobPrinted(job.id);
      const printed = await until('the printed delivery to succeed', async () => {
        const list = await api<{ list: WebhookDeliveryItem[] }>(
          'GET',
          `/apiAdmin/integration/webhook/list?jobId=${job.id}`,
        );
        const d = list.list.find((x) => x.jobState === 'printed');
        return d?.state === 'succeeded' ? d : null;
      });
      const detail = await api<WebhookDeliveryDetail>('GET', `/apiAdmin/integration/webhook/${printed.id}`);
      expect(detail.attemptLog.map((a) => [a.attempt, a.status, a.manual])).toEqual([
        [1, 503, false],
        [2, 503, false],
        [3, 503, false],
        [4, 200, false],
      ]);
      const tries = callbacks.filter((c) => c.json.id === printed.id);
      expect(tries.map((c) => [c.headers['x-cpc-attempt'], c.status])).toEqual([
        ['1', 503],
        ['2', 503],
        ['3', 503],
        ['4', 200],
      ]);
      // the same signed bytes every time
      expect(tries.every((c) => c.signatureValid && c.body === tries[0].body)).toBe(true);
    } finally {
      answer = () => 200;
    }
  });

  it('expires a job whose printer stays offline past its expiry, calls back expired, and never prints it', async () => {
    const job = await submit(away.sn, { expireInSec: 10 });
    expect(job.state).toBe('queued');
    await until('the job expired', async () => (await jobState(job.id)) === 'expired', 30_000);
    const expired = await until('the expired callback', async () =>
      callbacksOf(job.id).find((c) => c.json.job.state === 'expired'),
    );
    expect(expired.signatureValid).toBe(true);
    expect(expired.json.job.error).toBe('the printer did not take the job before it expired');
    // the printer comes back later: the expired job never reaches it; a new one prints
    await fleet.powerOn(away.sn);
    const after = await submit(away.sn);
    await jobPrinted(after.id);
    const d = fleet.get(away.sn);
    expect(d.printsReceived.map((m) => m.id)).not.toContain(job.id);
    expect(d.printed.map((p) => p.id)).toEqual([after.id]);
  });
});
