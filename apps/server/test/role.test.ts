import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_PERMISSIONS, PERMISSIONS } from '@cpc/contracts';
import { ADMIN_PASSWORD, createHarness, registerCustomer, type Harness } from './harness.ts';
import { openEvents } from './device-helpers.ts';
import { hashPassword } from '../src/lib/password.ts';

let h: Harness;
let admin: string;
beforeAll(async () => {
  h = await createHarness();
  admin = (await h.login('admin', ADMIN_PASSWORD)).token;
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });
const fieldOf = (res: { body_: { data: { fields?: Array<{ field: string }> } | null } }) =>
  res.body_.data?.fields?.map((f) => f.field);

let seq = 0;
const uniq = (p: string) => `${p}${Date.now().toString(36)}${++seq}`;

/** A customer with a sub-account that signs in; the sub-account is given `roleIds`. */
async function subAccount(mainToken: string, roleIds: number[] = []) {
  const username = uniq('sub_');
  const res = await post('/system/subAccount/create', mainToken, {
    username,
    password: 'Passw0rd99',
    confirmPassword: 'Passw0rd99',
    roleIds,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.body_.data.id as number, username, token: (await h.login(username, 'Passw0rd99')).token };
}

async function createRole(token: string, body: Record<string, unknown>) {
  const res = await post('/system/role/create', token, { name: 'R', code: uniq('r'), ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as { id: number; code: string; permissions: string[] };
}

/** A platform staff user holding `roleCode` (there is no staff-user screen in this module). */
async function staffUser(roleId: number) {
  const platform = await h.db
    .selectFrom('tenants')
    .select('id')
    .where('kind', '=', 'platform')
    .executeTakeFirstOrThrow();
  const username = uniq('staff_');
  const u = await h.db
    .insertInto('users')
    .values({ tenant_id: platform.id, username, password_hash: await hashPassword('Passw0rd99'), is_super: 2 })
    .returning('id')
    .executeTakeFirstOrThrow();
  await h.db.insertInto('user_roles').values({ tenant_id: platform.id, user_id: u.id, role_id: roleId }).execute();
  return { id: u.id, token: (await h.login(username, 'Passw0rd99')).token };
}

describe('roles of a customer', () => {
  it('every new customer has the builtin, editable operator and viewer roles', async () => {
    const c = await registerCustomer(h);
    const list = await get('/system/role/list', c.token);
    expect(list.statusCode).toBe(200);
    expect(list.body_.data.list.map((r: { code: string }) => r.code)).toEqual(['operator', 'viewer']);
    expect(list.body_.data.list[1]).toMatchObject({
      builtin: true,
      locked: false,
      dataScope: 'all',
      permissions: [PERMISSIONS.deviceView, PERMISSIONS.flowRateView],
      memberCount: 0,
    });
    const viewer = list.body_.data.list[1];
    const edited = await post('/system/role/update', c.token, {
      id: viewer.id,
      name: '只读',
      code: 'viewer',
      dataScope: 'own',
      description: 'looks only',
      permissions: [PERMISSIONS.deviceView, PERMISSIONS.printView],
    });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.body_.data).toMatchObject({ name: '只读', dataScope: 'own', description: 'looks only' });
    const log = await h.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'role.update')
      .where('resource_id', '=', String(viewer.id))
      .executeTakeFirstOrThrow();
    const details = (typeof log.details === 'string' ? JSON.parse(log.details) : log.details) as {
      changes: Record<string, unknown>;
    };
    expect(details.changes).toMatchObject({
      name: { before: 'Viewer', after: '只读' },
      data_scope: { before: 'all', after: 'own' },
    });
  });

  it('create, list with keyword, detail, copy; codes unique per tenant', async () => {
    const c = await registerCustomer(h);
    const other = await registerCustomer(h);
    const role = await createRole(c.token, {
      name: '打印员',
      code: 'printer',
      dataScope: 'department',
      permissions: [PERMISSIONS.deviceView, PERMISSIONS.printView, PERMISSIONS.deviceView],
    });
    expect(role.permissions).toEqual([PERMISSIONS.deviceView, PERMISSIONS.printView]);
    // the same code in another tenant is fine, twice in one is not
    await createRole(other.token, { code: 'printer' });
    const again = await post('/system/role/create', c.token, { name: 'x', code: 'PRINTER' });
    expect(again.statusCode).toBe(400);
    expect(fieldOf(again)).toEqual(['code']);

    const found = await get('/system/role/list?keyword=打印', c.token);
    expect(found.body_.data).toMatchObject({ total: 1, list: [{ id: role.id, code: 'printer' }] });
    const detail = await get(`/system/role/detail?id=${role.id}`, c.token);
    expect(detail.body_.data).toMatchObject({
      name: '打印员',
      dataScope: 'department',
      memberCount: 0,
      builtin: false,
    });

    const copy = await post('/system/role/copy', c.token, { id: role.id, name: '打印员 2', code: 'printer2' });
    expect(copy.statusCode, copy.body).toBe(200);
    expect(copy.body_.data).toMatchObject({
      name: '打印员 2',
      code: 'printer2',
      dataScope: 'department',
      permissions: [PERMISSIONS.deviceView, PERMISSIONS.printView],
    });
    expect(copy.body_.data.id).not.toBe(role.id);
    const dup = await post('/system/role/copy', c.token, { id: role.id, name: 'y', code: 'printer2' });
    expect(dup.statusCode).toBe(400);
    expect(fieldOf(dup)).toEqual(['code']);
  });

  it('a customer role cannot hold platform permissions, nor unknown ones (400 naming the code)', async () => {
    const c = await registerCustomer(h);
    const res = await post('/system/role/create', c.token, {
      name: 'x',
      code: 'x1',
      permissions: [PERMISSIONS.deviceView, PERMISSIONS.identityReview],
    });
    expect(res.statusCode).toBe(400);
    expect(fieldOf(res)).toEqual(['permissions']);
    expect(res.body_.msg).toContain(PERMISSIONS.identityReview);
    const unknown = await post('/system/role/create', c.token, { name: 'x', code: 'x2', permissions: ['nope:x'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body_.msg).toContain('nope:x');
    expect(await h.db.selectFrom('roles').select('id').where('code', 'in', ['x1', 'x2']).execute()).toEqual([]);
    // the catalogue a customer is shown has no platform section
    const cat = await get('/system/role/permissions', c.token);
    const codes = cat.body_.data.flatMap((s: { permissions: Array<{ code: string }> }) =>
      s.permissions.map((p) => p.code),
    );
    expect(codes.sort()).toEqual([...CUSTOMER_PERMISSIONS].sort());
    const staffCat = await get('/system/role/permissions', admin);
    expect(staffCat.body_.data.map((s: { key: string }) => s.key)).toContain('platform');
  });

  it("another tenant's role is not found (404), nor can its users be members", async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const role = await createRole(a.token, { permissions: [PERMISSIONS.deviceView] });
    const bSub = await subAccount(b.token);
    for (const res of [
      await get(`/system/role/detail?id=${role.id}`, b.token),
      await get(`/system/role/members?id=${role.id}`, b.token),
      await post('/system/role/update', b.token, { id: role.id, name: 'x', code: 'xx', permissions: [] }),
      await post('/system/role/copy', b.token, { id: role.id, name: 'x', code: 'xcopy' }),
      await post('/system/role/delete', b.token, { id: role.id }),
      await post('/system/role/addMembers', b.token, { id: role.id, userIds: [bSub.id] }),
    ])
      expect(res.statusCode).toBe(404);
    const cross = await post('/system/role/addMembers', a.token, { id: role.id, userIds: [bSub.id] });
    expect(cross.statusCode).toBe(400);
    expect(fieldOf(cross)).toEqual(['userIds']);
    expect((await get(`/system/role/list`, b.token)).body_.data.list.map((r: { id: number }) => r.id)).not.toContain(
      role.id,
    );
  });

  it('a role with members is deleted only with reassignTo; its members move in one go', async () => {
    const c = await registerCustomer(h);
    const role = await createRole(c.token, { permissions: [PERMISSIONS.deviceView, PERMISSIONS.deviceEdit] });
    const target = await createRole(c.token, { permissions: [PERMISSIONS.deviceView] });
    const s1 = await subAccount(c.token, [role.id]);
    const s2 = await subAccount(c.token, [role.id, target.id]);
    const refused = await post('/system/role/delete', c.token, { id: role.id });
    expect(refused.statusCode).toBe(409);
    expect(refused.body_.data).toMatchObject({ memberCount: 2 });
    expect(refused.body_.msg).toContain('2');
    const same = await post('/system/role/delete', c.token, { id: role.id, reassignTo: role.id });
    expect(same.statusCode).toBe(400);
    expect(fieldOf(same)).toEqual(['reassignTo']);
    const other = await registerCustomer(h);
    const foreign = await createRole(other.token, {});
    expect((await post('/system/role/delete', c.token, { id: role.id, reassignTo: foreign.id })).statusCode).toBe(404);

    const done = await post('/system/role/delete', c.token, { id: role.id, reassignTo: target.id });
    expect(done.statusCode, done.body).toBe(200);
    expect((await get(`/system/role/detail?id=${role.id}`, c.token)).statusCode).toBe(404);
    const members = await get(`/system/role/members?id=${target.id}`, c.token);
    expect(members.body_.data.list.map((m: { id: number }) => m.id).sort()).toEqual([s1.id, s2.id].sort());
    // the moved sub-account holds the target's permissions and no more
    const info = await get('/user/v1/user/userInfo', s1.token);
    expect(info.body_.data.permissions).toEqual([PERMISSIONS.deviceView]);

    const empty = await createRole(c.token, {});
    expect((await post('/system/role/delete', c.token, { id: empty.id })).statusCode).toBe(200);
  });

  it('members: list, add users of the tenant, remove', async () => {
    const c = await registerCustomer(h);
    const role = await createRole(c.token, { permissions: [PERMISSIONS.deviceView] });
    const s = await subAccount(c.token);
    const cands = await get(`/system/role/candidates?id=${role.id}`, c.token);
    expect(cands.body_.data.map((u: { id: number }) => u.id)).toContain(s.id);
    expect((await post('/system/role/addMembers', c.token, { id: role.id, userIds: [s.id] })).statusCode).toBe(200);
    const list = await get(`/system/role/members?id=${role.id}`, c.token);
    expect(list.body_.data).toMatchObject({ total: 1, list: [{ id: s.id, username: s.username, main: false }] });
    expect(
      (await get(`/system/role/list`, c.token)).body_.data.list.find((r: { id: number }) => r.id === role.id),
    ).toMatchObject({ memberCount: 1 });
    expect((await post('/system/role/removeMembers', c.token, { id: role.id, userIds: [s.id] })).statusCode).toBe(200);
    expect((await get(`/system/role/members?id=${role.id}`, c.token)).body_.data.total).toBe(0);
  });
});

describe('nobody raises their own permissions', () => {
  it('a sub-account with system:role:edit grants only what it holds, never changes its own role nor joins one', async () => {
    const c = await registerCustomer(h);
    const admins = await createRole(c.token, {
      permissions: [PERMISSIONS.roleEdit, PERMISSIONS.deviceView],
    });
    const sub = await subAccount(c.token, [admins.id]);
    const other = await subAccount(c.token);

    // a role with a permission the sub-account lacks
    const raise = await post('/system/role/create', sub.token, {
      name: 'x',
      code: 'raise',
      permissions: [PERMISSIONS.deviceView, PERMISSIONS.deviceReboot],
    });
    expect(raise.statusCode).toBe(403);
    expect(raise.body_.msg).toContain(PERMISSIONS.deviceReboot);
    // its own role
    const own = await post('/system/role/update', sub.token, {
      id: admins.id,
      name: 'x',
      code: admins.code,
      permissions: [...admins.permissions, PERMISSIONS.userEdit],
    });
    expect(own.statusCode).toBe(403);
    expect((await post('/system/role/delete', sub.token, { id: admins.id })).statusCode).toBe(403);
    // a role it may build, but not join
    const mine = await createRole(sub.token, { permissions: [PERMISSIONS.deviceView] });
    expect((await post('/system/role/addMembers', sub.token, { id: mine.id, userIds: [sub.id] })).statusCode).toBe(403);
    expect((await post('/system/role/addMembers', sub.token, { id: mine.id, userIds: [other.id] })).statusCode).toBe(
      200,
    );
    // nor give others a role holding more than it has
    const operator = (await get('/system/role/list?keyword=operator', c.token)).body_.data.list[0];
    const give = await post('/system/role/addMembers', sub.token, { id: operator.id, userIds: [other.id] });
    expect(give.statusCode).toBe(403);
    const info = await get('/user/v1/user/userInfo', sub.token);
    expect(info.body_.data.permissions.sort()).toEqual([PERMISSIONS.deviceView, PERMISSIONS.roleEdit].sort());
    // the main account may do all of that
    expect((await post('/system/role/addMembers', c.token, { id: operator.id, userIds: [sub.id] })).statusCode).toBe(
      200,
    );
  });

  it('without system:role:edit the role calls are refused; system:user:edit may read the list and catalogue', async () => {
    const c = await registerCustomer(h);
    const users = await createRole(c.token, { permissions: [PERMISSIONS.userEdit] });
    const plain = await subAccount(c.token);
    const userAdmin = await subAccount(c.token, [users.id]);
    expect((await get('/system/role/list', plain.token)).statusCode).toBe(403);
    expect((await get('/system/role/permissions', plain.token)).statusCode).toBe(403);
    expect((await post('/system/role/create', plain.token, { name: 'x', code: 'xx' })).statusCode).toBe(403);
    expect((await get('/system/role/list', userAdmin.token)).statusCode).toBe(200);
    expect((await get('/system/role/permissions', userAdmin.token)).statusCode).toBe(200);
    expect((await post('/system/role/create', userAdmin.token, { name: 'x', code: 'xx' })).statusCode).toBe(403);
  });
});

describe('the platform', () => {
  it('the Admin role is builtin: its permissions are not edited and it is never deleted', async () => {
    const list = await get('/system/role/list?keyword=Admin', admin);
    const role = list.body_.data.list.find((r: { code: string }) => r.code === 'Admin');
    expect(role).toMatchObject({ builtin: true, locked: true });
    const edit = await post('/system/role/update', admin, {
      id: role.id,
      name: 'Administrator',
      code: 'Admin',
      permissions: [PERMISSIONS.deviceView],
    });
    expect(edit.statusCode).toBe(403);
    const rename = await post('/system/role/update', admin, {
      id: role.id,
      name: 'Administrator',
      code: 'Boss',
      permissions: role.permissions,
    });
    expect(rename.statusCode).toBe(403);
    expect((await post('/system/role/delete', admin, { id: role.id })).statusCode).toBe(403);
    const desc = await post('/system/role/update', admin, {
      id: role.id,
      name: 'Administrator',
      code: 'Admin',
      description: 'holds everything',
      permissions: role.permissions,
    });
    expect(desc.statusCode, desc.body).toBe(200);
    expect(desc.body_.data.description).toBe('holds everything');
  });

  it('a staff role may hold platform permissions; a staff member cannot join the Admin role by itself', async () => {
    const reviewers = await createRole(admin, {
      permissions: [PERMISSIONS.identityReview, PERMISSIONS.roleEdit],
    });
    const staff = await staffUser(reviewers.id);
    const adminRole = (await get('/system/role/list?keyword=Admin', admin)).body_.data.list[0];
    expect(
      (await post('/system/role/addMembers', staff.token, { id: adminRole.id, userIds: [staff.id] })).statusCode,
    ).toBe(403);
    const raise = await post('/system/role/create', staff.token, {
      name: 'x',
      code: 'menus',
      permissions: [PERMISSIONS.menuEdit],
    });
    expect(raise.statusCode).toBe(403);
  });
});

describe('a change counts from the very next request', () => {
  it('a member loses a permission at once, and its console is told', async () => {
    const c = await registerCustomer(h);
    const role = await createRole(c.token, { permissions: [PERMISSIONS.deviceView, PERMISSIONS.logView] });
    const sub = await subAccount(c.token, [role.id]);
    const bystander = await subAccount(c.token);
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const [subEv, otherEv] = [await openEvents(h, base, sub.token), await openEvents(h, base, bystander.token)];
    try {
      expect((await get('/device/list', sub.token)).statusCode).toBe(200);
      const cut = await post('/system/role/update', c.token, {
        id: role.id,
        name: 'R',
        code: role.code,
        permissions: [PERMISSIONS.logView],
      });
      expect(cut.statusCode).toBe(200);
      // the same token, the very next call
      const refused = await get('/device/list', sub.token);
      expect(refused.statusCode).toBe(403);
      const ev = await subEv.waitFor('the permissions event', (e) => e.type === 'permissions');
      expect(ev.data).toEqual({ userIds: [sub.id] });
      const info = await get('/user/v1/user/userInfo', sub.token);
      expect(info.body_.data.permissions).toEqual([PERMISSIONS.logView]);
      // added back as a member of another role: also at once
      const viewer = (await get('/system/role/list?keyword=viewer', c.token)).body_.data.list[0];
      await post('/system/role/addMembers', c.token, { id: viewer.id, userIds: [sub.id] });
      expect((await get('/device/list', sub.token)).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
      expect(otherEv.events.filter((e) => e.type === 'permissions')).toEqual([]);
    } finally {
      subEv.close();
      otherEv.close();
    }
  });
});
