import { readSmsOutbox } from '../src/lib/sms.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, createHarness, nextMobile, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('register', () => {
  it('registers an individual through the SMS outbox and is logged in with status 0', async () => {
    const c = await registerCustomer(h, 'individual');
    const info = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: c.token });
    expect(info.statusCode).toBe(200);
    expect(info.body_.data).toMatchObject({
      username: c.username,
      mobile: c.mobile,
      status: 0,
      attest_name: '',
      is_super: 1,
      tenantKind: 'individual',
      admin: false,
    });
  });

  it('writes the SMS to DATA_DIR/outbox/sms.jsonl and refuses a resend within the countdown', async () => {
    const mobile = nextMobile();
    const first = await h.call({ method: 'POST', url: '/apiAdmin/sms/send', payload: { mobile, purpose: 'register' } });
    expect(first.body_).toMatchObject({ code: 200, data: { countdown: 60 } });
    expect(readSmsOutbox(h.dataDir).pop()).toMatchObject({
      mobile,
      template: 'register',
      params: { code: expect.stringMatching(/^\d{6}$/) },
    });
    const again = await h.call({ method: 'POST', url: '/apiAdmin/sms/send', payload: { mobile, purpose: 'register' } });
    expect(again.statusCode).toBe(429);
    expect(again.body_.msg).toMatch(/resent after \d+ seconds/);
    expect(again.headers['retry-after']).toBeDefined();
  });

  it('refuses a wrong SMS code, then accepts the right one once', async () => {
    const mobile = nextMobile();
    await h.call({ method: 'POST', url: '/apiAdmin/sms/send', payload: { mobile } });
    const code = h.lastSmsCode(mobile);
    const wrong = code === '000000' ? '111111' : '000000';
    const body = {
      type: 'enterprise',
      username: 'ent_sms_test',
      mobile,
      password: 'Passw0rd99',
      confirmPassword: 'Passw0rd99',
    };
    const bad = await h.call({ method: 'POST', url: '/apiAdmin/register', payload: { ...body, smsCode: wrong } });
    expect(bad.statusCode).toBe(400);
    expect(bad.body_.data.fields[0].field).toBe('smsCode');
    const good = await h.call({ method: 'POST', url: '/apiAdmin/register', payload: { ...body, smsCode: code } });
    expect(good.statusCode).toBe(200);
    const info = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: good.body_.data.token });
    expect(info.body_.data.tenantKind).toBe('enterprise');
    const replay = await h.call({
      method: 'POST',
      url: '/apiAdmin/register',
      payload: { ...body, username: 'ent_sms_again', smsCode: code },
    });
    expect(replay.statusCode).toBe(400);
  });

  it('refuses a taken user name or mobile number, naming the field', async () => {
    const c = await registerCustomer(h);
    const mobile = nextMobile();
    await h.call({ method: 'POST', url: '/apiAdmin/sms/send', payload: { mobile } });
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/register',
      payload: {
        type: 'individual',
        username: c.username.toUpperCase(),
        mobile,
        smsCode: h.lastSmsCode(mobile),
        password: 'Passw0rd99',
        confirmPassword: 'Passw0rd99',
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields[0]).toEqual({
      field: 'username',
      message: 'this user name is taken',
      key: 'auth.usernameTaken',
    });
    const sms = await h.call({ method: 'POST', url: '/apiAdmin/sms/send', payload: { mobile: c.mobile } });
    expect(sms.statusCode).toBe(400);
    expect(sms.body_.msg).toBe('mobile: this mobile number is already registered');
  });
});

describe('login', () => {
  it('logs in by user name or by mobile number at both paths', async () => {
    const c = await registerCustomer(h);
    for (const url of ['/apiAdmin/user/v1/login', '/apiAdmin/user/login']) {
      for (const username of [c.username, c.mobile]) {
        const res = await h.call({ method: 'POST', url, payload: { username, password: c.password } });
        expect(res.statusCode).toBe(200);
        expect(res.body_.data).toMatchObject({ token: expect.any(String), status: 0, username: c.username });
        expect(String(res.headers['set-cookie'])).toMatch(/cpc_refresh=.*HttpOnly/i);
      }
    }
  });

  it('answers a wrong password with the generic 401 and records it in the audit log', async () => {
    const c = await registerCustomer(h);
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: c.username, password: 'WrongPass1' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.body_).toEqual({ code: 401, msg: 'wrong user name or password', data: null });
    const unknown = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: 'nobody_here', password: 'WrongPass1' },
    });
    expect(unknown.body_.msg).toBe(res.body_.msg);
    const rows = await h.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'login')
      .where('result', '=', 'fail')
      .where('subject', '=', c.username)
      .execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0].details)).not.toContain('WrongPass1');
  });

  it('locks an account after repeated failures, even with the right password', async () => {
    const c = await registerCustomer(h);
    for (let i = 0; i < h.config.LOGIN_MAX_FAILS_ACCOUNT; i++) {
      const r = await h.call({
        method: 'POST',
        url: '/apiAdmin/user/v1/login',
        payload: { username: c.username, password: 'WrongPass1' },
        remoteAddress: `10.0.0.${i + 1}`,
      });
      expect(r.statusCode).toBe(401);
    }
    const locked = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: c.username, password: c.password },
    });
    expect(locked.statusCode).toBe(429);
    // the seconds left of the window that began with the first failure
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(h.config.LOGIN_FAIL_WINDOW - 60);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(h.config.LOGIN_FAIL_WINDOW);
  });

  it('throttles a client address that tries many accounts', async () => {
    const ip = '10.9.9.9';
    for (let i = 0; i < h.config.LOGIN_MAX_FAILS_IP; i++) {
      await h.call({
        method: 'POST',
        url: '/apiAdmin/user/v1/login',
        payload: { username: `spray_${i}_user`, password: 'WrongPass1' },
        remoteAddress: ip,
      });
    }
    const c = await registerCustomer(h);
    const r = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: c.username, password: c.password },
      remoteAddress: ip,
    });
    expect(r.statusCode).toBe(429);
    const other = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: c.username, password: c.password },
      remoteAddress: '10.9.9.10',
    });
    expect(other.statusCode).toBe(200);
  });

  it('requires and checks the graphic captcha when the provider is svg', async () => {
    const hs = await createHarness({ CAPTCHA_PROVIDER: 'svg' });
    try {
      const missing = await hs.call({
        method: 'POST',
        url: '/apiAdmin/user/v1/login',
        payload: { username: 'admin', password: ADMIN_PASSWORD },
      });
      expect(missing.statusCode).toBe(400);
      expect(missing.body_.data.fields[0].field).toBe('captcha');
      const cap = await hs.call({ method: 'GET', url: '/apiAdmin/captcha' });
      expect(cap.body_.data).toMatchObject({ enabled: true, svg: expect.stringContaining('<svg') });
      const { answer } = await hs.db
        .selectFrom('captchas')
        .select('answer')
        .where('id', '=', cap.body_.data.captchaId)
        .executeTakeFirstOrThrow();
      const good = await hs.call({
        method: 'POST',
        url: '/apiAdmin/user/v1/login',
        payload: {
          username: 'admin',
          password: ADMIN_PASSWORD,
          captchaId: cap.body_.data.captchaId,
          captcha: answer.toUpperCase(),
        },
      });
      expect(good.statusCode).toBe(200);
      const reused = await hs.call({
        method: 'POST',
        url: '/apiAdmin/user/v1/login',
        payload: { username: 'admin', password: ADMIN_PASSWORD, captchaId: cap.body_.data.captchaId, captcha: answer },
      });
      expect(reused.statusCode).toBe(400);
    } finally {
      await hs.close();
    }
  });

  it('refuses CAPTCHA_PROVIDER=off in production', async () => {
    const { loadConfig } = await import('../src/config.ts');
    expect(() => loadConfig({ CAPTCHA_PROVIDER: 'off', NODE_ENV: 'production' })).toThrow(/CAPTCHA_PROVIDER/);
  });
});

describe('tokens and sessions', () => {
  it('answers 401 without a token and with a forged one', async () => {
    const none = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo' });
    expect(none.statusCode).toBe(401);
    const forged = await h.call({
      method: 'GET',
      url: '/apiAdmin/user/v1/user/userInfo',
      token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.x',
    });
    expect(forged.statusCode).toBe(401);
  });

  it('answers 402 for an expired access token and refreshes it with the cookie, rotating it', async () => {
    const hs = await createHarness({ ACCESS_TOKEN_TTL: '5' });
    try {
      const { token, cookie } = await hs.login('admin', ADMIN_PASSWORD);
      const jwt = await import('jose');
      // A token signed with the server's key but already expired.
      const secret = (
        await hs.db.selectFrom('app_settings').select('value').where('key', '=', 'jwt_secret').executeTakeFirstOrThrow()
      ).value;
      const claims = jwt.decodeJwt(token);
      const expired = await new jwt.SignJWT({ tid: claims.tid, sid: claims.sid })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(String(claims.sub))
        .setIssuedAt(1)
        .setExpirationTime(2)
        .sign(new TextEncoder().encode(secret));
      const r = await hs.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: expired });
      expect(r.statusCode).toBe(402);
      expect(r.body_).toEqual({ code: 402, msg: 'token expired', data: null });

      const refreshed = await hs.call({ method: 'GET', url: '/apiAdmin/refreshToken', headers: { cookie } });
      expect(refreshed.statusCode).toBe(200);
      const newToken = refreshed.body_.data.token;
      const newCookie = String(refreshed.headers['set-cookie']).split(';')[0];
      expect(newCookie).not.toBe(cookie);
      expect(
        (await hs.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: newToken })).statusCode,
      ).toBe(200);

      // Reusing the old cookie revokes the whole chain: the new token and new cookie stop working too.
      const reuse = await hs.call({ method: 'GET', url: '/apiAdmin/refreshToken', headers: { cookie } });
      expect(reuse.statusCode).toBe(401);
      expect(
        (await hs.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: newToken })).statusCode,
      ).toBe(401);
      expect(
        (await hs.call({ method: 'GET', url: '/apiAdmin/refreshToken', headers: { cookie: newCookie } })).statusCode,
      ).toBe(401);
    } finally {
      await hs.close();
    }
  });

  it('answers 401 to a refresh without a cookie', async () => {
    const r = await h.call({ method: 'GET', url: '/apiAdmin/refreshToken' });
    expect(r.statusCode).toBe(401);
  });

  it('logout ends every session of the user', async () => {
    const c = await registerCustomer(h);
    const a = await h.login(c.username, c.password);
    const b = await h.login(c.mobile, c.password);
    const out = await h.call({ method: 'GET', url: '/apiAdmin/logout', token: a.token });
    expect(out.statusCode).toBe(200);
    for (const s of [a, b]) {
      expect((await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: s.token })).statusCode).toBe(
        401,
      );
      expect(
        (await h.call({ method: 'GET', url: '/apiAdmin/refreshToken', headers: { cookie: s.cookie } })).statusCode,
      ).toBe(401);
    }
  });

  it('expireToken ends only the current session', async () => {
    const c = await registerCustomer(h);
    const a = await h.login(c.username, c.password);
    const b = await h.login(c.username, c.password);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/expireToken', token: a.token })).statusCode).toBe(200);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: a.token })).statusCode).toBe(
      401,
    );
    expect(
      (await h.call({ method: 'GET', url: '/apiAdmin/refreshToken', headers: { cookie: a.cookie } })).statusCode,
    ).toBe(401);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: b.token })).statusCode).toBe(
      200,
    );
  });

  it('answers social login with a clear 400: no provider is configured', async () => {
    const r = await h.call({
      method: 'POST',
      url: '/apiAdmin/socialLogin',
      payload: { provider: 'wechat', code: 'abc' },
    });
    expect(r.statusCode).toBe(400);
    expect(r.body_.msg).toMatch(/not enabled/);
  });

  it('disabling a user ends their sessions at once', async () => {
    const c = await registerCustomer(h);
    await h.db.updateTable('users').set({ state: 'disabled' }).where('username', '=', c.username).execute();
    expect((await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: c.token })).statusCode).toBe(
      401,
    );
    expect(
      (
        await h.call({
          method: 'POST',
          url: '/apiAdmin/user/v1/login',
          payload: { username: c.username, password: c.password },
        })
      ).statusCode,
    ).toBe(401);
  });

  it('changes the password with the old one, ending other sessions', async () => {
    const c = await registerCustomer(h);
    const other = await h.login(c.username, c.password);
    const wrong = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/changePassword',
      token: c.token,
      payload: { oldPassword: 'Nope12345', password: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body_.data.fields[0].field).toBe('oldPassword');
    const ok = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/changePassword',
      token: c.token,
      payload: { oldPassword: c.password, password: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' },
    });
    expect(ok.statusCode).toBe(200);
    expect(
      (await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: other.token })).statusCode,
    ).toBe(401);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: c.token })).statusCode).toBe(
      200,
    );
    await h.login(c.username, 'NewPassw0rd');
  });

  it('checks the password for the screen lock', async () => {
    const c = await registerCustomer(h);
    expect(
      (
        await h.call({
          method: 'POST',
          url: '/apiAdmin/user/v1/user/checkPassword',
          token: c.token,
          payload: { password: c.password },
        })
      ).statusCode,
    ).toBe(200);
    const bad = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/checkPassword',
      token: c.token,
      payload: { password: 'nope' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body_.msg).toBe('password: please enter the correct password');
    expect(bad.body_.data.attemptsLeft).toBe(4);
  });

  it('signs a session out after five wrong passwords, on the lock screen or in a password change', async () => {
    const c = await registerCustomer(h);
    for (let i = 0; i < 3; i++) {
      const r = await h.call({
        method: 'POST',
        url: '/apiAdmin/user/v1/user/checkPassword',
        token: c.token,
        payload: { password: `Wrong${i}` },
      });
      expect(r.statusCode).toBe(400);
    }
    // the right password still opens before the limit
    expect(
      (
        await h.call({
          method: 'POST',
          url: '/apiAdmin/user/v1/user/checkPassword',
          token: c.token,
          payload: { password: c.password },
        })
      ).statusCode,
    ).toBe(200);
    const fourth = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/changePassword',
      token: c.token,
      payload: { oldPassword: 'Wrong3', password: 'NewPassw0rd', confirmPassword: 'NewPassw0rd' },
    });
    expect(fourth.statusCode).toBe(400);
    expect(fourth.body_.data.attemptsLeft).toBe(1);
    const fifth = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/user/checkPassword',
      token: c.token,
      payload: { password: 'Wrong4' },
    });
    expect(fifth.statusCode).toBe(401);
    expect(fifth.body_.msg).toMatch(/too many wrong passwords/);
    // the session is over: even the right password and every other call answer 401
    expect((await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: c.token })).statusCode).toBe(
      401,
    );
    // a new login (through the login's own captcha and throttling) starts a new count
    const again = await h.login(c.username, c.password);
    expect(
      (
        await h.call({
          method: 'POST',
          url: '/apiAdmin/user/v1/user/checkPassword',
          token: again.token,
          payload: { password: c.password },
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('messages in the console’s language', () => {
  it('says msg in zh when the console asks for zh, and keeps data.fields in en for programs', async () => {
    const zh = { 'accept-language': 'zh-CN' };
    const refused = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      headers: zh,
      payload: { username: 'nobody_here', password: 'Whatever123' },
    });
    expect(refused.body_.code).toBe(401);
    expect(refused.body_.msg).toBe('用户名或密码错误');
    const invalid = await h.call({
      method: 'POST',
      url: '/apiAdmin/sms/send',
      headers: zh,
      payload: { mobile: '123', purpose: 'register' },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body_.msg).toContain('手机号：请输入以 1 开头的 11 位手机号');
    expect(invalid.body_.data.fields).toContainEqual({
      field: 'mobile',
      message: 'must be 11 digits starting with 1',
      key: 'rule.mobile',
    });
    const unknown = await h.call({ method: 'GET', url: '/apiAdmin/no/such/call', headers: zh });
    expect(unknown.body_.msg).toBe('GET /apiAdmin/no/such/call：访问的资源不存在');
    // no language asked for (a script, an integrator): en, as before
    const en = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: 'nobody_here', password: 'Whatever123' },
    });
    expect(en.body_.msg).toBe('wrong user name or password');
  });
});

describe('menu and public endpoints', () => {
  it('gives a customer the device menu and its own administration, without the staff and error sections', async () => {
    const c = await registerCustomer(h);
    for (const url of [
      '/apiAdmin/admin/login/getMenu',
      '/apiAdmin/user/system/user_menu_list',
      '/apiAdmin/developer/developer/menuList',
    ]) {
      const r = await h.call({ method: 'GET', url, token: c.token });
      const names = r.body_.data.map((m: { name: string }) => m.name);
      expect(names).toContain('Device');
      expect(names).not.toContain('Error');
      // the administration of its own tenant, none of the platform's screens
      const system = r.body_.data.find((m: { name: string }) => m.name === 'System');
      expect(system.children.map((m: { name: string }) => m.name)).toEqual([
        'UserManagement',
        'RoleManagement',
        'DepartmentManagement',
        'SystemLog',
      ]);
    }
  });

  it('gives the platform admin the error pages and the identity review', async () => {
    const a = await h.login('admin', ADMIN_PASSWORD);
    const r = await h.call({ method: 'GET', url: '/apiAdmin/admin/login/getMenu', token: a.token });
    const names = r.body_.data.map((m: { name: string }) => m.name);
    expect(names).toEqual(expect.arrayContaining(['Device', 'Error', 'System']));
    const info = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/userInfo', token: a.token });
    expect(info.body_.data).toMatchObject({ admin: true, status: 1, roles: ['Admin'] });
  });

  it('answers /publicKey with an empty key when encryption is off', async () => {
    const r = await h.call({ method: 'GET', url: '/apiAdmin/publicKey' });
    expect(r.body_).toEqual({ code: 200, msg: 'ok', data: { publicKey: '', mockServer: false, scheme: 'off' } });
  });

  it('lists notices and messages', async () => {
    await h.db.insertInto('notices').values({ title: 'Maintenance', body_html: '<p>Sunday</p>' }).execute();
    const c = await registerCustomer(h);
    const n = await h.call({ method: 'GET', url: '/apiAdmin/notice/getList', token: c.token });
    expect(n.body_.data.total).toBeGreaterThanOrEqual(1);
    expect(n.body_.data.list[0]).toMatchObject({ title: 'Maintenance', notice: '<p>Sunday</p>' });
    const m = await h.call({ method: 'GET', url: '/apiAdmin/message/getList', token: c.token });
    expect(m.body_.data).toEqual({ list: [], total: 0 });
  });

  it('serves the OpenAPI document generated from the schemas', async () => {
    const r = await h.call({ method: 'GET', url: '/apiAdmin/docs/json' });
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    expect(doc.paths['/apiAdmin/user/v1/login'].post.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['username', 'password']),
    );
  });

  it('answers an unknown path with 404 in the envelope', async () => {
    const r = await h.call({ method: 'GET', url: '/apiAdmin/nope' });
    expect(r.statusCode).toBe(404);
    expect(r.body_.code).toBe(404);
  });
});
