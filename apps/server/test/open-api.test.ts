import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppKeyWithSecret } from '@cpc/contracts/integration';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { PNG_1x1, createHarness, uploadImage, type Harness } from './harness.ts';
import { customer, devicesOf, waitUntil, type Customer } from './device-helpers.ts';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { openSignature, sha256Hex, signOpenRequest } from '../src/modules/open-api/signature.ts';
import { webhookBody, webhookSignature } from '../src/modules/integration/webhooks.ts';
import { createKey, nextOrigin, openCall, printRow } from './open-helpers.ts';

/**
 * The open API (DESIGN §6, docs/open-api.md) without devices on the line: the signature and each of its
 * refusals, the rate limit, IP allow-lists, rotation, idempotent submits, tenant isolation, validation of
 * bodies and markup, and the calls on jobs and devices. Printing itself is in print.test.ts.
 */
let h: Harness;
let A: Customer;
let B: Customer;
let key: AppKeyWithSecret;
const specs = makeSpecs(6, { seed: 51, prefix: 'OPA' });
const [a0, a1, a2, a3] = specs.map((s) => s.sn);
const b0 = specs[5].sn;
const RATE = 5;

beforeAll(async () => {
  h = await createHarness({ OPEN_RATE_LIMIT: '100000', OPEN_LOG_FLUSH_MS: '50' });
  [A, B] = [await customer(h), await customer(h)];
  await devicesOf(h, A.tenantId, specs.slice(0, 5));
  await devicesOf(h, B.tenantId, specs.slice(5));
  key = await createKey(h, A.token);
});
afterAll(() => h.close());

const signer = () => ({ appId: key.appId, secret: key.secret });
const submit = (body: Record<string, unknown>, k = key) =>
  openCall(h, k, { url: '/print', body: { deviceSn: a0, content: 'Hello', originId: nextOrigin(), ...body } });

describe('the signature', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('accepts a correctly signed call', async () => {
    const res = await openCall(h, key, { url: '/devices' });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data.total).toBe(5);
  });

  const refusals: Array<[string, () => ReturnType<typeof openCall>, string]> = [
    ['no headers at all', () => h.call({ method: 'GET', url: '/open/v1/devices' }), 'missing_headers'],
    [
      'no signature header',
      () => openCall(h, key, { url: '/devices', headers: { 'x-cpc-signature': '' } }),
      'missing_headers',
    ],
    [
      'a timestamp that is not Unix seconds',
      () => openCall(h, key, { url: '/devices', headers: { 'x-cpc-timestamp': '2026-01-01T00:00:00Z' } }),
      'malformed_header',
    ],
    ['a nonce too short', () => openCall(h, key, { url: '/devices', nonce: 'abc' }), 'malformed_header'],
    [
      'an unknown app id',
      () => openCall(h, { appId: 'ak0000000000000000', secret: key.secret }, { url: '/devices' }),
      'unknown_app',
    ],
    ['a wrong secret', () => openCall(h, key, { url: '/devices', secret: 'not-the-secret' }), 'bad_signature'],
    [
      'a timestamp 11 minutes old',
      () => openCall(h, key, { url: '/devices', timestamp: now() - 660 }),
      'stale_timestamp',
    ],
    [
      'a timestamp 11 minutes ahead',
      () => openCall(h, key, { url: '/devices', timestamp: now() + 660 }),
      'stale_timestamp',
    ],
    [
      'a tampered body (its content hash sent)',
      () =>
        openCall(h, key, {
          url: '/print',
          body: { deviceSn: a0, content: 'Pay 1000', originId: 'tamper-1' },
          signedBody: JSON.stringify({ deviceSn: a0, content: 'Pay 1', originId: 'tamper-1' }),
        }),
      'body_mismatch',
    ],
    [
      'a tampered body (no content hash sent)',
      () =>
        openCall(h, key, {
          url: '/print',
          body: { deviceSn: a0, content: 'Pay 1000', originId: 'tamper-2' },
          signedBody: JSON.stringify({ deviceSn: a0, content: 'Pay 1', originId: 'tamper-2' }),
          headers: { 'x-cpc-content-sha256': '' },
        }),
      'bad_signature',
    ],
    [
      'a content hash that is not 64 hex digits',
      () => openCall(h, key, { url: '/devices', headers: { 'x-cpc-content-sha256': 'abc' } }),
      'malformed_header',
    ],
    [
      'a tampered query',
      () =>
        h.call({
          method: 'GET',
          url: '/open/v1/print?pageSize=6',
          headers: signOpenRequest({ ...signer(), method: 'GET', url: '/open/v1/print?pageSize=5' }),
        }),
      'bad_signature',
    ],
    [
      'another path than signed',
      () =>
        h.call({
          method: 'GET',
          url: `/open/v1/devices/${a1}/status`,
          headers: signOpenRequest({ ...signer(), method: 'GET', url: `/open/v1/devices/${a0}/status` }),
        }),
      'bad_signature',
    ],
    [
      'another method than signed',
      () =>
        h.call({
          method: 'POST',
          url: `/open/v1/devices/${a0}/clear`,
          headers: signOpenRequest({ ...signer(), method: 'GET', url: `/open/v1/devices/${a0}/clear` }),
        }),
      'bad_signature',
    ],
  ];

  it.each(refusals)('refuses %s with its own reason', async (_name, call, reason) => {
    const res = await call();
    expect(res.statusCode).toBe(401);
    expect(res.body_.code).toBe(401);
    expect(res.body_.data.reason).toBe(reason);
  });

  it('tells each refusal of a submit by its own code: wrong secret, tampered body, stale timestamp, reused nonce', async () => {
    const body = () => ({ deviceSn: a0, content: 'Pay 10', originId: nextOrigin() });
    const nonce = `reuse${Date.now()}`;
    expect((await openCall(h, key, { url: '/print', body: body(), nonce })).statusCode).toBe(200);
    const cases: Array<[string, () => ReturnType<typeof openCall>]> = [
      ['bad_signature', () => openCall(h, key, { url: '/print', body: body(), secret: 'the-wrong-secret' })],
      [
        'body_mismatch',
        () =>
          openCall(h, key, {
            url: '/print',
            body: { ...body(), content: 'Pay 1000' },
            signedBody: JSON.stringify(body()),
          }),
      ],
      ['stale_timestamp', () => openCall(h, key, { url: '/print', body: body(), timestamp: now() - 601 })],
      ['nonce_reused', () => openCall(h, key, { url: '/print', body: body(), nonce })],
    ];
    for (const [reason, call] of cases) {
      const res = await call();
      expect(res.statusCode, reason).toBe(401);
      expect(res.body_.data.reason, reason).toBe(reason);
    }
    // none of them made a job: the one accepted submit is the key's only job with this content
    expect((await h.db.selectFrom('print_jobs').select('id').where('content', '=', 'Pay 1000').execute()).length).toBe(
      0,
    );
  });

  it('refuses an unsigned or unknown-key call with 401 before reading its body (not JSON, or too large)', async () => {
    const cases: Array<[string, () => ReturnType<typeof openCall>, string]> = [
      [
        'unsigned, not JSON',
        () =>
          h.call({
            method: 'POST',
            url: '/open/v1/print',
            payload: '{"deviceSn":',
            headers: { 'content-type': 'application/json' },
          }),
        'missing_headers',
      ],
      [
        'unsigned, 300 KB',
        () =>
          h.call({
            method: 'POST',
            url: '/open/v1/print',
            payload: 'x'.repeat(300_000),
            headers: { 'content-type': 'application/json' },
          }),
        'missing_headers',
      ],
      [
        'a malformed nonce, 300 KB',
        () => openCall(h, key, { url: '/print', body: 'x'.repeat(300_000), nonce: 'bad nonce!' }),
        'malformed_header',
      ],
      [
        'an unknown key, not JSON',
        () => openCall(h, { appId: 'ak0000000000000001', secret: 'x' }, { url: '/print', body: '{"deviceSn":' }),
        'unknown_app',
      ],
      [
        'an unknown key, 300 KB',
        () => openCall(h, { appId: 'ak0000000000000001', secret: 'x' }, { url: '/print', body: 'x'.repeat(300_000) }),
        'unknown_app',
      ],
      [
        'a wrong secret, not JSON',
        () => openCall(h, key, { url: '/print', body: '{"deviceSn":', secret: 'wrong' }),
        'bad_signature',
      ],
    ];
    for (const [name, call, reason] of cases) {
      const res = await call();
      expect(res.statusCode, name).toBe(401);
      expect(res.body_?.data?.reason, name).toBe(reason);
    }
    // a correctly signed call with such a body is told what is wrong with it
    const notJson = await openCall(h, key, { url: '/print', body: '{"deviceSn":' });
    expect([notJson.statusCode, notJson.body_.msg]).toEqual([400, 'body: not valid JSON']);
  });

  it('names the missing headers', async () => {
    const res = await openCall(h, key, { url: '/devices', headers: { 'x-cpc-nonce': '', 'x-cpc-timestamp': '' } });
    expect(res.body_.data).toEqual({ reason: 'missing_headers', missing: ['x-cpc-timestamp', 'x-cpc-nonce'] });
  });

  it('refuses a reused nonce, also when the rest is signed anew', async () => {
    const nonce = `n${Date.now()}abcdef`;
    expect((await openCall(h, key, { url: '/devices', nonce })).statusCode).toBe(200);
    const again = await openCall(h, key, { url: '/devices', nonce });
    expect(again.statusCode).toBe(401);
    expect(again.body_.data.reason).toBe('nonce_reused');
    const otherCall = await openCall(h, key, { url: '/print', nonce, timestamp: Math.floor(Date.now() / 1000) - 5 });
    expect(otherCall.body_.data.reason).toBe('nonce_reused');
  });

  it('refuses a replayed submit without making a second job', async () => {
    const body = JSON.stringify({ deviceSn: a0, content: 'once', originId: nextOrigin() });
    const headers = {
      ...signOpenRequest({ appId: key.appId, secret: key.secret, method: 'POST', url: '/open/v1/print', body }),
      'content-type': 'application/json',
    };
    const first = await h.call({ method: 'POST', url: '/open/v1/print', payload: body, headers });
    const replay = await h.call({ method: 'POST', url: '/open/v1/print', payload: body, headers });
    expect(first.statusCode).toBe(200);
    expect(replay.statusCode).toBe(401);
    expect(replay.body_.data.reason).toBe('nonce_reused');
  });

  it('signs the canonical query: order and encoding of parameters do not matter', async () => {
    const headers = signOpenRequest({
      appId: key.appId,
      secret: key.secret,
      method: 'GET',
      url: '/open/v1/print?pageSize=5&pageNo=1',
    });
    const res = await h.call({ method: 'GET', url: '/open/v1/print?pageNo=%31&pageSize=5', headers });
    expect(res.statusCode).toBe(200);
  });

  it('refuses a disabled key, and takes it again once enabled', async () => {
    const k = await createKey(h, A.token);
    await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/state',
      token: A.token,
      payload: { id: k.id, state: 'disabled' },
    });
    const res = await openCall(h, k, { url: '/devices' });
    expect(res.statusCode).toBe(401);
    expect(res.body_.data.reason).toBe('app_disabled');
    await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/state',
      token: A.token,
      payload: { id: k.id, state: 'active' },
    });
    expect((await openCall(h, k, { url: '/devices' })).statusCode).toBe(200);
  });

  it('refuses a deleted key as unknown', async () => {
    const k = await createKey(h, A.token);
    await h.call({ method: 'POST', url: '/apiAdmin/integration/key/delete', token: A.token, payload: { id: k.id } });
    expect((await openCall(h, k, { url: '/devices' })).body_.data.reason).toBe('unknown_app');
  });

  it('makes the old secret fail at once after a rotation', async () => {
    const k = await createKey(h, A.token);
    expect((await openCall(h, k, { url: '/devices' })).statusCode).toBe(200);
    const rotated = await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/rotate',
      token: A.token,
      payload: { id: k.id },
    });
    const secret: string = rotated.body_.data.secret;
    expect(secret).not.toBe(k.secret);
    const old = await openCall(h, k, { url: '/devices' });
    expect(old.statusCode).toBe(401);
    expect(old.body_.data.reason).toBe('bad_signature');
    expect((await openCall(h, { ...k, secret }, { url: '/devices' })).statusCode).toBe(200);
  });

  it('takes calls only from the allow-list, IPv4 and IPv6 blocks alike', async () => {
    const k = await createKey(h, A.token, { ipAllowList: ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'] });
    const from = async (ip: string, headers: Record<string, string> = {}) =>
      (await openCall(h, k, { url: '/devices', remoteAddress: ip, headers })).body_;
    expect((await from('10.20.30.40')).code).toBe(200);
    expect((await from('192.0.2.7')).code).toBe(200);
    expect((await from('2001:db8:1::5')).code).toBe(200);
    expect((await from('::ffff:10.1.1.1')).code).toBe(200);
    const refused = await from('127.0.0.1');
    expect(refused.code).toBe(401);
    expect(refused.data.reason).toBe('ip_not_allowed');
    expect((await from('192.0.2.8')).data.reason).toBe('ip_not_allowed');
    expect((await from('2001:db9::1')).data.reason).toBe('ip_not_allowed');
    // X-Forwarded-For counts only from a trusted proxy (none is configured here)
    expect((await from('127.0.0.1', { 'x-forwarded-for': '10.0.0.1' })).data.reason).toBe('ip_not_allowed');
  });

  it('serves its own OpenAPI document without a signature, and only the open calls in it', async () => {
    const res = await h.call({ method: 'GET', url: '/open/v1/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(JSON.parse(res.body).paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/open/v1/print',
        '/open/v1/print/{id}',
        '/open/v1/print/{id}/cancel',
        '/open/v1/devices/{sn}/clear',
        '/open/v1/devices/{sn}/status',
        '/open/v1/devices',
      ]),
    );
    expect(paths.every((p) => p.startsWith('/open/v1/'))).toBe(true);
    const consoleDoc = await h.call({ method: 'GET', url: '/apiAdmin/docs/json' });
    expect(Object.keys(JSON.parse(consoleDoc.body).paths).some((p) => p.startsWith('/open/'))).toBe(false);
  });

  it('lists the error answers of every call in its document: envelopes, reason codes, Retry-After', async () => {
    const doc = JSON.parse((await h.call({ method: 'GET', url: '/open/v1/docs/json' })).body);
    const ops = Object.values(
      doc.paths as Record<
        string,
        Record<string, { responses: Record<string, any>; parameters?: Array<{ name: string }> }>
      >,
    ).flatMap((p) => Object.values(p));
    expect(ops.length).toBeGreaterThanOrEqual(7);
    for (const op of ops) {
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '429']));
      expect(op.responses['429'].headers['Retry-After'].schema).toMatchObject({ type: 'integer', minimum: 1 });
      expect(op.parameters?.map((p) => p.name)).toContain('X-CPC-Content-Sha256');
    }
    const schema = (code: number) => {
      const ref: string = ops[0].responses[String(code)].content['application/json'].schema.$ref;
      return doc.components.schemas[ref.split('/').pop()!];
    };
    expect(schema(401).properties.code.enum).toEqual([401]);
    expect(schema(401).properties.data.properties.reason.enum).toEqual([
      'missing_headers',
      'malformed_header',
      'unknown_app',
      'app_disabled',
      'ip_not_allowed',
      'stale_timestamp',
      'body_mismatch',
      'bad_signature',
      'nonce_reused',
    ]);
    expect(schema(429).properties.data.properties.reason.enum).toEqual(['rate_limited']);
    expect(schema(429).properties.data.required).toEqual(expect.arrayContaining(['limit', 'retryAfterS']));
    expect(schema(400).properties.data.properties.reason.enum).toEqual(['not_cancelable']);
    expect(schema(400).properties.data.properties.markup.properties.reason.enum).toContain('unknown_tag');
    expect(schema(404).properties.code.enum).toEqual([404]);
  });
});

describe('docs/open-api.md', () => {
  it('shows worked examples that are what the server computes', () => {
    const doc = fs.readFileSync(new URL('../../../docs/open-api.md', import.meta.url), 'utf8');
    const secret = /secret `([^`]+)`/.exec(doc)![1];
    const body = /exactly these bytes\):\n\n```\n(.+)\n```/.exec(doc)![1];
    const [postSig, webhookSig] = [...doc.matchAll(/X-CPC-Signature: ([0-9a-f]{64})/g)].map((m) => m[1]);
    expect(doc).toContain(`body SHA-256: \`${sha256Hex(body)}\``);
    expect(doc).toContain(`X-CPC-Content-Sha256: ${sha256Hex(body)}`);
    expect(
      signOpenRequest({
        appId: 'ak3f9c2e71d05b4a88',
        secret,
        method: 'POST',
        url: '/open/v1/print',
        body,
        timestamp: 1767225600,
        nonce: 'n7Kq2xWb9LmP4sTz',
      }),
    ).toEqual({
      'x-cpc-app-id': 'ak3f9c2e71d05b4a88',
      'x-cpc-timestamp': '1767225600',
      'x-cpc-nonce': 'n7Kq2xWb9LmP4sTz',
      'x-cpc-signature': postSig,
      'x-cpc-content-sha256': sha256Hex(body),
    });
    expect(
      openSignature(secret, {
        method: 'POST',
        path: '/open/v1/print',
        query: '',
        timestamp: '1767225600',
        nonce: 'n7Kq2xWb9LmP4sTz',
        bodySha256: sha256Hex(body),
      }),
    ).toBe(postSig);
    const getSig = openSignature(secret, {
      method: 'GET',
      path: '/open/v1/print',
      query: 'state=printed&pageSize=5&deviceSn=CP58-00001',
      timestamp: '1767225600',
      nonce: 'Qm3vR8tY1kXa5NpD',
      bodySha256: sha256Hex(undefined),
    });
    expect(doc).toContain(`signature \`${getSig}\``);
    const callback = /\n\n(\{"id":.+\})\n```/.exec(doc)![1];
    expect(webhookSignature(secret, callback)).toBe(webhookSig);
    const payload = JSON.parse(callback);
    expect(
      webhookBody({
        id: payload.id,
        app_id: payload.appId,
        occurred_at: new Date(payload.occurredAt),
        job_id: payload.job.id,
        origin_id: payload.job.originId,
        sn: payload.job.deviceSn,
        job_state: payload.job.state,
        job_error: payload.job.error,
        copies: payload.job.copies,
      }),
    ).toBe(callback);
  });
});

describe('a server with strict settings', () => {
  // its own server: the rate limit is per key per second, set low here; internal addresses refused outbound
  let r: Harness;
  beforeAll(async () => {
    r = await createHarness({ OPEN_RATE_LIMIT: String(RATE), OUTBOUND_PRIVATE: 'deny', JOB_QUEUE_POLL_MS: '500' });
  });
  afterAll(() => r?.close());

  it('refuses images and callbacks on internal addresses', async () => {
    const c = await customer(r);
    const spec = makeSpecs(1, { seed: 52, prefix: 'OPS' })[0];
    await devicesOf(r, c.tenantId, [spec]);
    // a key saved with a public callback whose name resolves to an internal address when delivered (rebinding),
    // or saved before the server was set to deny: the delivery checks the address it connects to
    const k = await createKey(r, c.token);
    await r.db
      .updateTable('app_keys')
      .set({ callback_url: 'http://localhost:9/hook' })
      .where('app_id', '=', k.appId)
      .execute();
    // the other spellings of internal addresses go through two more keys: each key may make 5 calls a second here
    const more = [await createKey(r, c.token), await createKey(r, c.token)];
    const spellings = [
      'http://0x7f.1/logo.png',
      'http://2130706433/logo.png',
      'http://[::ffff:127.0.0.1]/logo.png',
      'http://[::127.0.0.1]/logo.png',
      'http://192.0.2.1/logo.png',
      'http://[64:ff9b::a9fe:a9fe]/logo.png',
    ];
    const sources = [
      'http://127.0.0.1/logo.png',
      'http://169.254.169.254/latest/logo.png',
      'http://localhost/logo.png',
      'http://[::1]/logo.png',
    ].map((src) => [src, k] as const);
    for (const [src, by] of [...sources, ...spellings.map((src, i) => [src, more[i % 2]] as const)]) {
      const res = await openCall(r, by, {
        url: '/print',
        body: { deviceSn: spec.sn, content: `<IMG>${src}</IMG>`, originId: nextOrigin() },
      });
      expect(res.statusCode, src).toBe(400);
      expect(res.body_.data.markup, src).toMatchObject({ tag: 'IMG', reason: 'bad_image' });
      expect(res.body_.msg, src).toContain('internal address');
    }
    const job = (
      await openCall(r, k, { url: '/print', body: { deviceSn: spec.sn, content: 'x', originId: nextOrigin() } })
    ).body_.data;
    const d = await waitUntil('the refused callback', async () => {
      const list = (
        await r.call({ method: 'GET', url: `/apiAdmin/integration/webhook/list?jobId=${job.id}`, token: c.token })
      ).body_.data.list;
      return list[0]?.attempts >= 1 ? list[0] : null;
    });
    expect(d.lastStatus).toBeNull();
    expect(d.lastError).toContain('internal address');
  });

  it('answers 429 with Retry-After over the per-key limit, and other keys are not slowed', async () => {
    const c = await customer(r);
    const k = await createKey(r, c.token);
    const other = await createKey(r, c.token);
    const results = await Promise.all(
      Array.from({ length: RATE * 6 }, () => openCall(r, k, { url: '/devices?pageSize=1' })),
    );
    const limited = results.filter((x) => x.statusCode === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(results.filter((x) => x.statusCode === 200).length).toBeGreaterThanOrEqual(RATE);
    for (const x of limited) {
      expect(x.headers['retry-after']).toBe('1');
      expect(x.body_).toMatchObject({ code: 429, data: { reason: 'rate_limited', limit: RATE, retryAfterS: 1 } });
    }
    expect((await openCall(r, other, { url: '/devices' })).statusCode).toBe(200);
  });

  it('holds a key to its own limit, set in the console, and answers 429 with the seconds until its window frees', async () => {
    const c = await customer(r);
    const k = await createKey(r, c.token, { rateLimit: 2 });
    expect(k).toMatchObject({ rateLimit: 2, effectiveRateLimit: 2 });
    const other = await createKey(r, c.token);
    expect(other).toMatchObject({ rateLimit: null, effectiveRateLimit: RATE });
    // at the start of a second, so that the burst falls in one window
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
    const results = await Promise.all(Array.from({ length: 5 }, () => openCall(r, k, { url: '/devices?pageSize=1' })));
    expect(results.filter((x) => x.statusCode === 200)).toHaveLength(2);
    const limited = results.filter((x) => x.statusCode === 429);
    expect(limited).toHaveLength(3);
    for (const x of limited) {
      expect(Number(x.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(x.body_).toMatchObject({
        code: 429,
        data: { reason: 'rate_limited', limit: 2, retryAfterS: Number(x.headers['retry-after']) },
      });
    }
    // the other key of the account follows the server's default
    const others = await Promise.all(
      Array.from({ length: RATE }, () => openCall(r, other, { url: '/devices?pageSize=1' })),
    );
    expect(others.every((x) => x.statusCode === 200)).toBe(true);
    // raised in the console, the limit holds from the next call on; null follows the default again
    const raised = await r.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/update',
      token: c.token,
      payload: { id: k.id, rateLimit: 1000 },
    });
    expect(raised.body_.data).toMatchObject({ rateLimit: 1000, effectiveRateLimit: 1000 });
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
    const after = await Promise.all(Array.from({ length: 5 }, () => openCall(r, k, { url: '/devices?pageSize=1' })));
    expect(after.every((x) => x.statusCode === 200)).toBe(true);
    const reset = await r.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/update',
      token: c.token,
      payload: { id: k.id, rateLimit: null },
    });
    expect(reset.body_.data).toMatchObject({ rateLimit: null, effectiveRateLimit: RATE });
    for (const bad of [0, 100_001, 2.5, '10']) {
      const res = await r.call({
        method: 'POST',
        url: '/apiAdmin/integration/key/update',
        token: c.token,
        payload: { id: k.id, rateLimit: bad },
      });
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.body_.data.fields[0].field, String(bad)).toBe('rateLimit');
    }
  });
});

describe('submitting print jobs', () => {
  it('makes a queued job for an offline printer and answers it', async () => {
    const originId = nextOrigin();
    const res = await submit({ originId, content: '<C><B>Shop</B></C>\nTea x2', copies: 2, expireInSec: 600 });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toMatchObject({
      originId,
      deviceSn: a0,
      state: 'queued',
      copies: 2,
      attempts: 0,
      duplicate: false,
      error: '',
    });
    const expireIn = Date.parse(res.body_.data.expireAt) - Date.now();
    expect(expireIn).toBeGreaterThan(590_000);
    expect(expireIn).toBeLessThanOrEqual(600_000);
    const got = await openCall(h, key, { url: `/print/${res.body_.data.id}` });
    expect(got.body_.data).toMatchObject({ id: res.body_.data.id, state: 'queued' });
  });

  it('answers the first job for a repeated originId, even with other content', async () => {
    const originId = nextOrigin();
    const first = await submit({ originId, content: 'first' });
    const second = await submit({ originId, content: 'second', deviceSn: a1 });
    expect(second.statusCode).toBe(200);
    expect(second.body_.data).toMatchObject({ id: first.body_.data.id, deviceSn: a0, duplicate: true });
  });

  it('makes exactly one job for 20 concurrent identical submits', async () => {
    const originId = nextOrigin();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => submit({ originId, deviceSn: a2, content: 'race' })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const ids = new Set(results.map((r) => r.body_.data.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.body_.data.duplicate === false)).toHaveLength(1);
    const rows = await h.db.selectFrom('print_jobs').select('id').where('origin_id', '=', originId).execute();
    expect(rows).toHaveLength(1);
  });

  it('names the field for NUL in originId or deviceSn (refused by the schema, not by the database)', async () => {
    for (const [field, body] of [
      ['originId', { originId: 'o-\u0000' }],
      ['deviceSn', { deviceSn: `${a0}\u0000` }],
    ] as const) {
      const res = await submit(body);
      expect(res.statusCode, field).toBe(400);
      expect(
        res.body_.data.fields.map((f: { field: string }) => f.field),
        field,
      ).toEqual([field]);
    }
  });

  it('keeps originIds apart per key: the same originId on another key is another job', async () => {
    const k2 = await createKey(h, A.token);
    const originId = nextOrigin();
    const one = await submit({ originId });
    const two = await submit({ originId }, k2);
    expect(two.body_.data.duplicate).toBe(false);
    expect(two.body_.data.id).not.toBe(one.body_.data.id);
  });

  const bad: Array<[string, unknown, string]> = [
    ['no deviceSn', { content: 'x', originId: 'a1' }, 'deviceSn'],
    ['a deviceSn with spaces', { deviceSn: 'A B', content: 'x', originId: 'a1' }, 'deviceSn'],
    ['empty content', { deviceSn: 'OPA-00001', content: '', originId: 'a1' }, 'content'],
    [
      'content over 20,000 characters',
      { deviceSn: 'OPA-00001', content: 'x'.repeat(20_001), originId: 'a1' },
      'content',
    ],
    ['0 copies', { deviceSn: 'OPA-00001', content: 'x', copies: 0, originId: 'a1' }, 'copies'],
    ['11 copies', { deviceSn: 'OPA-00001', content: 'x', copies: 11, originId: 'a1' }, 'copies'],
    ['copies as text', { deviceSn: 'OPA-00001', content: 'x', copies: '2', originId: 'a1' }, 'copies'],
    ['no originId', { deviceSn: 'OPA-00001', content: 'x' }, 'originId'],
    ['an originId with a slash', { deviceSn: 'OPA-00001', content: 'x', originId: 'a/b' }, 'originId'],
    ['an expiry of 5 s', { deviceSn: 'OPA-00001', content: 'x', originId: 'a1', expireInSec: 5 }, 'expireInSec'],
    [
      'an expiry over 7 days',
      { deviceSn: 'OPA-00001', content: 'x', originId: 'a1', expireInSec: 8 * 86400 },
      'expireInSec',
    ],
    ['an unknown field', { deviceSn: 'OPA-00001', content: 'x', originId: 'a1', priority: 1 }, 'priority'],
    ['a body that is an array', [1, 2], 'body'],
  ];
  it.each(bad)('answers 400 naming the field for %s', async (_name, body, field) => {
    const res = await openCall(h, key, { url: '/print', body });
    expect(res.statusCode).toBe(400);
    expect(res.body_.code).toBe(400);
    const fields: string[] = res.body_.data.fields.map((f: { field: string }) => f.field);
    expect(fields.some((f) => f.includes(field)) || res.body_.msg.includes(field), res.body_.msg).toBe(true);
  });

  it('answers 400 for a body that is not JSON, and for no body', async () => {
    const notJson = await openCall(h, key, { url: '/print', body: '{"deviceSn":' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.body_.code).toBe(400);
    const none = await openCall(h, key, { method: 'POST', url: '/print' });
    expect(none.statusCode).toBe(400);
  });

  it('never answers 500 to odd input', async () => {
    const odd: Array<[string, () => ReturnType<typeof openCall>, number]> = [
      ['a NUL in the content', () => submit({ content: 'a\u0000b' }), 400],
      [
        'copies of 1e308',
        () =>
          openCall(h, key, {
            url: '/print',
            body: `{"deviceSn":"${a0}","content":"x","originId":"odd-1","copies":1e308}`,
          }),
        400,
      ],
      ['a body over 256 KB', () => openCall(h, key, { url: '/print', body: 'x'.repeat(300_000) }), 413],
      [
        'a body sent as text/plain',
        () => openCall(h, key, { url: '/print', body: 'hello', headers: { 'content-type': 'text/plain' } }),
        401,
      ],
      ['a path it cannot decode', () => openCall(h, key, { url: '/print/%ZZ' }), 400],
      ['a query it cannot decode', () => openCall(h, key, { url: '/print?state=%ZZ' }), 400],
      ['a NUL in a query', () => openCall(h, key, { url: '/print?originId=%00' }), 400],
      ['a NUL in a serial number', () => openCall(h, key, { url: '/devices/A%00B/status' }), 400],
      ['a repeated query parameter', () => openCall(h, key, { url: '/print?pageSize=1&pageSize=2' }), 400],
      [
        'an app id of 5,000 characters',
        () => openCall(h, { appId: 'x'.repeat(5000), secret: 'x' }, { url: '/devices' }),
        401,
      ],
      ['a timestamp of 0', () => openCall(h, key, { url: '/devices', timestamp: 0 }), 401],
      ['an unknown call', () => openCall(h, key, { url: '/nothing' }), 404],
    ];
    for (const [name, call, code] of odd) {
      const res = await call();
      expect(res.statusCode, name).toBe(code);
      expect(res.body_?.code, name).toBe(code);
    }
  });

  const markup: Array<[string, string, string | null, number, string]> = [
    ['an unknown tag', 'Hello\n<X>bad</X>', 'X', 6, 'unknown_tag'],
    ['an unclosed bold', 'Hi <B>there', 'B', 3, 'unclosed'],
    ['a close without an open', 'a</L>', '/L', 1, 'unexpected_close'],
    ['an empty QR', '<QR></QR>', 'QR', 0, 'empty_block'],
    ['a barcode with Chinese', 'x\n<BAR>条码</BAR>', 'BAR', 2, 'bad_data'],
    ['an image that is neither URL nor key', '<IMG>ftp://x/y.png</IMG>', 'IMG', 0, 'bad_data'],
    // C1 is a control character too (docs/open-api.md: only line breaks are allowed); U+009B is a terminal's CSI
    ['a C1 control character (NEL)', 'Total\u0085 12.00', null, 5, 'control_char'],
    ['a C1 control character in QR data', '<QR>a\u009bb</QR>', 'QR', 5, 'control_char'],
    ['a tab in QR data', '<QR>a\tb</QR>', 'QR', 5, 'control_char'],
    ['an emoji', 'Thanks 😀', null, 7, 'unprintable_char'],
  ];
  it.each(markup)(
    'refuses markup with %s, naming the tag and position',
    async (_name, content, tag, position, reason) => {
      const res = await submit({ content });
      expect(res.statusCode).toBe(400);
      expect(res.body_.data.fields[0].field).toBe('content');
      expect(res.body_.data.markup).toMatchObject({ tag, position, reason });
      if (tag) expect(res.body_.msg).toContain(tag.replace('/', ''));
    },
  );

  it('refuses a barcode too wide for the paper', async () => {
    const res = await submit({ content: `<BAR>${'A'.repeat(40)}</BAR>` });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.markup).toMatchObject({ tag: 'BAR', reason: 'bad_data' });
    expect(res.body_.msg).toContain('58 mm');
  });

  it('prints an image from an http URL, following a redirect; refuses one that is missing or too large', async () => {
    const img = http.createServer((req, res) => {
      if (req.url === '/moved.png') return res.writeHead(301, { location: '/logo.png' }).end();
      if (req.url === '/logo.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_1x1);
      if (req.url === '/huge.png')
        return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(3 * 1024 * 1024));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => img.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(img.address() as AddressInfo).port}`;
    try {
      const okRes = await submit({ content: `Logo\n<C><IMG>${base}/moved.png</IMG></C>` });
      expect(okRes.statusCode).toBe(200);
      const detail = (
        await h.call({ method: 'GET', url: `/apiAdmin/integration/job/${okRes.body_.data.id}`, token: A.token })
      ).body_.data;
      expect(detail.preview).toEqual(['Logo', '[IMAGE 8x1]']);
      const missing = await submit({ content: `<IMG>${base}/gone.png</IMG>` });
      expect(missing.body_.msg).toContain('HTTP 404');
      const huge = await submit({ content: `<IMG>${base}/huge.png</IMG>` });
      expect(huge.body_.data.markup).toMatchObject({ tag: 'IMG', reason: 'bad_image' });
      expect(huge.body_.msg).toContain('larger than');
    } finally {
      await new Promise((resolve) => img.close(resolve));
    }
  });

  it('refuses an image it cannot fetch, naming the tag', async () => {
    const res = await submit({ content: 'Logo\n<IMG>http://127.0.0.1:1/logo.png</IMG>' });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.markup).toMatchObject({ tag: 'IMG', reason: 'bad_image', position: 5 });
  });

  it('refuses an image that declares too many pixels before decoding it', async () => {
    // a valid 1×1 PNG whose header claims 20,000 × 20,000
    const bomb = Buffer.from(PNG_1x1);
    bomb.writeUInt32BE(20_000, 16);
    bomb.writeUInt32BE(20_000, 20);
    const key = await uploadImage(h, A.token, 'bomb.png', bomb);
    const res = await submit({ content: `<IMG>${key}</IMG>` });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.markup).toMatchObject({ tag: 'IMG', reason: 'bad_image' });
    expect(res.body_.msg).toContain('million pixels');
  });

  it("refuses an object key of another account's storage as an image", async () => {
    const theirs = await uploadImage(h, B.token, 'logo.png');
    const res = await submit({ content: `<IMG>${theirs}</IMG>` });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.markup).toMatchObject({ tag: 'IMG', reason: 'bad_image' });
    expect(res.body_.msg).toContain('no such object in your storage');
    const bKey = await createKey(h, B.token);
    const own = await openCall(h, bKey, {
      url: '/print',
      body: { deviceSn: b0, content: `<IMG>${theirs}</IMG>`, originId: nextOrigin() },
    });
    expect(own.statusCode).toBe(200);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another account's device, exactly as for one that does not exist", async () => {
    const theirs = await submit({ deviceSn: b0 });
    const none = await submit({ deviceSn: 'NOSUCH-00001' });
    expect(theirs.statusCode).toBe(404);
    expect(none.statusCode).toBe(404);
    expect(theirs.body_.msg).toBe(none.body_.msg);
    for (const url of [`/devices/${b0}/status`]) expect((await openCall(h, key, { url })).statusCode).toBe(404);
    expect((await openCall(h, key, { url: `/devices/${b0}/clear`, method: 'POST' })).statusCode).toBe(404);
    const list = await openCall(h, key, { url: '/devices?pageSize=100' });
    expect(list.body_.data.list.map((d: { sn: string }) => d.sn)).not.toContain(b0);
  });

  it("never shows or cancels another key's or account's job", async () => {
    const job = (await submit({})).body_.data;
    const bKey = await createKey(h, B.token);
    expect((await openCall(h, bKey, { url: `/print/${job.id}` })).statusCode).toBe(404);
    expect((await openCall(h, bKey, { url: `/print/${job.id}/cancel`, method: 'POST' })).statusCode).toBe(404);
    expect((await openCall(h, bKey, { url: '/print' })).body_.data.total).toBe(0);
    expect((await printRow(h, job.id)).state).toBe('queued');
  });
});

describe('jobs and devices', () => {
  it('lists the key’s jobs newest first with filters, and refuses bad filters with 400', async () => {
    const k = await createKey(h, A.token);
    const made = [];
    for (const sn of [a1, a1, a3]) made.push((await submit({ deviceSn: sn }, k)).body_.data);
    const all = await openCall(h, k, { url: '/print' });
    expect(all.body_.data.total).toBe(3);
    expect(all.body_.data.list.map((j: { id: string }) => j.id)).toEqual(made.map((j) => j.id).reverse());
    expect(
      (await openCall(h, k, { url: `/print?deviceSn=${a3}` })).body_.data.list.map((j: { id: string }) => j.id),
    ).toEqual([made[2].id]);
    expect((await openCall(h, k, { url: `/print?originId=${made[1].originId}` })).body_.data.total).toBe(1);
    expect((await openCall(h, k, { url: '/print?state=printed' })).body_.data.total).toBe(0);
    expect((await openCall(h, k, { url: '/print?pageSize=2&pageNo=2' })).body_.data.list).toHaveLength(1);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await openCall(h, k, { url: `/print?from=${encodeURIComponent(future)}` })).body_.data.total).toBe(0);
    for (const [q, field] of [
      ['state=bogus', 'state'],
      ['pageSize=500', 'pageSize'],
      ['from=yesterday', 'from'],
      ['color=red', 'color'],
    ]) {
      const res = await openCall(h, k, { url: `/print?${q}` });
      expect(res.statusCode, q).toBe(400);
      expect(res.body_.msg).toContain(field);
    }
    expect((await openCall(h, k, { url: '/print/not-a-uuid' })).statusCode).toBe(400);
    expect((await openCall(h, k, { url: '/print/00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
  });

  it('cancels a queued job once; a second cancel says it is already canceled', async () => {
    const job = (await submit({})).body_.data;
    const res = await openCall(h, key, { url: `/print/${job.id}/cancel`, method: 'POST' });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toMatchObject({ id: job.id, state: 'canceled' });
    expect(res.body_.data.finishedAt).not.toBeNull();
    const again = await openCall(h, key, { url: `/print/${job.id}/cancel`, method: 'POST' });
    expect(again.statusCode).toBe(400);
    expect(again.body_.msg).toContain('already canceled');
    expect(again.body_.data).toMatchObject({ reason: 'not_cancelable', state: 'canceled' });
  });

  it('refuses to cancel a job already on its way to the printer', async () => {
    const job = (await submit({})).body_.data;
    await h.db.updateTable('print_jobs').set({ state: 'delivered', attempts: 1 }).where('id', '=', job.id).execute();
    const res = await openCall(h, key, { url: `/print/${job.id}/cancel`, method: 'POST' });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data).toMatchObject({ reason: 'not_cancelable', state: 'delivered', fields: [{ field: 'id' }] });
  });

  it('refuses to cancel a job in timeout, or queued again after a delivery: it may have reached the printer', async () => {
    // sent once, no acknowledgement: the message may have arrived, so the job runs to its end
    for (const [state, attempts] of [
      ['timeout', 1],
      ['queued', 2],
    ] as const) {
      const job = (await submit({})).body_.data;
      await h.db
        .updateTable('print_jobs')
        .set({ state, attempts, sent_at: new Date() })
        .where('id', '=', job.id)
        .execute();
      const res = await openCall(h, key, { url: `/print/${job.id}/cancel`, method: 'POST' });
      expect(res.statusCode, state).toBe(400);
      expect(res.body_.code, state).toBe(400);
      expect(res.body_.data, state).toMatchObject({ reason: 'not_cancelable', state, attempts });
      expect(res.body_.msg, state).toContain(`the job is ${state} but was already sent to the printer`);
      expect((await printRow(h, job.id)).state, state).toBe(state);
      // nor does clearing the device's queue take it
      const cleared = await openCall(h, key, { url: `/devices/${a0}/clear`, method: 'POST' });
      expect(cleared.body_.data.jobIds, state).not.toContain(job.id);
      expect((await printRow(h, job.id)).state, state).toBe(state);
      const fromConsole = await h.call({
        method: 'POST',
        url: `/apiAdmin/integration/job/${job.id}/cancel`,
        token: A.token,
      });
      expect(fromConsole.statusCode, state).toBe(400);
      expect(fromConsole.body_.data, state).toMatchObject({ reason: 'not_cancelable', state });
    }
  });

  it('lets exactly one of many concurrent cancels of a job succeed', async () => {
    const job = (await submit({})).body_.data;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => openCall(h, key, { url: `/print/${job.id}/cancel`, method: 'POST' })),
    );
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 400)).toHaveLength(9);
  });

  it("clears a device's queue: its queued jobs of this account, in submission order, and nothing else", async () => {
    const k = await createKey(h, A.token);
    const queued = [(await submit({ deviceSn: a3 }, k)).body_.data.id, (await submit({ deviceSn: a3 })).body_.data.id];
    const elsewhere = (await submit({ deviceSn: a1 }, k)).body_.data.id;
    const res = await openCall(h, k, { url: `/devices/${a3}/clear`, method: 'POST' });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data.jobIds).toEqual(expect.arrayContaining(queued));
    expect(res.body_.data.canceled).toBeGreaterThanOrEqual(2);
    expect((await printRow(h, queued[1])).state).toBe('canceled');
    expect((await printRow(h, elsewhere)).state).toBe('queued');
    expect((await openCall(h, k, { url: `/devices/${a3}/clear`, method: 'POST' })).body_.data).toEqual({
      canceled: 0,
      jobIds: [],
    });
  });

  it('reports a device offline, online and ready, or online with its fault', async () => {
    const status = async () => (await openCall(h, key, { url: `/devices/${a1.toLowerCase()}/status` })).body_.data;
    const before = await status();
    expect(before).toMatchObject({
      sn: a1,
      state: 'offline',
      status: 'offline',
      fault: null,
      kind: 'printer',
      paperWidthMm: 58,
    });
    expect(before.pendingJobs).toBeGreaterThan(0);
    await h.db.updateTable('devices').set({ status: 'online' }).where('sn', '=', a1).execute();
    expect(await status()).toMatchObject({ state: 'ok', fault: null, paper: 'ok' });
    for (const [paper, fault] of [
      ['out', 'paper_out'],
      ['cover-open', 'cover_open'],
      ['overheat', 'overheat'],
    ] as const) {
      await h.db.updateTable('devices').set({ paper }).where('sn', '=', a1).execute();
      expect(await status()).toMatchObject({ state: 'fault', fault, paper });
    }
    await h.db.updateTable('devices').set({ status: 'offline', paper: 'ok' }).where('sn', '=', a1).execute();
    expect((await openCall(h, key, { url: '/devices?status=online' })).body_.data.total).toBe(0);
    expect((await openCall(h, key, { url: '/devices/bad%20sn/status' })).statusCode).toBe(400);
  });
});

describe('the request log', () => {
  it('records every call of a key, refused ones with their reason', async () => {
    const k = await createKey(h, A.token);
    await openCall(h, k, { url: '/devices' });
    await openCall(h, k, { url: '/devices', secret: 'wrong' });
    const job = (await submit({}, k)).body_.data;
    // written in batches (every 50 ms in this harness)
    const log = await waitUntil('the request log', async () => {
      const r = await h.call({ method: 'GET', url: `/apiAdmin/integration/key/${k.id}/requests`, token: A.token });
      return r.body_.data.list.length === 3 ? r.body_.data.list : null;
    });
    expect(log.map((l: { call: string; code: number; reason: string | null }) => [l.call, l.code, l.reason])).toEqual([
      ['POST /open/v1/print', 200, null],
      ['GET /open/v1/devices', 401, 'bad_signature'],
      ['GET /open/v1/devices', 200, null],
    ]);
    expect(log[0]).toMatchObject({ jobId: job.id, ip: '127.0.0.1', testPrint: false });
  });
});
