import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customer } from './device-helpers.ts';
import { createHarness, type Harness } from './harness.ts';
import { createKey } from './open-helpers.ts';

const INTERNAL = [
  'http://127.0.0.1:9/hook',
  'http://0177.0.0.1/hook',
  'http://2130706433/hook',
  'http://0x7f.1/hook',
  'http://[::127.0.0.1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://10.0.0.8/hook',
  'http://192.0.2.1/hook',
  'http://[fd00::1]/hook',
  'http://[64:ff9b::a00:1]/hook',
  'http://localhost:8080/hook',
  'http://printer-hub/hook',
];
const PUBLIC = 'https://8.8.8.8/hook';

describe('callbacks on internal addresses, OUTBOUND_PRIVATE=deny (production)', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await createHarness({ OUTBOUND_PRIVATE: 'deny' });
    token = (await customer(h)).token;
  });
  afterAll(() => h.close());

  it.each(INTERNAL)('refuses %s when a key is created or changed, naming callbackUrl', async (callbackUrl) => {
    const before = await h.db
      .selectFrom('app_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const created = await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/create',
      token,
      payload: { name: 'hook', callbackUrl },
    });
    expect(created.statusCode).toBe(400);
    expect(created.body_.data.fields[0].field).toBe('callbackUrl');
    expect(created.body_.msg).toMatch(/^callbackUrl: .*internal address/);
    const after = await h.db
      .selectFrom('app_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);

    const k = await createKey(h, token, { callbackUrl: PUBLIC });
    const changed = await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/update',
      token,
      payload: { id: k.id, callbackUrl },
    });
    expect(changed.statusCode).toBe(400);
    expect(changed.body_.data.fields[0].field).toBe('callbackUrl');
    const row = await h.db
      .selectFrom('app_keys')
      .select('callback_url')
      .where('id', '=', k.id)
      .executeTakeFirstOrThrow();
    expect(row.callback_url).toBe(PUBLIC);
    await h.call({ method: 'POST', url: '/apiAdmin/integration/key/delete', token, payload: { id: k.id } });
  });

  it('says it in zh', async () => {
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/create',
      token,
      headers: { 'accept-language': 'zh-CN' },
      payload: { name: 'hook', callbackUrl: 'http://10.0.0.8/hook' },
    });
    expect(res.body_.msg).toContain('内部地址');
  });

  it('takes a public callback and no callback', async () => {
    expect((await createKey(h, token, { callbackUrl: PUBLIC })).callbackPrivate).toBe(false);
    expect((await createKey(h, token)).callbackPrivate).toBe(false);
  });
});

describe('callbacks on internal addresses, OUTBOUND_PRIVATE=allow (development)', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await createHarness({ OUTBOUND_PRIVATE: 'allow' });
    token = (await customer(h)).token;
  });
  afterAll(() => h.close());

  it('keeps them and marks them callbackPrivate in every view of the key', async () => {
    for (const callbackUrl of INTERNAL) {
      const k = await createKey(h, token, { callbackUrl });
      expect(k.callbackPrivate, callbackUrl).toBe(true);
    }
    const pub = await createKey(h, token, { callbackUrl: PUBLIC });
    expect(pub.callbackPrivate).toBe(false);
    const list = (await h.call({ method: 'GET', url: '/apiAdmin/integration/key/list?pageSize=50', token })).body_.data
      .list;
    expect(list.filter((k: { callbackPrivate: boolean }) => k.callbackPrivate)).toHaveLength(INTERNAL.length);
    const changed = await h.call({
      method: 'POST',
      url: '/apiAdmin/integration/key/update',
      token,
      payload: { id: pub.id, callbackUrl: 'http://192.168.1.20/hook' },
    });
    expect(changed.body_.data.callbackPrivate).toBe(true);
  });
});
