import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  PNG_1x1,
  createHarness,
  multipart,
  nextMobile,
  registerCustomer,
  uploadImage,
  type Harness,
} from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });
const fieldOf = (res: { body_: { data: { fields?: Array<{ field: string }> } | null } }) =>
  res.body_.data?.fields?.map((f) => f.field);

describe('profile', () => {
  it('shows the profile with the mobile masked, the tenant and the account type', async () => {
    const c = await registerCustomer(h, 'enterprise');
    const res = await get('/user/v1/user/profile', c.token);
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toMatchObject({
      username: c.username,
      nickname: '',
      email: '',
      mobile: `${c.mobile.slice(0, 3)}****${c.mobile.slice(-4)}`,
      avatar: '',
      is_super: 1,
      tenantKind: 'enterprise',
      tenantName: c.username,
      authStatus: 0,
      roles: [],
    });
    expect(JSON.stringify(res.body_.data)).not.toContain(c.mobile);
    expect(Date.parse(res.body_.data.createdAt)).not.toBeNaN();
  });

  it('changes the nickname and e-mail, and refuses bad values naming the field', async () => {
    const c = await registerCustomer(h);
    const saved = await post('/user/v1/user/updateProfile', c.token, {
      nickname: '  小王  ',
      email: 'wang@example.com',
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.body_.data).toMatchObject({ nickname: '小王', email: 'wang@example.com' });
    expect((await get('/user/v1/user/profile', c.token)).body_.data).toMatchObject({
      nickname: '小王',
      email: 'wang@example.com',
    });

    const cases: Array<[Record<string, unknown>, string]> = [
      [{ nickname: 'ok', email: 'not-an-email' }, 'email'],
      [{ nickname: 'ok', email: 'a@b' }, 'email'],
      [{ nickname: 'x'.repeat(21), email: '' }, 'nickname'],
      [{ nickname: 'tab\there', email: '' }, 'nickname'],
      [{ nickname: 'ok' }, 'email'],
    ];
    for (const [body, field] of cases) {
      const bad = await post('/user/v1/user/updateProfile', c.token, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.body_.code).toBe(400);
      expect(fieldOf(bad)).toContain(field);
    }
    // an unknown field is refused by name, so the user name cannot be changed through here
    const extra = await post('/user/v1/user/updateProfile', c.token, { nickname: 'ok', email: '', username: 'hijack' });
    expect(extra.statusCode).toBe(400);
    expect(extra.body_.msg).toContain('"username"');
    // nothing of the refused calls was written; '' clears the e-mail
    const cleared = await post('/user/v1/user/updateProfile', c.token, { nickname: '', email: '' });
    expect(cleared.body_.data).toMatchObject({ nickname: '', email: '' });
  });

  it('needs a login', async () => {
    const res = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/profile' });
    expect(res.statusCode).toBe(401);
  });
});

describe('avatar', () => {
  it('sets an uploaded image as the avatar: userInfo and the profile link to it', async () => {
    const c = await registerCustomer(h);
    const key = await uploadImage(h, c.token, 'me.png');
    const res = await post('/user/v1/user/updateAvatar', c.token, { avatarKey: key });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data.avatar).toMatch(/^\/apiAdmin\/objects\/.+\?exp=\d+&sig=/);
    const info = await get('/user/v1/user/userInfo', c.token);
    expect(info.body_.data.avatar).toMatch(/^\/apiAdmin\/objects\//);
    const image = await h.call({ method: 'GET', url: info.body_.data.avatar });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.equals(PNG_1x1)).toBe(true);
  });

  it("refuses another tenant's image, another user's image and a key never uploaded", async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const bKey = await uploadImage(h, b.token);
    const foreign = await post('/user/v1/user/updateAvatar', a.token, { avatarKey: bKey });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.body_.data.fields).toEqual([
      { field: 'avatarKey', message: 'upload the image first', key: 'upload.imageFirst' },
    ]);
    expect((await post('/user/v1/user/updateAvatar', a.token, { avatarKey: '20240101/abc/none.png' })).statusCode).toBe(
      400,
    );
    expect(fieldOf(await post('/user/v1/user/updateAvatar', a.token, { avatarKey: '' }))).toEqual(['avatarKey']);
    // a sub-account of the same tenant cannot take the main account's upload either
    const sub = await post('/system/subAccount/create', b.token, {
      username: `av_${Date.now().toString(36)}`,
      password: 'Passw0rd99',
      confirmPassword: 'Passw0rd99',
    });
    const subLogin = await h.login(sub.body_.data.username, 'Passw0rd99');
    expect((await post('/user/v1/user/updateAvatar', subLogin.token, { avatarKey: bKey })).statusCode).toBe(400);
    expect((await get('/user/v1/user/profile', a.token)).body_.data.avatar).toBe('');
  });

  it('checks the bytes of an avatar upload, not its name', async () => {
    const c = await registerCustomer(h);
    const t = await get('/user/v1/user/getQnToken?bucket=permanentfile', c.token);
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      ...multipart(
        { token: t.body_.data.token },
        { name: 'avatar.png', bytes: Buffer.from('not really a png'), type: 'image/png' },
      ),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toBe('file: uploads must be jpg or png');
  });
});

describe('password and sessions', () => {
  it('changes the password: other sessions end, this one (and its refresh cookie) keeps working', async () => {
    const c = await registerCustomer(h);
    const other = await h.login(c.username, c.password);
    const res = await post('/user/v1/user/changePassword', c.token, {
      oldPassword: c.password,
      password: 'N3wPassword',
      confirmPassword: 'N3wPassword',
    });
    expect(res.statusCode).toBe(200);
    expect((await get('/user/v1/user/userInfo', other.token)).statusCode).toBe(401);
    expect(
      (await h.call({ method: 'GET', url: '/apiAdmin/refreshToken', headers: { cookie: other.cookie } })).statusCode,
    ).toBe(401);
    expect((await get('/user/v1/user/userInfo', c.token)).statusCode).toBe(200);
    expect(
      (await h.call({ method: 'GET', url: '/apiAdmin/refreshToken', headers: { cookie: c.cookie } })).statusCode,
    ).toBe(200);
    expect(
      (
        await h.call({
          method: 'POST',
          url: '/apiAdmin/user/v1/login',
          payload: { username: c.username, password: c.password },
        })
      ).statusCode,
    ).toBe(401);
    await h.login(c.username, 'N3wPassword');
  });

  it('refuses a wrong old password and a weak or unconfirmed new one, changing nothing', async () => {
    const c = await registerCustomer(h);
    const cases: Array<[Record<string, string>, string]> = [
      [{ oldPassword: 'Wrong0ldPass', password: 'N3wPassword', confirmPassword: 'N3wPassword' }, 'oldPassword'],
      [{ oldPassword: c.password, password: 'weakpass', confirmPassword: 'weakpass' }, 'password'],
      [{ oldPassword: c.password, password: 'N3wPassword1234567', confirmPassword: 'N3wPassword1234567' }, 'password'],
      [{ oldPassword: c.password, password: 'N3wPassword', confirmPassword: 'N3wPassword2' }, 'confirmPassword'],
      [{ password: 'N3wPassword', confirmPassword: 'N3wPassword' }, 'oldPassword'],
    ];
    for (const [body, field] of cases) {
      const res = await post('/user/v1/user/changePassword', c.token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldOf(res)).toContain(field);
    }
    await h.login(c.username, c.password);
  });

  it('lists the active sessions, the current one first, and signs out another one', async () => {
    const c = await registerCustomer(h);
    const phone = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: { username: c.username, password: c.password },
      headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile Safari/604.1' },
      remoteAddress: '10.1.2.3',
    });
    const phoneToken = phone.body_.data.token as string;
    const phoneCookie = String(phone.headers['set-cookie']).split(';')[0];
    const list = await get('/user/v1/user/sessions', c.token);
    expect(list.statusCode).toBe(200);
    expect(list.body_.data).toHaveLength(2);
    expect(list.body_.data[0].current).toBe(true);
    const other = list.body_.data.find((s: { current: boolean }) => !s.current);
    expect(other).toMatchObject({ ip: '10.1.2.3', userAgent: expect.stringContaining('iPhone'), current: false });

    // the current session cannot be signed out here, a bad id is refused, another user's session is not found
    expect(fieldOf(await post('/user/v1/user/revokeSession', c.token, { id: list.body_.data[0].id }))).toEqual(['id']);
    expect(fieldOf(await post('/user/v1/user/revokeSession', c.token, { id: 'nope' }))).toEqual(['id']);
    const stranger = await registerCustomer(h);
    expect((await post('/user/v1/user/revokeSession', stranger.token, { id: other.id })).statusCode).toBe(404);
    expect((await get('/user/v1/user/userInfo', phoneToken)).statusCode).toBe(200);

    expect((await post('/user/v1/user/revokeSession', c.token, { id: other.id })).statusCode).toBe(200);
    expect((await get('/user/v1/user/userInfo', phoneToken)).statusCode).toBe(401);
    expect(
      (await h.call({ method: 'GET', url: '/apiAdmin/refreshToken', headers: { cookie: phoneCookie } })).statusCode,
    ).toBe(401);
    expect((await get('/user/v1/user/sessions', c.token)).body_.data.map((s: { id: string }) => s.id)).not.toContain(
      other.id,
    );
    expect((await post('/user/v1/user/revokeSession', c.token, { id: other.id })).statusCode).toBe(404);
  });

  it('does not list a logged-out session', async () => {
    const c = await registerCustomer(h);
    const a = await h.login(c.username, c.password);
    await h.call({ method: 'GET', url: '/apiAdmin/expireToken', token: a.token });
    const list = await get('/user/v1/user/sessions', c.token);
    expect(list.body_.data).toHaveLength(1);
    expect(list.body_.data[0].current).toBe(true);
  });
});

describe('sub-accounts', () => {
  const newSub = (over: Record<string, unknown> = {}) => ({
    username: `sub_${Math.random().toString(36).slice(2, 9)}`,
    password: 'Sub0Passw0rd',
    confirmPassword: 'Sub0Passw0rd',
    ...over,
  });

  it('lets the main account create, list, edit, disable, enable, reset and delete its sub-accounts', async () => {
    const main = await registerCustomer(h);
    const roles = await get('/system/subAccount/roles', main.token);
    expect(roles.statusCode).toBe(200);
    expect(roles.body_.data.map((r: { code: string }) => r.code)).toEqual(['operator', 'viewer']);
    const [operator, viewer] = roles.body_.data;

    const mobile = nextMobile();
    const body = newSub({ nickname: '前台', mobile, roleIds: [operator.id] });
    const created = await post('/system/subAccount/create', main.token, body);
    expect(created.statusCode).toBe(200);
    expect(created.body_.data).toMatchObject({
      username: body.username,
      nickname: '前台',
      mobile,
      state: 'active',
      roles: [{ id: operator.id, code: 'operator' }],
      lastLoginAt: null,
    });
    const id = created.body_.data.id as number;

    // the sub-account logs in with the initial password and holds its role's permissions only
    const s1 = await h.login(body.username, body.password);
    const info = await get('/user/v1/user/userInfo', s1.token);
    expect(info.body_.data).toMatchObject({ username: body.username, is_super: 2, roles: ['operator'] });
    expect(info.body_.data.permissions.sort()).toEqual([
      'device:edit',
      'device:reboot',
      'device:shutdown',
      'device:task',
      'device:view',
      'flowRate:view',
    ]);
    await h.login(mobile, body.password);

    const list = await get('/system/subAccount/list?pageNo=1&pageSize=10', main.token);
    expect(list.body_.data.total).toBe(1);
    expect(list.body_.data.list[0]).toMatchObject({ id, username: body.username, lastLoginAt: expect.any(String) });
    expect(
      (await get(`/system/subAccount/list?keyword=${encodeURIComponent('前台')}`, main.token)).body_.data.total,
    ).toBe(1);
    expect((await get('/system/subAccount/list?keyword=nobody', main.token)).body_.data.total).toBe(0);
    expect((await get('/system/subAccount/list?state=disabled', main.token)).body_.data.total).toBe(0);

    const updated = await post('/system/subAccount/update', main.token, {
      id,
      nickname: '仓库',
      mobile: '',
      email: 'store@example.com',
      roleIds: [viewer.id],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.body_.data).toMatchObject({
      nickname: '仓库',
      mobile: null,
      email: 'store@example.com',
      roles: [{ code: 'viewer' }],
    });

    // disabling ends its sessions and its logins
    const disabled = await post('/system/subAccount/state', main.token, { id, state: 'disabled' });
    expect(disabled.body_.data.state).toBe('disabled');
    expect((await get('/user/v1/user/userInfo', s1.token)).statusCode).toBe(401);
    expect(
      (
        await h.call({
          method: 'POST',
          url: '/apiAdmin/user/v1/login',
          payload: { username: body.username, password: body.password },
        })
      ).statusCode,
    ).toBe(401);
    expect((await get('/system/subAccount/list?state=disabled', main.token)).body_.data.total).toBe(1);
    await post('/system/subAccount/state', main.token, { id, state: 'active' });
    const s2 = await h.login(body.username, body.password);

    // a reset password ends its sessions; only the new one works
    expect(
      (
        await post('/system/subAccount/resetPassword', main.token, {
          id,
          password: 'Reset0Passw0rd',
          confirmPassword: 'Reset0Passw0rd',
        })
      ).statusCode,
    ).toBe(200);
    expect((await get('/user/v1/user/userInfo', s2.token)).statusCode).toBe(401);
    expect(
      (
        await h.call({
          method: 'POST',
          url: '/apiAdmin/user/v1/login',
          payload: { username: body.username, password: body.password },
        })
      ).statusCode,
    ).toBe(401);
    const s3 = await h.login(body.username, 'Reset0Passw0rd');

    // what it uploaded stays with the tenant when it is deleted
    const key = await uploadImage(h, s3.token);
    expect((await post('/system/subAccount/delete', main.token, { id })).statusCode).toBe(200);
    expect((await get('/system/subAccount/list', main.token)).body_.data.total).toBe(0);
    expect((await get('/user/v1/user/userInfo', s3.token)).statusCode).toBe(401);
    expect(
      (
        await h.call({
          method: 'POST',
          url: '/apiAdmin/user/v1/login',
          payload: { username: body.username, password: 'Reset0Passw0rd' },
        })
      ).statusCode,
    ).toBe(401);
    expect((await post('/user/v1/user/updateAvatar', main.token, { avatarKey: key })).statusCode).toBe(200);
    expect((await post('/system/subAccount/delete', main.token, { id })).statusCode).toBe(404);
  });

  it('refuses bad input naming the field, and taken names and numbers', async () => {
    const main = await registerCustomer(h);
    const taken = newSub();
    await post('/system/subAccount/create', main.token, taken);
    const cases: Array<[Record<string, unknown>, string]> = [
      [newSub({ username: 'ab' }), 'username'],
      [newSub({ password: 'short1A', confirmPassword: 'short1A' }), 'password'],
      [newSub({ confirmPassword: 'Other0Passw0rd' }), 'confirmPassword'],
      [newSub({ mobile: '12345' }), 'mobile'],
      [newSub({ email: 'nope' }), 'email'],
      [newSub({ roleIds: [999999] }), 'roleIds'],
      [newSub({ username: taken.username.toUpperCase() }), 'username'],
      [newSub({ mobile: main.mobile }), 'mobile'],
    ];
    for (const [body, field] of cases) {
      const res = await post('/system/subAccount/create', main.token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldOf(res)).toContain(field);
    }
    const escalate = await post('/system/subAccount/create', main.token, newSub({ is_super: 1 }));
    expect(escalate.statusCode).toBe(400);
    expect(escalate.body_.msg).toContain('"is_super"');
    expect(fieldOf(await get('/system/subAccount/list?pageSize=1000', main.token))).toContain('pageSize');
    expect(fieldOf(await post('/system/subAccount/state', main.token, { id: 1, state: 'gone' }))).toContain('state');
    expect((await get('/system/subAccount/list', main.token)).body_.data.total).toBe(1);
  });

  it('answers 403 to a sub-account without system:user:edit on every sub-account call, whatever it sends', async () => {
    const main = await registerCustomer(h);
    const body = newSub();
    const created = await post('/system/subAccount/create', main.token, body);
    const sub = await h.login(body.username, body.password);
    const id = created.body_.data.id;
    const calls: Array<[string, string, unknown]> = [
      ['GET', '/system/subAccount/list', undefined],
      ['GET', '/system/subAccount/roles', undefined],
      ['POST', '/system/subAccount/create', newSub()],
      ['POST', '/system/subAccount/create', { junk: true }],
      ['POST', '/system/subAccount/update', { id, nickname: 'me', mobile: '', email: '', roleIds: [] }],
      ['POST', '/system/subAccount/state', { id, state: 'disabled' }],
      ['POST', '/system/subAccount/resetPassword', { id, password: 'Hack0Passw0rd', confirmPassword: 'Hack0Passw0rd' }],
      ['POST', '/system/subAccount/delete', { id }],
    ];
    for (const [method, url, payload] of calls) {
      const res = await h.call({
        method: method as 'GET',
        url: `/apiAdmin${url}`,
        token: sub.token,
        payload: payload as Record<string, unknown>,
      });
      expect(res.statusCode, url).toBe(403);
      expect(res.body_).toMatchObject({ code: 403, msg: 'permission system:user:edit required' });
    }
    // nothing changed: the sub-account still logs in with its password
    await h.login(body.username, body.password);
  });

  it("answers 404 for another tenant's sub-account and refuses its roles", async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const aBody = newSub();
    const aSub = (await post('/system/subAccount/create', a.token, aBody)).body_.data;
    const bRoles = (await get('/system/subAccount/roles', b.token)).body_.data;
    const calls: Array<[string, Record<string, unknown>]> = [
      ['/system/subAccount/update', { id: aSub.id, nickname: 'x', mobile: '', email: '', roleIds: [] }],
      ['/system/subAccount/state', { id: aSub.id, state: 'disabled' }],
      [
        '/system/subAccount/resetPassword',
        { id: aSub.id, password: 'Hack0Passw0rd', confirmPassword: 'Hack0Passw0rd' },
      ],
      ['/system/subAccount/delete', { id: aSub.id }],
    ];
    for (const [url, payload] of calls) {
      const res = await post(url, b.token, payload);
      expect(res.statusCode, url).toBe(404);
      expect(res.body_.code).toBe(404);
    }
    expect((await get('/system/subAccount/list', b.token)).body_.data).toEqual({ list: [], total: 0 });
    // the main account itself is not a sub-account either
    const aMainId = (await get('/user/v1/user/profile', a.token)).body_.data.id;
    expect((await post('/system/subAccount/delete', a.token, { id: aMainId })).statusCode).toBe(404);
    // roles of another tenant cannot be given
    const withForeignRole = await post('/system/subAccount/create', a.token, newSub({ roleIds: [bRoles[0].id] }));
    expect(fieldOf(withForeignRole)).toEqual(['roleIds']);
    await h.login(aBody.username, aBody.password);
  });

  it('lets the platform admin manage staff users under /system/user with the platform roles', async () => {
    const admin = await h.login('admin', ADMIN_PASSWORD);
    const roles = (await get('/system/user/roles', admin.token)).body_.data;
    expect(roles.map((r: { code: string }) => r.code)).toEqual(['Admin']);
    const list = await get('/system/user/list', admin.token);
    expect(list.statusCode).toBe(200);
  });

  it('documents the calls in the OpenAPI document', async () => {
    const doc = (await h.call({ method: 'GET', url: '/apiAdmin/docs/json' })).json();
    for (const p of [
      '/apiAdmin/system/subAccount/list',
      '/apiAdmin/system/subAccount/create',
      '/apiAdmin/user/v1/user/profile',
      '/apiAdmin/user/v1/user/sessions',
    ])
      expect(doc.paths[p], p).toBeDefined();
    expect(
      doc.paths['/apiAdmin/system/subAccount/create'].post.requestBody.content['application/json'].schema.required,
    ).toEqual(expect.arrayContaining(['username', 'password', 'confirmPassword']));
  });
});
