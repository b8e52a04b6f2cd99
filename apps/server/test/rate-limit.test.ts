import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, nextMobile, type Harness } from './harness.ts';
import { secondNode, type Node } from './second-node.ts';

/**
 * Per client address limits of the calls anyone may make (issue 10): captchas, SMS codes, registrations and
 * calls to no route, counted in PostgreSQL so that two nodes on one database share one count.
 */

let h: Harness;
let other: Node;
const CAPTCHA = 3;
const SMS = 2;
const REGISTER = 2;
const NOT_FOUND = 5;
beforeAll(async () => {
  h = await createHarness({
    RATE_LIMIT_CAPTCHA: `${CAPTCHA}/60`,
    RATE_LIMIT_SMS: `${SMS}/60`,
    RATE_LIMIT_REGISTER: `${REGISTER}/60`,
    RATE_LIMIT_NOT_FOUND: `${NOT_FOUND}/60`,
    TRUSTED_PROXIES: '10.0.0.0/8',
  });
  other = await secondNode(h);
});
afterAll(async () => {
  await other.close();
  await h.close();
});

const nodes = () => [h.call.bind(h), other.call.bind(other)];
const statuses = (rs: Array<{ statusCode: number }>) =>
  rs.map((r) => r.statusCode).reduce<Record<number, number>>((a, s) => ({ ...a, [s]: (a[s] ?? 0) + 1 }), {});

function expectLimited(res: Awaited<ReturnType<Harness['call']>>, windowS = 60) {
  expect(res.statusCode).toBe(429);
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowS);
  expect(res.body_).toEqual({
    code: 429,
    msg: `too many requests, try again in ${retryAfter} seconds`,
    data: { retryAfter },
  });
}

describe('per-address rate limits', () => {
  it('limits captchas per client address, one count on both nodes', async () => {
    const call = nodes();
    const ip = '198.51.100.1';
    for (let i = 0; i < CAPTCHA; i++)
      expect((await call[i % 2]({ method: 'GET', url: '/apiAdmin/captcha', remoteAddress: ip })).statusCode).toBe(200);
    for (const f of call) expectLimited(await f({ method: 'GET', url: '/apiAdmin/captcha', remoteAddress: ip }));
    const zh = await h.call({
      method: 'GET',
      url: '/apiAdmin/captcha',
      remoteAddress: ip,
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(zh.body_.msg).toMatch(/^请求过于频繁，请 \d+ 秒后再试$/);
    // another address has its own count
    expect((await h.call({ method: 'GET', url: '/apiAdmin/captcha', remoteAddress: '198.51.100.2' })).statusCode).toBe(
      200,
    );
  });

  it('lets exactly the limit of simultaneous calls through, on two nodes', async () => {
    const call = nodes();
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call[i % 2]({ method: 'GET', url: '/apiAdmin/captcha', remoteAddress: '198.51.100.3' }),
      ),
    );
    expect(statuses(rs)).toEqual({ 200: CAPTCHA, 429: 20 - CAPTCHA });
  });

  it('limits SMS codes per client address, whatever the number', async () => {
    const call = nodes();
    const ip = '198.51.100.4';
    for (let i = 0; i < SMS; i++)
      expect(
        (
          await call[i % 2]({
            method: 'POST',
            url: '/apiAdmin/sms/send',
            payload: { mobile: nextMobile(), purpose: 'register' },
            remoteAddress: ip,
          })
        ).statusCode,
      ).toBe(200);
    const mobile = nextMobile();
    expectLimited(
      await other.call({
        method: 'POST',
        url: '/apiAdmin/sms/send',
        payload: { mobile, purpose: 'register' },
        remoteAddress: ip,
      }),
    );
    // refused before anything was sent
    expect(() => h.lastSmsCode(mobile)).toThrow(/no SMS/);
  });

  it('limits registrations per client address, refused ones too', async () => {
    const call = nodes();
    const ip = '198.51.100.5';
    const body = (i: number) => ({
      type: 'individual',
      username: `rl_user_${i}_${process.pid}`,
      mobile: nextMobile(),
      smsCode: '000000',
      password: 'Passw0rd99',
      confirmPassword: 'Passw0rd99',
    });
    for (let i = 0; i < REGISTER; i++)
      expect(
        (await call[i % 2]({ method: 'POST', url: '/apiAdmin/register', payload: body(i), remoteAddress: ip }))
          .statusCode,
      ).toBe(400);
    expectLimited(await h.call({ method: 'POST', url: '/apiAdmin/register', payload: body(9), remoteAddress: ip }));
  });

  it('limits calls to no route per client address, and leaves the routes alone', async () => {
    const call = nodes();
    const ip = '198.51.100.6';
    const paths = ['/wp-login.php', '/apiAdmin/nothing', '/.env', '/open/v1/nothing', '/apiAdmin/user/v1/nothing'];
    for (let i = 0; i < NOT_FOUND; i++) {
      const res = await call[i % 2]({
        method: i % 2 ? 'POST' : 'GET',
        url: paths[i % paths.length],
        remoteAddress: ip,
      });
      expect(res.statusCode).toBe(404);
      expect(res.body_.code).toBe(404);
    }
    for (const f of call) expectLimited(await f({ method: 'GET', url: '/admin.php', remoteAddress: ip }));
    expect((await h.call({ method: 'GET', url: '/apiAdmin/publicKey', remoteAddress: ip })).statusCode).toBe(200);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/captcha', remoteAddress: ip })).statusCode).toBe(200);
    expect((await h.call({ method: 'GET', url: '/nothing', remoteAddress: '198.51.100.7' })).statusCode).toBe(404);
  });

  it('counts the client a trusted proxy names, each on its own', async () => {
    for (let i = 0; i < CAPTCHA; i++)
      await h.call({
        method: 'GET',
        url: '/apiAdmin/captcha',
        remoteAddress: '10.0.0.1',
        headers: { 'x-forwarded-for': '203.0.113.1' },
      });
    expectLimited(
      await h.call({
        method: 'GET',
        url: '/apiAdmin/captcha',
        remoteAddress: '10.0.0.2',
        headers: { 'x-forwarded-for': '203.0.113.1' },
      }),
    );
    expect(
      (
        await h.call({
          method: 'GET',
          url: '/apiAdmin/captcha',
          remoteAddress: '10.0.0.1',
          headers: { 'x-forwarded-for': '203.0.113.2' },
        })
      ).statusCode,
    ).toBe(200);
  });

  it('refuses a limit that is not requests/seconds', async () => {
    const { loadConfig } = await import('../src/config.ts');
    expect(loadConfig({}).RATE_LIMIT_CAPTCHA).toEqual({ max: 30, windowS: 60 });
    expect(loadConfig({ RATE_LIMIT_SMS: ' 5 / 600 ' }).RATE_LIMIT_SMS).toEqual({ max: 5, windowS: 600 });
    expect(() => loadConfig({ RATE_LIMIT_SMS: '5' })).toThrow(/RATE_LIMIT_SMS: must be requests\/seconds/);
    expect(() => loadConfig({ RATE_LIMIT_NOT_FOUND: '0/60' })).toThrow(/RATE_LIMIT_NOT_FOUND/);
  });
});
