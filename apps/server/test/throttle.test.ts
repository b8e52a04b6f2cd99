import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSmsOutbox } from '../src/lib/sms.ts';
import { addressKey } from '../src/lib/counters.ts';
import { createHarness, nextMobile, registerCustomer, type Harness } from './harness.ts';
import { secondNode, type Node } from './second-node.ts';

/**
 * The login throttle, the lock screen's password check and the SMS code under concurrency (issue 10): each
 * attempt is counted before its check, in the statement that reads the count, so however many come at once on
 * however many nodes no more than the limit are checked.
 */

let h: Harness;
let other: Node;
beforeAll(async () => {
  h = await createHarness();
  other = await secondNode(h);
});
afterAll(async () => {
  await other.close();
  await h.close();
});

/** Each call on one of the two nodes in turn. */
const nodes = () => [h.call.bind(h), other.call.bind(other)];
const LOGIN = '/apiAdmin/user/v1/login';

const statuses = (rs: Array<{ statusCode: number }>) =>
  rs.map((r) => r.statusCode).reduce<Record<number, number>>((a, s) => ({ ...a, [s]: (a[s] ?? 0) + 1 }), {});

/** Password checks that failed for an account: the login writes one audit row for each. */
const failedChecks = async (userId: number, action = 'login') =>
  Number(
    (
      await h.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('action', '=', action)
        .where('result', '=', 'fail')
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).n,
  );

const userId = async (username: string) =>
  (await h.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirstOrThrow()).id;

describe('login throttle', () => {
  it('checks no more than the limit of 30 simultaneous wrong passwords for one account, on two nodes', async () => {
    const c = await registerCustomer(h);
    const call = nodes();
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call[i % 2]({
          method: 'POST',
          url: LOGIN,
          payload: { username: c.username, password: `Wrong${i}xx` },
          remoteAddress: `198.51.100.${i + 1}`,
        }),
      ),
    );
    const limit = h.config.LOGIN_MAX_FAILS_ACCOUNT;
    expect(statuses(rs)).toEqual({ 401: limit, 429: 30 - limit });
    expect(await failedChecks(await userId(c.username))).toBe(limit);
    // and the account stays locked, for the right password too, on both nodes
    for (const f of call)
      expect(
        (
          await f({
            method: 'POST',
            url: LOGIN,
            payload: { username: c.username, password: c.password },
            remoteAddress: '198.51.100.99',
          })
        ).statusCode,
      ).toBe(429);
  });

  it('checks no more than the per-address limit of simultaneous wrong passwords from one address', async () => {
    const ip = '198.51.100.200';
    const call = nodes();
    const n = h.config.LOGIN_MAX_FAILS_IP * 2;
    const rs = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        call[i % 2]({
          method: 'POST',
          url: LOGIN,
          payload: { username: `spray_${i}_conc`, password: 'WrongPass1' },
          remoteAddress: ip,
        }),
      ),
    );
    expect(statuses(rs)).toEqual({ 401: h.config.LOGIN_MAX_FAILS_IP, 429: n - h.config.LOGIN_MAX_FAILS_IP });
    const checked = await h.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('action', '=', 'login')
      .where('ip', '=', ip)
      .executeTakeFirstOrThrow();
    expect(Number(checked.n)).toBe(h.config.LOGIN_MAX_FAILS_IP);
  });

  it('counts the user name and the mobile number of one account together', async () => {
    const c = await registerCustomer(h);
    const limit = h.config.LOGIN_MAX_FAILS_ACCOUNT;
    for (let i = 0; i < limit; i++) {
      const username = i % 2 ? c.mobile : c.username.toUpperCase();
      expect(
        (
          await h.call({
            method: 'POST',
            url: LOGIN,
            payload: { username, password: 'WrongPass1' },
            remoteAddress: `198.51.101.${i + 1}`,
          })
        ).statusCode,
      ).toBe(401);
    }
    for (const username of [c.username, c.mobile]) {
      const locked = await h.call({
        method: 'POST',
        url: LOGIN,
        payload: { username, password: c.password },
        remoteAddress: '198.51.101.99',
      });
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(h.config.LOGIN_FAIL_WINDOW - 120);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(h.config.LOGIN_FAIL_WINDOW);
    }
  });

  it('still limits names that name no account, each on its own', async () => {
    const limit = h.config.LOGIN_MAX_FAILS_ACCOUNT;
    for (let i = 0; i < limit; i++) {
      expect(
        (
          await h.call({
            method: 'POST',
            url: LOGIN,
            payload: { username: 'ghost_probe', password: `Wrong${i}xx` },
            remoteAddress: `198.51.102.${i + 1}`,
          })
        ).statusCode,
      ).toBe(401);
    }
    expect(
      (
        await h.call({
          method: 'POST',
          url: LOGIN,
          payload: { username: 'GHOST_probe', password: 'WrongPass1' },
          remoteAddress: '198.51.102.50',
        })
      ).statusCode,
    ).toBe(429);
    expect(
      (
        await h.call({
          method: 'POST',
          url: LOGIN,
          payload: { username: 'ghost_probe2', password: 'WrongPass1' },
          remoteAddress: '198.51.102.50',
        })
      ).statusCode,
    ).toBe(401);
  });

  it('counts failed checks: a successful login takes its own count back', async () => {
    const c = await registerCustomer(h);
    const limit = h.config.LOGIN_MAX_FAILS_ACCOUNT;
    const attempt = (password: string) =>
      h.call({
        method: 'POST',
        url: LOGIN,
        payload: { username: c.username, password },
        remoteAddress: '198.51.103.1',
      });
    for (let i = 0; i < limit - 1; i++) expect((await attempt('WrongPass1')).statusCode).toBe(401);
    for (let i = 0; i < 3; i++) expect((await attempt(c.password)).statusCode).toBe(200);
    expect((await attempt('WrongPass1')).statusCode).toBe(401);
    expect((await attempt(c.password)).statusCode).toBe(429);
  });

  it('counts IPv6 clients by their /64', async () => {
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
    for (let i = 0; i < h.config.LOGIN_MAX_FAILS_IP; i++) {
      await h.call({
        method: 'POST',
        url: LOGIN,
        payload: { username: `v6_${i}_probe`, password: 'WrongPass1' },
        remoteAddress: `2001:db8:aa:bb::${(i + 1).toString(16)}`,
      });
    }
    const c = await registerCustomer(h);
    expect(
      (
        await h.call({
          method: 'POST',
          url: LOGIN,
          payload: { username: c.username, password: c.password },
          remoteAddress: '2001:db8:aa:bb:ffff::1',
        })
      ).statusCode,
    ).toBe(429);
    expect(
      (
        await h.call({
          method: 'POST',
          url: LOGIN,
          payload: { username: c.username, password: c.password },
          remoteAddress: '2001:db8:aa:bc::1',
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('typed names the database stores otherwise', () => {
  it('counts a name with a lone surrogate (PostgreSQL stores U+FFFD) instead of failing with 500', async () => {
    const typed = 'x\udc00y';
    for (let i = 0; i < 2; i++) {
      const r = await h.call({
        method: 'POST',
        url: LOGIN,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ username: typed, password: 'Wrong-Passw0rd' }),
      });
      expect(r.statusCode).toBe(401);
      expect(r.body_.code).toBe(401);
    }
  });
});

describe('lock screen', () => {
  it('checks no more than the limit of 30 simultaneous wrong passwords of one session, on two nodes, then ends it', async () => {
    const c = await registerCustomer(h);
    const call = nodes();
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call[i % 2]({
          method: 'POST',
          url: '/apiAdmin/user/v1/user/checkPassword',
          token: c.token,
          payload: { password: `Wrong${i}xx` },
        }),
      ),
    );
    const limit = h.config.LOGIN_MAX_FAILS_ACCOUNT;
    // limit - 1 say how many tries are left, the one that reaches the limit and every one after it sign out
    expect(statuses(rs)).toEqual({ 400: limit - 1, 401: 30 - limit + 1 });
    expect(await failedChecks(await userId(c.username), 'password.check')).toBe(limit);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: c.token })).statusCode).toBe(
      401,
    );
  });

  it('gives a new session its own count', async () => {
    const c = await registerCustomer(h);
    const second = await h.login(c.username, c.password);
    for (let i = 0; i < 3; i++)
      expect(
        (
          await h.call({
            method: 'POST',
            url: '/apiAdmin/user/v1/user/checkPassword',
            token: c.token,
            payload: { password: 'nope' },
          })
        ).statusCode,
      ).toBe(400);
    const other = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/checkPassword',
      token: second.token,
      payload: { password: 'nope' },
    });
    expect(other.body_.data.attemptsLeft).toBe(h.config.LOGIN_MAX_FAILS_ACCOUNT - 1);
  });
});

describe('SMS codes', () => {
  it('compares no more than five of 30 simultaneous guesses of one code: the right one is refused after them', async () => {
    const mobile = nextMobile();
    expect(
      (await h.call({ method: 'POST', url: '/apiAdmin/sms/send', payload: { mobile, purpose: 'register' } }))
        .statusCode,
    ).toBe(200);
    const code = h.lastSmsCode(mobile);
    const body = {
      type: 'individual',
      username: `guess_${mobile.slice(-6)}`,
      mobile,
      password: 'Passw0rd99',
      confirmPassword: 'Passw0rd99',
    };
    const call = nodes();
    const wrong = (i: number) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');
    const rs = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call[i % 2]({ method: 'POST', url: '/apiAdmin/register', payload: { ...body, smsCode: wrong(i) } }),
      ),
    );
    expect(rs.every((r) => r.statusCode === 400)).toBe(true);
    expect(rs.filter((r) => r.body_.msg === 'smsCode: verification code is wrong')).toHaveLength(5);
    const right = await h.call({ method: 'POST', url: '/apiAdmin/register', payload: { ...body, smsCode: code } });
    expect(right.statusCode).toBe(400);
    expect(right.body_.msg).toBe('smsCode: verification code expired, please get a new one');
  });

  it('sends one code for simultaneous requests to one number, on two nodes', async () => {
    const mobile = nextMobile();
    const call = nodes();
    const rs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call[i % 2]({ method: 'POST', url: '/apiAdmin/sms/send', payload: { mobile, purpose: 'register' } }),
      ),
    );
    expect(statuses(rs)).toEqual({ 200: 1, 429: 9 });
    for (const r of rs.filter((x) => x.statusCode === 429)) {
      expect(r.body_.data.countdown).toBeGreaterThan(0);
      expect(Number(r.headers['retry-after'])).toBe(r.body_.data.countdown);
    }
    expect(readSmsOutbox(h.dataDir).filter((m) => m.mobile === mobile)).toHaveLength(1);
  });
});

describe('the window', () => {
  it('starts the count again once the window is over', async () => {
    const hs = await createHarness({ LOGIN_FAIL_WINDOW: '2' });
    try {
      const c = await registerCustomer(hs);
      for (let i = 0; i < hs.config.LOGIN_MAX_FAILS_ACCOUNT; i++)
        await hs.call({ method: 'POST', url: LOGIN, payload: { username: c.username, password: 'WrongPass1' } });
      const locked = await hs.call({
        method: 'POST',
        url: LOGIN,
        payload: { username: c.username, password: c.password },
      });
      expect(locked.statusCode).toBe(429);
      expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 2100));
      expect(
        (await hs.call({ method: 'POST', url: LOGIN, payload: { username: c.username, password: c.password } }))
          .statusCode,
      ).toBe(200);
    } finally {
      await hs.close();
    }
  });
});
