import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ERROR_CAP } from '../src/modules/system/routes.ts';
import { CAPTCHA_ALPHABET, tiltCharacters } from '../src/lib/captcha.ts';
import { MENU } from '../src/modules/menu/seed.ts';
import { ADMIN_PASSWORD, createHarness, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('client errors of customers go to the server log', () => {
  const report = (token: string | undefined, payload: unknown) =>
    h.call({ method: 'POST', url: '/apiAdmin/system/clientError', token, payload: payload as Record<string, unknown> });

  it('takes a bounded report of a signed-in user, up to a cap per session', async () => {
    const c = await registerCustomer(h);
    const first = await report(c.token, {
      message: 'TypeError: x is undefined',
      stack: 'at a (b.js:1:2)',
      url: '/device/index',
    });
    expect(first.statusCode).toBe(200);
    expect(first.body_.data).toEqual({ logged: true });
    for (let i = 1; i < CLIENT_ERROR_CAP; i++)
      expect((await report(c.token, { message: `m${i}`, url: '/' })).body_.data.logged).toBe(true);
    expect((await report(c.token, { message: 'one too many', url: '/' })).body_.data).toEqual({ logged: false });
    // another session has its own share
    const other = await registerCustomer(h);
    expect((await report(other.token, { message: 'm', url: '/' })).body_.data.logged).toBe(true);
  });

  it('refuses strangers and oversized or unknown fields', async () => {
    expect((await report(undefined, { message: 'm', url: '/' })).statusCode).toBe(401);
    const c = await registerCustomer(h);
    expect((await report(c.token, { message: 'x'.repeat(501), url: '/' })).statusCode).toBe(400);
    expect((await report(c.token, { message: 'm', url: '/', token: 'secret' })).statusCode).toBe(400);
  });
});

describe('captcha', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ CAPTCHA_PROVIDER: 'svg', CAPTCHA_TTL_S: '7' });
  });
  afterAll(() => h.close());

  it('says its lifetime, draws tilted characters from an alphabet without look-alikes', async () => {
    const res = await h.call({ method: 'GET', url: '/apiAdmin/captcha' });
    expect(res.body_.data).toMatchObject({ enabled: true, expiresIn: 7 });
    expect(res.body_.data.svg).toMatch(/transform="rotate\(-?\d+ [\d.]+ [\d.]+\)"/);
    expect(res.body_.data.svg).toContain('height="50"');
    for (const ch of '0oO1lIi') expect(CAPTCHA_ALPHABET).not.toContain(ch);
    expect(
      tiltCharacters('<path fill="#abc" d="M10 20L30 40"/><path d="M1 2" stroke="#111" fill="none"/>', () => 1),
    ).toBe(
      '<path fill="#abc" d="M10 20L30 40" transform="rotate(28 20.0 30.0)"/><path d="M1 2" stroke="#111" fill="none"/>',
    );
  });

  it('says a wrong answer once, without repeating the field name', async () => {
    await h.call({ method: 'GET', url: '/apiAdmin/captcha' });
    const payload = {
      username: 'admin',
      password: ADMIN_PASSWORD,
      captchaId: '00000000-0000-0000-0000-000000000000',
      captcha: 'zzzz',
    };
    const en = await h.call({ method: 'POST', url: '/apiAdmin/user/v1/login', payload });
    expect(en.body_.msg).toBe('graphic captcha is wrong or expired');
    expect(en.body_.data.fields).toEqual([
      { field: 'captcha', message: 'graphic captcha is wrong or expired', key: 'auth.captchaWrong' },
    ]);
    const zh = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload,
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(zh.body_.msg).toBe('图形验证码错误或已过期');
  });
});

describe('sessions', () => {
  it('moves last-active on use, at most once a minute per session', async () => {
    const c = await registerCustomer(h);
    const back = async () => {
      await h.db
        .updateTable('sessions')
        .set({ last_active_at: new Date(Date.now() - 10 * 60_000) })
        .execute();
    };
    const lastActive = async () => {
      const list = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/sessions', token: c.token });
      return Date.parse(list.body_.data[0].lastActiveAt);
    };
    await back();
    expect(Date.now() - (await lastActive())).toBeLessThan(30_000);
    // within the minute the next calls do not write again
    await back();
    expect(Date.now() - (await lastActive())).toBeGreaterThan(9 * 60_000);
  });
});

describe('menu', () => {
  it('sends the personal centre to the personal info page (one page, one tab)', async () => {
    const setting = MENU.find((r) => r.path === '/setting')!;
    expect(setting.redirect).toBe('/person/info');
    expect(setting.children?.[0].redirect).toBe('/person/info');
    const c = await registerCustomer(h);
    const menu = await h.call({ method: 'GET', url: '/apiAdmin/admin/login/getMenu', token: c.token });
    expect(JSON.stringify(menu.body_.data)).toContain('"redirect":"/person/info"');
  });
});

describe('validation of a query string', () => {
  it('names the parameter, not the body', async () => {
    const c = await registerCustomer(h);
    const res = await h.call({ method: 'GET', url: '/apiAdmin/device/list?pageNo=0', token: c.token });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields.map((f: { field: string }) => f.field)).toEqual(['pageNo']);
    expect(res.body_.msg).not.toMatch(/body/);
  });

  it('names the query string for an unknown parameter', async () => {
    const c = await registerCustomer(h);
    const res = await h.call({ method: 'GET', url: '/apiAdmin/notice/getList?bogus=1', token: c.token });
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).not.toMatch(/body/);
  });
});

describe('system messages', () => {
  it("show an identity review's title in the reader's language", async () => {
    const c = await registerCustomer(h);
    const user = await h.db
      .selectFrom('users')
      .select(['id', 'tenant_id'])
      .where('username', '=', c.username)
      .executeTakeFirstOrThrow();
    await h.db
      .insertInto('messages')
      .values({
        tenant_id: user.tenant_id,
        user_id: user.id,
        kind: 'identity.reviewed',
        title: 'Identity authentication approved',
        body: '',
        read_at: null,
      })
      .execute();
    const zh = await h.call({
      method: 'GET',
      url: '/apiAdmin/message/getList',
      token: c.token,
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(zh.body_.data.list[0].title).toBe('实名认证已通过');
    const en = await h.call({
      method: 'GET',
      url: '/apiAdmin/message/getList',
      token: c.token,
      headers: { 'accept-language': 'en' },
    });
    expect(en.body_.data.list[0].title).toBe('Identity authentication approved');
  });
});
