import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '@cpc/contracts';
import type { AppKeyView, AppKeyWithSecret, PrintJobItem, RequestLogItem } from '@cpc/contracts/integration';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { buildApp } from '../src/app.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, subAccountWith, waitUntil, type Customer } from './device-helpers.ts';
import { createKey, nextOrigin, openCall } from './open-helpers.ts';

/**
 * System integration in the console (contracts: integration.ts): app keys (secret shown once, rotation,
 * disable, delete), request log and usage, the account's print jobs with their preview, markup preview, the
 * test print through the open API, permissions and tenants. Webhook logs are in webhook.test.ts.
 */
let h: Harness;
let A: Customer;
let B: Customer;
let ids: Map<string, number>;
const specs = makeSpecs(5, { seed: 81, prefix: 'INT' });
const [s0, s1, s2] = specs.map((s) => s.sn);
const bSn = specs[4].sn;

beforeAll(async () => {
  h = await createHarness({ OPEN_LOG_FLUSH_MS: '50', OPEN_RATE_LIMIT: '100000' });
  [A, B] = [await customer(h), await customer(h)];
  ids = new Map([
    ...(await devicesOf(h, A.tenantId, specs.slice(0, 4))),
    ...(await devicesOf(h, B.tenantId, specs.slice(4))),
  ]);
});
afterAll(() => h.close());

const post = (url: string, token: string | undefined, payload?: unknown) =>
  h.call({
    method: 'POST',
    url: `/apiAdmin${url}`,
    token,
    ...(payload !== undefined ? { payload: payload as object } : {}),
  });
const get = (url: string, token: string | undefined) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });

/** A sub-account of tenant A holding exactly these permissions. */
const subAccount = (permissions: string[]) => subAccountWith(h, A.tenantId, permissions);

describe('app keys', () => {
  it('shows the secret once: in the creation answer, never in the list', async () => {
    const res = await post('/integration/key/create', A.token, {
      name: 'Shop POS',
      callbackUrl: 'https://pos.example.com/cb',
      ipAllowList: ['203.0.113.0/24', '2001:db8::1'],
    });
    expect(res.statusCode).toBe(200);
    const k = res.body_.data as AppKeyWithSecret;
    expect(k).toMatchObject({
      name: 'Shop POS',
      state: 'active',
      callbackUrl: 'https://pos.example.com/cb',
      ipAllowList: ['203.0.113.0/24', '2001:db8::1'],
      lastUsedAt: null,
    });
    expect(k.appId).toMatch(/^ak[0-9a-f]{16}$/);
    expect(k.secret.length).toBeGreaterThanOrEqual(32);
    expect(k.secretHint).toBe(`…${k.secret.slice(-4)}`);
    const list = await get('/integration/key/list', A.token);
    const listed = list.body_.data.list.find((x: AppKeyView) => x.id === k.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('secret');
    expect(list.body).not.toContain(k.secret);
    expect(
      (await get('/integration/key/list?keyword=shop', A.token)).body_.data.list.map((x: AppKeyView) => x.id),
    ).toContain(k.id);
    expect((await get('/integration/key/list?keyword=nothing-like-it', A.token)).body_.data.total).toBe(0);
  });

  it('holds the cap of 20 keys an account when 30 are created at once', async () => {
    const C = await customer(h);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => post('/integration/key/create', C.token, { name: `Burst ${i}` })),
    );
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(20);
    expect(answers.filter((r) => r.statusCode === 400).every((r) => r.body_.data.fields[0].field === 'name')).toBe(
      true,
    );
    expect((await get('/integration/key/list?pageSize=100', C.token)).body_.data.total).toBe(20);
  });

  it('sets a key its own rate limit, shows the one in effect, and goes back to the server default', async () => {
    const k = await createKey(h, A.token, { rateLimit: 20 });
    expect(k).toMatchObject({ rateLimit: 20, effectiveRateLimit: 20 });
    const listed = (await get('/integration/key/list', A.token)).body_.data.list.find((x: AppKeyView) => x.id === k.id);
    expect(listed).toMatchObject({ rateLimit: 20, effectiveRateLimit: 20 });
    const reset = await post('/integration/key/update', A.token, { id: k.id, rateLimit: null });
    // this harness runs with OPEN_RATE_LIMIT=100000
    expect(reset.body_.data).toMatchObject({ rateLimit: null, effectiveRateLimit: 100_000 });
    expect((await createKey(h, A.token)).rateLimit).toBeNull();
  });

  it('renames a key, sets and clears its callback and allow-list', async () => {
    const k = await createKey(h, A.token);
    const res = await post('/integration/key/update', A.token, {
      id: k.id,
      name: 'Renamed',
      callbackUrl: 'http://10.0.0.5:8080/hook',
      ipAllowList: ['10.0.0.0/8'],
    });
    expect(res.body_.data).toMatchObject({
      name: 'Renamed',
      callbackUrl: 'http://10.0.0.5:8080/hook',
      ipAllowList: ['10.0.0.0/8'],
    });
    const cleared = await post('/integration/key/update', A.token, { id: k.id, callbackUrl: '', ipAllowList: [] });
    expect(cleared.body_.data).toMatchObject({ name: 'Renamed', callbackUrl: '', ipAllowList: [] });
  });

  const bad: Array<[string, string, unknown, string]> = [
    ['an empty name', '/integration/key/create', { name: '  ' }, 'name'],
    ['a name of 31 characters', '/integration/key/create', { name: 'x'.repeat(31) }, 'name'],
    ['a name with a NUL', '/integration/key/create', { name: 'a\u0000b' }, 'name'],
    ['a name over two lines', '/integration/key/create', { name: 'a\nb' }, 'name'],
    [
      'a callback with a NUL',
      '/integration/key/create',
      { name: 'k', callbackUrl: 'https://x.example.com/\u0000' },
      'callbackUrl',
    ],
    ['an ftp callback', '/integration/key/create', { name: 'k', callbackUrl: 'ftp://x.example.com/' }, 'callbackUrl'],
    [
      'a callback with credentials',
      '/integration/key/create',
      { name: 'k', callbackUrl: 'https://u:p@x.example.com/' },
      'callbackUrl',
    ],
    ['a callback that is no URL', '/integration/key/create', { name: 'k', callbackUrl: 'not a url' }, 'callbackUrl'],
    [
      'an address that is no IP',
      '/integration/key/create',
      { name: 'k', ipAllowList: ['example.com'] },
      'ipAllowList.0',
    ],
    ['a CIDR of /33', '/integration/key/create', { name: 'k', ipAllowList: ['10.0.0.0/33'] }, 'ipAllowList.0'],
    [
      'an IPv6 CIDR of /129',
      '/integration/key/create',
      { name: 'k', ipAllowList: ['2001:db8::/129'] },
      'ipAllowList.0',
    ],
    [
      'a repeated address',
      '/integration/key/create',
      { name: 'k', ipAllowList: ['10.0.0.1', '10.0.0.1'] },
      'ipAllowList',
    ],
    ['an unknown field', '/integration/key/create', { name: 'k', secret: 'mine' }, 'secret'],
    ['a rate limit of 0', '/integration/key/create', { name: 'k', rateLimit: 0 }, 'rateLimit'],
    ['a rate limit over 100,000', '/integration/key/create', { name: 'k', rateLimit: 100_001 }, 'rateLimit'],
    ['a rate limit of 1.5', '/integration/key/create', { name: 'k', rateLimit: 1.5 }, 'rateLimit'],
    ['a rate limit as text', '/integration/key/update', { id: 1, rateLimit: '20' }, 'rateLimit'],
    ['an update with nothing to change', '/integration/key/update', { id: 1 }, 'name'],
    ['an unknown state', '/integration/key/state', { id: 1, state: 'paused' }, 'state'],
    ['an id that is not a number', '/integration/key/rotate', { id: 'x' }, 'id'],
    ['no id', '/integration/key/delete', {}, 'id'],
  ];
  it.each(bad)('answers 400 naming the field for %s', async (_name, url, payload, field) => {
    const res = await post(url, A.token, payload);
    expect(res.statusCode).toBe(400);
    const fields: string[] = res.body_.data.fields.map((f: { field: string }) => f.field);
    expect(fields.includes(field) || res.body_.msg.includes(field), res.body_.msg).toBe(true);
  });

  it('answers 400 for a search with a NUL, and for a URL it cannot decode', async () => {
    expect((await get('/integration/key/list?keyword=%00', A.token)).body_).toMatchObject({
      code: 400,
      data: { fields: [{ field: 'keyword' }] },
    });
    expect((await get('/integration/job/%ZZ', A.token)).body_).toMatchObject({
      code: 400,
      data: { fields: [{ field: 'url' }] },
    });
  });

  it('disables and enables a key', async () => {
    const k = await createKey(h, A.token);
    expect((await post('/integration/key/state', A.token, { id: k.id, state: 'disabled' })).body_.data.state).toBe(
      'disabled',
    );
    expect((await openCall(h, k, { url: '/devices' })).body_.data.reason).toBe('app_disabled');
    expect((await post('/integration/key/state', A.token, { id: k.id, state: 'active' })).body_.data.state).toBe(
      'active',
    );
    expect((await openCall(h, k, { url: '/devices' })).statusCode).toBe(200);
  });

  it('rotates a secret: shown once more, the old one refused at once', async () => {
    const k = await createKey(h, A.token);
    const res = await post('/integration/key/rotate', A.token, { id: k.id });
    const rotated = res.body_.data as AppKeyWithSecret;
    expect(rotated.appId).toBe(k.appId);
    expect(rotated.secret).not.toBe(k.secret);
    expect(Date.parse(rotated.secretRotatedAt)).toBeGreaterThanOrEqual(Date.parse(k.secretRotatedAt));
    expect((await openCall(h, k, { url: '/devices' })).body_.data.reason).toBe('bad_signature');
    expect((await openCall(h, rotated, { url: '/devices' })).statusCode).toBe(200);
  });

  it('sees a key changed on another server node at its next call (each node keeps its copy of a key a second at most)', async () => {
    // a second node on the same database, with its own copy of the key's row
    const other = await buildApp(h.config, h.db);
    await other.ready();
    const nodeB: Harness = {
      ...h,
      async call(opts) {
        const res = await other.inject(opts);
        return Object.assign(res, { body_: res.json() });
      },
    };
    try {
      const k = await createKey(h, A.token);
      expect((await openCall(nodeB, k, { url: '/devices' })).statusCode).toBe(200);
      // rotated on node A: node B refuses the old secret at once and takes the new one
      const rotated = (await post('/integration/key/rotate', A.token, { id: k.id })).body_.data as AppKeyWithSecret;
      expect((await openCall(nodeB, k, { url: '/devices' })).body_.data.reason).toBe('bad_signature');
      expect((await openCall(nodeB, rotated, { url: '/devices' })).statusCode).toBe(200);
      // a new limit of 1 a second holds on node B from its next call
      expect((await post('/integration/key/update', A.token, { id: k.id, rateLimit: 1 })).statusCode).toBe(200);
      const answers = await Promise.all([0, 1, 2].map(() => openCall(nodeB, rotated, { url: '/devices' })));
      expect(answers.filter((r) => r.statusCode === 429).length).toBeGreaterThanOrEqual(1);
      // disabled on node A: node B refuses it
      await post('/integration/key/state', A.token, { id: k.id, state: 'disabled' });
      expect((await openCall(nodeB, rotated, { url: '/devices' })).body_.data.reason).toBe('app_disabled');
      // deleted on node A: node B no longer knows it
      await post('/integration/key/delete', A.token, { id: k.id });
      expect((await openCall(nodeB, rotated, { url: '/devices' })).body_.data.reason).toBe('unknown_app');
    } finally {
      await other.close();
    }
  });

  it('deletes a key: its calls stop, its jobs stay without a key', async () => {
    const k = await createKey(h, A.token);
    const job = (
      await openCall(h, k, { url: '/print', body: { deviceSn: s0, content: 'kept', originId: nextOrigin() } })
    ).body_.data;
    expect((await post('/integration/key/delete', A.token, { id: k.id })).statusCode).toBe(200);
    expect((await openCall(h, k, { url: '/devices' })).body_.data.reason).toBe('unknown_app');
    const kept = (await get(`/integration/job/${job.id}`, A.token)).body_.data;
    expect(kept).toMatchObject({ id: job.id, keyId: null, appId: null, keyName: null });
    expect((await post('/integration/key/delete', A.token, { id: k.id })).statusCode).toBe(404);
  });

  it('allows at most 20 keys per account', async () => {
    const c = await customer(h);
    for (let i = 0; i < 20; i++)
      expect((await post('/integration/key/create', c.token, { name: `k${i}` })).statusCode).toBe(200);
    const over = await post('/integration/key/create', c.token, { name: 'one too many' });
    expect(over.statusCode).toBe(400);
    expect(over.body_.msg).toContain('at most 20');
    expect((await get('/integration/key/list', c.token)).body_.data.total).toBe(20);
  });

  it('keeps keys inside their account', async () => {
    const k = await createKey(h, A.token);
    expect((await get('/integration/key/list', B.token)).body_.data.list.map((x: AppKeyView) => x.id)).not.toContain(
      k.id,
    );
    for (const [url, payload] of [
      ['/integration/key/update', { id: k.id, name: 'mine now' }],
      ['/integration/key/state', { id: k.id, state: 'disabled' }],
      ['/integration/key/rotate', { id: k.id }],
      ['/integration/key/delete', { id: k.id }],
    ] as const) {
      expect((await post(url, B.token, payload)).statusCode, url).toBe(404);
    }
    expect((await get(`/integration/key/${k.id}/requests`, B.token)).statusCode).toBe(404);
    expect((await get(`/integration/key/${k.id}/usage`, B.token)).statusCode).toBe(404);
    expect((await post('/integration/testPrint', B.token, { keyId: k.id, deviceId: ids.get(bSn) })).statusCode).toBe(
      404,
    );
    expect((await openCall(h, k, { url: '/devices' })).statusCode).toBe(200);
  });
});

describe('permissions', () => {
  it('asks for a token', async () => {
    expect((await get('/integration/key/list', undefined)).statusCode).toBe(401);
    expect((await get('/integration/job/list', undefined)).statusCode).toBe(401);
  });

  it('gives a sub-account only what its roles hold', async () => {
    const none = await subAccount([]);
    const viewer = await subAccount([PERMISSIONS.printView]);
    const manager = await subAccount([PERMISSIONS.integrationManage]);
    expect((await get('/integration/key/list', none)).statusCode).toBe(403);
    expect((await get('/integration/job/list', none)).statusCode).toBe(403);
    expect((await post('/integration/markup/preview', none, { content: 'x' })).statusCode).toBe(403);
    expect((await get('/integration/job/list', viewer)).statusCode).toBe(200);
    expect((await post('/integration/markup/preview', viewer, { content: 'x' })).statusCode).toBe(200);
    expect((await get('/integration/key/list', viewer)).statusCode).toBe(403);
    expect((await post('/integration/key/create', viewer, { name: 'v' })).statusCode).toBe(403);
    expect((await get('/integration/webhook/list', viewer)).statusCode).toBe(403);
    expect((await post('/integration/key/create', manager, { name: 'by manager' })).statusCode).toBe(200);
  });

  it('puts the integration page in the menu of a customer', async () => {
    const res = await get('/admin/login/getMenu', A.token);
    expect(JSON.stringify(res.body_.data)).toContain('"integration/index"');
    const none = await subAccount([]);
    expect(JSON.stringify((await get('/admin/login/getMenu', none)).body_.data)).not.toContain('"integration/index"');
  });
});

describe('request log and usage', () => {
  it('logs each call of the key with its result and counts calls, errors and jobs per day', async () => {
    const k = await createKey(h, A.token);
    await openCall(h, k, { url: '/devices' });
    await openCall(h, k, { url: '/devices', secret: 'wrong' });
    await openCall(h, k, { url: `/devices/${bSn}/status` });
    const origin = nextOrigin();
    const job = (await openCall(h, k, { url: '/print', body: { deviceSn: s0, content: 'logged', originId: origin } }))
      .body_.data;
    await openCall(h, k, { url: '/print', body: { deviceSn: s0, content: 'logged', originId: origin } });
    await openCall(h, k, { url: '/print', body: { deviceSn: s0, content: '<Q>', originId: nextOrigin() } });

    const log = await waitUntil('six lines in the log', async () => {
      const r = await get(`/integration/key/${k.id}/requests`, A.token);
      // the page and the total are two reads: a batch may land between them
      return r.body_.data.list.length === 6 ? (r.body_.data.list as RequestLogItem[]) : null;
    });
    expect(log.map((l) => [l.call, l.code, l.reason])).toEqual([
      ['POST /open/v1/print', 400, 'markup:unknown_tag'],
      ['POST /open/v1/print', 200, null],
      ['POST /open/v1/print', 200, null],
      ['GET /open/v1/devices/:sn/status', 404, null],
      ['GET /open/v1/devices', 401, 'bad_signature'],
      ['GET /open/v1/devices', 200, null],
    ]);
    expect(log[2]).toMatchObject({
      jobId: job.id,
      path: '/open/v1/print',
      method: 'POST',
      ip: '127.0.0.1',
      testPrint: false,
    });
    expect(log.every((l) => l.latencyMs >= 0 && !Number.isNaN(Date.parse(l.at)))).toBe(true);
    expect((await get(`/integration/key/${k.id}/requests?result=error`, A.token)).body_.data.total).toBe(3);
    expect((await get(`/integration/key/${k.id}/requests?result=ok&pageSize=2`, A.token)).body_.data).toMatchObject({
      total: 3,
    });
    expect(
      (
        await get(
          `/integration/key/${k.id}/requests?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
          A.token,
        )
      ).body_.data.total,
    ).toBe(0);

    const usage = (await get(`/integration/key/${k.id}/usage?days=3&tz=Asia/Shanghai`, A.token)).body_.data;
    expect(usage.tz).toBe('Asia/Shanghai');
    expect(usage.days).toHaveLength(3);
    // the duplicate submit made no job
    expect(usage.totals).toEqual({ calls: 6, errors: 3, jobs: 1 });
    expect(usage.days.at(-1)).toMatchObject({ calls: 6, errors: 3, jobs: 1 });
    expect(usage.days.at(-1).day).toBe(
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date()),
    );
    const key = (await get('/integration/key/list', A.token)).body_.data.list.find((x: AppKeyView) => x.id === k.id);
    expect(key.lastUsedAt).not.toBeNull();
  });

  it('answers 400 for bad log and usage queries', async () => {
    const k = await createKey(h, A.token);
    for (const [url, field] of [
      [`/integration/key/${k.id}/usage?days=31`, 'days'],
      [`/integration/key/${k.id}/usage?tz=Mars/Olympus`, 'tz'],
      [`/integration/key/${k.id}/requests?result=maybe`, 'result'],
      [`/integration/key/${k.id}/requests?from=today`, 'from'],
      ['/integration/key/abc/requests', 'id'],
    ]) {
      const res = await get(url, A.token);
      expect(res.statusCode, url).toBe(400);
      expect(res.body_.msg, url).toContain(field);
    }
  });
});

describe('print jobs in the console', () => {
  let k: AppKeyWithSecret;
  let k2: AppKeyWithSecret;
  const made: Record<string, string> = {};
  beforeAll(async () => {
    k = await createKey(h, A.token);
    k2 = await createKey(h, A.token);
    const submit = async (key: AppKeyWithSecret, sn: string, content: string) =>
      (await openCall(h, key, { url: '/print', body: { deviceSn: sn, content, originId: nextOrigin() } })).body_.data
        .id as string;
    made.a = await submit(k, s0, '<C><B>Receipt A</B></C>\n中文');
    made.b = await submit(k, s1, 'Receipt B');
    made.c = await submit(k2, s1, 'Receipt C');
    await openCall(h, k2, { url: `/print/${made.c}/cancel`, method: 'POST' });
  });
  const list = async (q: string) =>
    ((await get(`/integration/job/list?${q}`, A.token)).body_.data.list as PrintJobItem[]).map((j) => j.id);

  it('lists the account’s jobs newest first, filtered by device, state, key and time', async () => {
    const all = await list('pageSize=100');
    expect(all.indexOf(made.c)).toBeLessThan(all.indexOf(made.b));
    expect(all.indexOf(made.b)).toBeLessThan(all.indexOf(made.a));
    expect(await list(`deviceId=${ids.get(s1)}&keyId=${k.id}`)).toEqual([made.b]);
    expect(await list(`keyId=${k2.id}`)).toEqual([made.c]);
    expect(await list(`keyId=${k2.id}&state=canceled`)).toEqual([made.c]);
    expect(await list(`keyId=${k2.id}&state=queued`)).toEqual([]);
    expect(await list(`keyId=${k.id}&to=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`)).toEqual(
      [],
    );
    const item = (await get(`/integration/job/list?keyId=${k.id}&deviceId=${ids.get(s0)}`, A.token)).body_.data
      .list[0] as PrintJobItem;
    expect(item).toMatchObject({
      id: made.a,
      deviceSn: s0,
      keyId: k.id,
      appId: k.appId,
      keyName: k.name,
      state: 'queued',
      copies: 1,
    });
  });

  it('shows a job with its content and the preview the printer will print', async () => {
    const d = (await get(`/integration/job/${made.a}`, A.token)).body_.data;
    expect(d).toMatchObject({ content: '<C><B>Receipt A</B></C>\n中文', format: 'escpos', columns: 32 });
    expect(d.preview).toEqual([`${' '.repeat(11)}Receipt A`, '中文']);
  });

  it("keeps another account's jobs, devices and keys out: 404", async () => {
    expect((await get(`/integration/job/${made.a}`, B.token)).statusCode).toBe(404);
    expect((await post(`/integration/job/${made.a}/cancel`, B.token)).statusCode).toBe(404);
    expect((await get(`/integration/job/list?deviceId=${ids.get(s0)}`, B.token)).statusCode).toBe(404);
    expect((await get(`/integration/job/list?keyId=${k.id}`, B.token)).statusCode).toBe(404);
    expect((await get('/integration/job/list', B.token)).body_.data.total).toBe(0);
  });

  it('cancels a queued job from the console, once', async () => {
    const res = await post(`/integration/job/${made.b}/cancel`, A.token);
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toMatchObject({ id: made.b, state: 'canceled', error: 'canceled from the console' });
    expect((await post(`/integration/job/${made.b}/cancel`, A.token)).statusCode).toBe(400);
  });

  it('answers 400 for bad job queries', async () => {
    for (const [url, field] of [
      ['/integration/job/list?state=done', 'state'],
      ['/integration/job/list?deviceId=x', 'deviceId'],
      ['/integration/job/list?pageSize=0', 'pageSize'],
      ['/integration/job/list?originId=a%2Fb', 'originId'],
      ['/integration/job/12', 'id'],
    ]) {
      const res = await get(url, A.token);
      expect(res.statusCode, url).toBe(400);
      expect(res.body_.msg, url).toContain(field);
    }
  });
});

describe('markup preview', () => {
  it('lays the markup out for the paper: 58 mm by default, or the device’s', async () => {
    const res = await post('/integration/markup/preview', A.token, { content: '<C>Hi</C>\n<HR>\n<L>AB</L>' });
    expect(res.body_.data).toEqual({
      lines: [`${' '.repeat(15)}Hi`, '-'.repeat(32), 'AB'],
      columns: 32,
      paperWidthMm: 58,
    });
    const wide = await post('/integration/markup/preview', A.token, { content: '<HR>', paperWidthMm: 80 });
    expect(wide.body_.data.columns).toBe(48);
    const dev = await post('/integration/markup/preview', A.token, { content: '<HR>', deviceId: ids.get(s2) });
    expect(dev.body_.data.paperWidthMm).toBe(58);
    expect(
      (await post('/integration/markup/preview', A.token, { content: '<HR>', deviceId: ids.get(bSn) })).statusCode,
    ).toBe(404);
  });

  it('names the offending tag and where it is', async () => {
    const res = await post('/integration/markup/preview', A.token, { content: 'ok\n<B>bold' });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.markup).toMatchObject({ tag: 'B', line: 2, column: 1, position: 3, reason: 'unclosed' });
    expect(res.body_.data.fields).toEqual([
      {
        field: 'content',
        message: res.body_.data.markup.message,
        key: res.body_.data.markup.key,
        params: res.body_.data.markup.params,
      },
    ]);
    expect((await post('/integration/markup/preview', A.token, { content: '' })).body_.data.fields[0].field).toBe(
      'content',
    );
    expect(
      (await post('/integration/markup/preview', A.token, { content: 'x', paperWidthMm: 500 })).body_.data.fields[0]
        .field,
    ).toBe('paperWidthMm');
  });
});

describe('test print', () => {
  it('sends a sample receipt through the open API with the key, logged as a test print', async () => {
    const k = await createKey(h, A.token, { ipAllowList: ['198.51.100.0/24'] });
    const res = await post('/integration/testPrint', A.token, { keyId: k.id, deviceId: ids.get(s2) });
    expect(res.statusCode).toBe(200);
    const job = res.body_.data as PrintJobItem;
    expect(job).toMatchObject({ deviceSn: s2, keyId: k.id, state: 'queued', copies: 1 });
    expect(job.originId).toMatch(/^console-test-/);
    const detail = (await get(`/integration/job/${job.id}`, A.token)).body_.data;
    expect(detail.content).toContain(k.appId);
    expect(detail.preview.join('\n')).toContain(`Device: ${s2}`);
    const log = await waitUntil(
      'the logged test print',
      async () =>
        (await get(`/integration/key/${k.id}/requests`, A.token)).body_.data.list[0] as RequestLogItem | undefined,
    );
    expect(log).toMatchObject({ call: 'POST /open/v1/print', code: 200, testPrint: true, jobId: job.id });
    // an outsider cannot pass as the console: the marker is signed by the server
    const forged = await openCall(h, k, { url: '/devices', headers: { 'x-cpc-console-test': 'f'.repeat(64) } });
    expect(forged.body_.data.reason).toBe('ip_not_allowed');
  });

  it('prints given content and copies, and refuses bad markup with 400 naming the tag', async () => {
    const k = await createKey(h, A.token);
    const res = await post('/integration/testPrint', A.token, {
      keyId: k.id,
      deviceId: ids.get(s2),
      content: 'Just this',
      copies: 3,
    });
    expect(res.body_.data).toMatchObject({ copies: 3 });
    const bad = await post('/integration/testPrint', A.token, { keyId: k.id, deviceId: ids.get(s2), content: '<QR>' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body_.data.markup.tag).toBe('QR');
  });

  it('answers 400, not a logout, when the key is disabled', async () => {
    const k = await createKey(h, A.token);
    await post('/integration/key/state', A.token, { id: k.id, state: 'disabled' });
    const res = await post('/integration/testPrint', A.token, { keyId: k.id, deviceId: ids.get(s2) });
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toContain('disabled');
  });

  it("refuses another account's device with 404", async () => {
    const k = await createKey(h, A.token);
    expect((await post('/integration/testPrint', A.token, { keyId: k.id, deviceId: ids.get(bSn) })).statusCode).toBe(
      404,
    );
    expect((await post('/integration/testPrint', A.token, { keyId: k.id, deviceId: 'x' })).statusCode).toBe(400);
  });
});
