import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS, PERMISSIONS } from '@cpc/contracts';
import { ADMIN_PASSWORD, createHarness, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
let admin: string;
let platformId: number;
let adminId: number;
let adminRole: number;
beforeAll(async () => {
  h = await createHarness();
  admin = (await h.login('admin', ADMIN_PASSWORD)).token;
  const row = await h.db
    .selectFrom('users')
    .select(['id', 'tenant_id'])
    .where('username', '=', 'admin')
    .executeTakeFirstOrThrow();
  [adminId, platformId] = [row.id, row.tenant_id];
  adminRole = (
    await h.db
      .selectFrom('roles')
      .select('id')
      .where('tenant_id', '=', platformId)
      .where('code', '=', 'Admin')
      .executeTakeFirstOrThrow()
  ).id;
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });

/** A platform role (the role screen is another section's: written directly). */
async function platformRole(permissions: string[]): Promise<number> {
  const code = `staff_${randomUUID().slice(0, 8)}`;
  return (
    await h.db
      .insertInto('roles')
      .values({ tenant_id: platformId, code, name: code, permissions })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}

async function staff(token: string, roleIds: number[], over: Record<string, unknown> = {}) {
  const username = `st_${randomUUID().slice(0, 8)}`;
  const res = await post('/system/user/create', token, {
    username,
    password: 'Staff0Passw0rd',
    confirmPassword: 'Staff0Passw0rd',
    roleIds,
    ...over,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.body_.data.id as number, username, token: (await h.login(username, 'Staff0Passw0rd')).token };
}

const update = (token: string, id: number, roleIds: number[], over: Record<string, unknown> = {}) =>
  post('/system/user/update', token, { id, nickname: '', mobile: '', email: '', roleIds, ...over });

describe('staff users', () => {
  it('lets the admin create, search, edit, disable, reset and log out staff users', async () => {
    const support = await platformRole([PERMISSIONS.identityReview]);
    const dept = (await post('/system/department/add', admin, { name: '运营部' })).body_.data.id;
    const sub = (await post('/system/department/add', admin, { name: '审核组', parentId: dept })).body_.data.id;
    const u = await staff(admin, [support], { nickname: '小审', departmentId: sub });

    const all = (await get('/system/user/list', admin)).body_.data;
    expect(all.list.map((x: { username: string }) => x.username)).toEqual(
      expect.arrayContaining(['admin', u.username]),
    );
    const search = async (q: string) =>
      ((await get(`/system/user/list?${q}`, admin)).body_.data.list as Array<{ username: string }>).map(
        (x) => x.username,
      );
    expect(await search('keyword=小审')).toEqual([u.username]);
    expect(await search(`departmentId=${dept}`)).toEqual([u.username]);
    expect(await search(`roleId=${adminRole}`)).toEqual(['admin']);
    expect(await search(`roleId=${support}&state=disabled`)).toEqual([]);
    const page = (await get('/system/user/list?pageNo=1&pageSize=1', admin)).body_.data;
    expect(page.list).toHaveLength(1);
    expect(page.total).toBeGreaterThanOrEqual(2);

    const edited = await update(admin, u.id, [support], { nickname: '审核员', departmentId: dept });
    expect(edited.body_.data).toMatchObject({ nickname: '审核员', departmentId: dept, departmentName: '运营部' });

    // force logout: its token stops working, its password still does
    const out = await post('/system/user/logout', admin, { id: u.id });
    expect(out.body_.data).toEqual({ sessions: 1 });
    expect((await get('/user/v1/user/profile', u.token)).statusCode).toBe(401);
    const again = (await h.login(u.username, 'Staff0Passw0rd')).token;

    expect((await post('/system/user/state', admin, { id: u.id, state: 'disabled' })).body_.data.state).toBe(
      'disabled',
    );
    expect((await get('/user/v1/user/profile', again)).statusCode).toBe(401);
    await post('/system/user/state', admin, { id: u.id, state: 'active' });
    const reset = await post('/system/user/resetPassword', admin, {
      id: u.id,
      password: 'New0Passw0rd',
      confirmPassword: 'New0Passw0rd',
    });
    expect(reset.statusCode).toBe(200);
    await h.login(u.username, 'New0Passw0rd');

    // every change is in the system log, the password never
    const log = await h.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('resource_id', '=', String(u.id))
      .where('action', 'like', 'user.%')
      .orderBy('id')
      .execute();
    expect(log.map((l) => l.action)).toEqual([
      'user.create',
      'user.update',
      'user.logout',
      'user.disable',
      'user.enable',
      'user.resetPassword',
    ]);
    expect(log[1].details).toMatchObject({ changes: { nickname: { before: '小审', after: '审核员' } } });
    expect(JSON.stringify(log)).not.toContain('New0Passw0rd');
  });

  it('keeps customers out of the staff routes', async () => {
    const c = await registerCustomer(h);
    expect((await get('/system/user/list', c.token)).statusCode).toBe(403);
    const body = { username: 'intruder01', password: 'Staff0Passw0rd', confirmPassword: 'Staff0Passw0rd' };
    expect((await post('/system/user/create', c.token, body)).statusCode).toBe(403);
    expect(
      (await get('/system/user/list', (await h.login('admin', ADMIN_PASSWORD)).token)).body_.data.list,
    ).not.toContainEqual(expect.objectContaining({ username: 'intruder01' }));
  });

  it('refuses to change one’s own roles or department, or to disable, delete or log out oneself', async () => {
    const self = await update(admin, adminId, []);
    expect(self.statusCode).toBe(403);
    expect(self.body_.msg).toBe('you cannot change your own roles');
    // the nickname alone is fine
    expect((await update(admin, adminId, [adminRole], { nickname: 'Root' })).statusCode).toBe(200);
    for (const [url, body] of [
      ['/system/user/state', { id: adminId, state: 'disabled' }],
      ['/system/user/delete', { id: adminId }],
      ['/system/user/logout', { id: adminId }],
    ] as const)
      expect((await post(url, admin, body)).statusCode, url).toBe(409);
    expect((await get('/user/v1/user/profile', admin)).statusCode).toBe(200);
  });

  it('grants only roles whose permissions the caller holds, and manages only users holding no more', async () => {
    const manager = await staff(admin, [await platformRole([PERMISSIONS.userEdit, PERMISSIONS.noticeEdit])]);
    const small = await platformRole([PERMISSIONS.noticeEdit]);
    expect(
      (
        await post('/system/user/create', manager.token, {
          username: `st_${randomUUID().slice(0, 8)}`,
          password: 'Staff0Passw0rd',
          confirmPassword: 'Staff0Passw0rd',
          roleIds: [adminRole],
        })
      ).statusCode,
    ).toBe(403);
    const made = await staff(manager.token, [small]);
    const raise = await update(manager.token, made.id, [small, adminRole]);
    expect(raise.statusCode).toBe(403);
    expect(raise.body_.msg).toContain('a role holds a permission you do not hold');
    // its own roles: never, even to add one it could grant
    expect((await update(manager.token, manager.id, [small])).statusCode).toBe(403);
    // the admin holds more than the manager: untouchable by it
    expect(
      (
        await post('/system/user/resetPassword', manager.token, {
          id: adminId,
          password: 'Hack0Passw0rd',
          confirmPassword: 'Hack0Passw0rd',
        })
      ).statusCode,
    ).toBe(403);
    await h.login('admin', ADMIN_PASSWORD);
  });

  it('never disables, deletes or strips the last active Admin (409), and does when another remains', async () => {
    // a staff user holding every permission, but not the Admin role
    const everything = await staff(admin, [await platformRole(ALL_PERMISSIONS)]);
    const calls = [
      () => post('/system/user/state', everything.token, { id: adminId, state: 'disabled' }),
      () => post('/system/user/delete', everything.token, { id: adminId }),
      () => update(everything.token, adminId, []),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.statusCode, res.body).toBe(409);
      expect(res.body_.msg).toBe('this is the last active administrator: the platform must keep one');
    }
    // a second Admin: now the first may go
    const second = await staff(admin, [adminRole]);
    expect((await update(everything.token, adminId, [])).statusCode).toBe(200);
    // …and the second is now the last one
    expect((await post('/system/user/state', everything.token, { id: second.id, state: 'disabled' })).statusCode).toBe(
      409,
    );
    // a disabled Admin does not count
    expect((await update(second.token, adminId, [adminRole])).statusCode).toBe(200);
    expect((await post('/system/user/state', second.token, { id: adminId, state: 'disabled' })).statusCode).toBe(200);
    expect((await post('/system/user/state', everything.token, { id: second.id, state: 'disabled' })).statusCode).toBe(
      409,
    );
    await post('/system/user/state', second.token, { id: adminId, state: 'active' });
    await h.login('admin', ADMIN_PASSWORD);
  });
});
