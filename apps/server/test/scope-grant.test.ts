import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type DataScope } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, type Customer } from './device-helpers.ts';
import { hashPassword } from '../src/lib/password.ts';

/**
 * Giving data scope: nobody gives a scope wider than their own, nor places a user outside it, through any of the
 * screens that make roles or give them (roles, members, sub-accounts, staff users); and the platform's Admin
 * role is the admin's alone to rename, with its code and scope fixed.
 */
let h: Harness;
let A: Customer;
beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown, headers: Record<string, string> = {}) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown>, headers });

const uniq = (p: string) => `${p}${randomUUID().slice(0, 8)}`;
const PASSWORD = 'Sub0Passw0rd';
const EDITOR_RIGHTS = [PERMISSIONS.roleEdit, PERMISSIONS.userEdit, PERMISSIONS.deviceView];

/** A role of tenant A written directly (as the main account could make it). */
async function role(scope: DataScope, permissions: string[] = [PERMISSIONS.deviceView]) {
  const code = uniq('r_');
  const r = await h.db
    .insertInto('roles')
    .values({ tenant_id: A.tenantId, code, name: code, permissions, data_scope: scope })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: r.id, code };
}

/** A sub-account made by the main account, signed in. */
async function sub(roleIds: number[], departmentId: number | null) {
  const username = uniq('sg_');
  const res = await post('/system/subAccount/create', A.token, {
    username,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    roleIds,
    departmentId,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.body_.data.id as number, username, token: (await h.login(username, PASSWORD)).token };
}

const createSub = (token: string, roleIds: number[], departmentId: number | null, username = uniq('sg_')) =>
  post('/system/subAccount/create', token, {
    username,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    roleIds,
    departmentId,
  });

const dept = async (name: string, parentId: number | null = null) =>
  (await post('/system/department/add', A.token, { name, parentId })).body_.data.id as number;
const sns = async (token: string) =>
  ((await get('/device/list?pageSize=100', token)).body_.data.list as Array<{ sn: string }>).map((d) => d.sn).sort();
const rolesOfUser = async (id: number) =>
  (await h.db.selectFrom('user_roles').select('role_id').where('user_id', '=', id).orderBy('role_id').execute()).map(
    (r) => r.role_id,
  );
const roleRow = (id: number) =>
  h.db
    .selectFrom('roles')
    .select(['name', 'code', 'data_scope', 'permissions'])
    .where('id', '=', id)
    .executeTakeFirst();
const userNamed = (username: string) =>
  h.db.selectFrom('users').select('id').where('username', '=', username).executeTakeFirst();

let north: number;
let northEast: number;
let south: number;
const SN = { north: 'SGRANT-00001', northEast: 'SGRANT-00002', south: 'SGRANT-00003', none: 'SGRANT-00004' };

beforeAll(async () => {
  north = await dept('North');
  northEast = await dept('North-East', north);
  south = await dept('South');
  const ids = await devicesOf(h, A.tenantId, makeSpecs(4, { prefix: 'SGRANT' }));
  await post('/device/edit', A.token, { id: ids.get(SN.north), departmentId: north });
  await post('/device/edit', A.token, { id: ids.get(SN.northEast), departmentId: northEast });
  await post('/device/edit', A.token, { id: ids.get(SN.south), departmentId: south });
});

describe('an own-scoped role and user editor', () => {
  it('cannot make a role with scope all, give it to a new sub-account and see every device', async () => {
    const editor = await sub([(await role('own', EDITOR_RIGHTS)).id], south);
    expect(await sns(editor.token)).toEqual([]);

    const code = uniq('wide_');
    const made = await post('/system/role/create', editor.token, {
      name: 'wide',
      code,
      permissions: [PERMISSIONS.deviceView],
      dataScope: 'all',
    });
    expect(made.statusCode, made.body).toBe(403);
    expect(made.body_.msg).toBe('dataScope: the data scope "all" is wider than your own ("own only")');
    expect(await h.db.selectFrom('roles').select('id').where('code', '=', code).executeTakeFirst()).toBeUndefined();
    // the same in Chinese
    const zh = await post(
      '/system/role/create',
      editor.token,
      { name: 'wide', code, permissions: [PERMISSIONS.deviceView], dataScope: 'all' },
      { 'accept-language': 'zh-CN' },
    );
    expect(zh.body_.msg).toContain('数据范围“全部数据”超出了您自己的数据范围（“仅本人”）');

    // nor give such a role made by someone else: no sub-account comes of it
    const wide = await role('all');
    const username = uniq('sg_');
    const given = await createSub(editor.token, [wide.id], null, username);
    expect(given.statusCode, given.body).toBe(403);
    expect(given.body_.msg).toContain(`the role ${wide.code} has the data scope "all"`);
    expect(await userNamed(username)).toBeUndefined();

    // what it may do: an own role, a sub-account with it in its own department, who sees nothing of the tenant
    const narrow = await post('/system/role/create', editor.token, {
      name: 'narrow',
      code: uniq('narrow_'),
      permissions: [PERMISSIONS.deviceView],
      dataScope: 'own',
    });
    expect(narrow.statusCode, narrow.body).toBe(200);
    const made2 = await createSub(editor.token, [narrow.body_.data.id], south);
    expect(made2.statusCode, made2.body).toBe(200);
    const login = await h.login(made2.body_.data.username, PASSWORD);
    expect(await sns(login.token)).toEqual([]);
    // the console decides what to offer from the user info: the scope and the user's own department
    expect((await get('/user/v1/user/userInfo', login.token)).body_.data).toMatchObject({
      dataScope: 'own',
      departmentId: south,
    });
    // and the role picker from each role's scope: the wide one is shown as not to be given
    const offered = (await get('/system/subAccount/roles', editor.token)).body_.data as {
      id: number;
      dataScope: string;
    }[];
    expect(offered.find((r) => r.id === wide.id)?.dataScope).toBe('all');
    expect(offered.find((r) => r.id === narrow.body_.data.id)?.dataScope).toBe('own');
  });

  it('is refused on every path that would give a wider scope, and nothing changes', async () => {
    const editor = await sub([(await role('own', EDITOR_RIGHTS)).id], south);
    const wide = await role('all');
    const dep = await role('department');
    const mine = await role('own');

    // create with department
    expect(
      (
        await post('/system/role/create', editor.token, {
          name: 'x',
          code: uniq('x_'),
          permissions: [PERMISSIONS.deviceView],
          dataScope: 'department',
        })
      ).statusCode,
    ).toBe(403);
    // update an own role to all
    const widen = await post('/system/role/update', editor.token, {
      id: mine.id,
      name: mine.code,
      code: mine.code,
      permissions: [PERMISSIONS.deviceView],
      dataScope: 'all',
    });
    expect(widen.statusCode, widen.body).toBe(403);
    expect((await roleRow(mine.id))?.data_scope).toBe('own');
    // change a role wider than its own (even keeping its scope)
    const rename = await post('/system/role/update', editor.token, {
      id: wide.id,
      name: 'renamed',
      code: wide.code,
      permissions: [PERMISSIONS.deviceView],
      dataScope: 'all',
    });
    expect(rename.statusCode, rename.body).toBe(403);
    expect((await roleRow(wide.id))?.name).toBe(wide.code);
    // copy an all role
    const copyCode = uniq('copy_');
    const copy = await post('/system/role/copy', editor.token, { id: wide.id, name: 'copy', code: copyCode });
    expect(copy.statusCode, copy.body).toBe(403);
    expect(await h.db.selectFrom('roles').select('id').where('code', '=', copyCode).executeTakeFirst()).toBeUndefined();

    // a user it may manage: own scope, no department
    const target = await sub([mine.id], null);
    // add members of an all / department role
    for (const r of [wide, dep]) {
      const add = await post('/system/role/addMembers', editor.token, { id: r.id, userIds: [target.id] });
      expect(add.statusCode, add.body).toBe(403);
    }
    expect(await rolesOfUser(target.id)).toEqual([mine.id]);
    // sub-account update with an all role
    const upd = await post('/system/subAccount/update', editor.token, {
      id: target.id,
      nickname: 'n',
      mobile: '',
      email: '',
      roleIds: [mine.id, wide.id],
    });
    expect(upd.statusCode, upd.body).toBe(403);
    expect(await rolesOfUser(target.id)).toEqual([mine.id]);
    // sub-account create with a department role
    expect((await createSub(editor.token, [dep.id], south)).statusCode).toBe(403);
    // deleting a role moves its members to an all role
    const doomed = await role('own');
    await post('/system/role/addMembers', A.token, { id: doomed.id, userIds: [target.id] });
    const del = await post('/system/role/delete', editor.token, { id: doomed.id, reassignTo: wide.id });
    expect(del.statusCode, del.body).toBe(403);
    expect(await roleRow(doomed.id)).toBeDefined();
    expect(await rolesOfUser(target.id)).toEqual([mine.id, doomed.id].sort((a, b) => a - b));
    // the target still sees nothing
    expect(await sns(target.token)).toEqual([]);
  });

  it('places users only in its own department or none, and never makes a department role count', async () => {
    const editor = await sub([(await role('own', EDITOR_RIGHTS)).id], south);
    const mine = await role('own');
    const username = uniq('sg_');
    const elsewhere = await createSub(editor.token, [mine.id], north, username);
    expect(elsewhere.statusCode, elsewhere.body).toBe(403);
    expect(elsewhere.body_.msg).toBe('departmentId: the department North is outside your data scope');
    expect(await userNamed(username)).toBeUndefined();
    expect((await createSub(editor.token, [mine.id], south)).statusCode).toBe(200);
    expect((await createSub(editor.token, [mine.id], null)).statusCode).toBe(200);

    // a user holding a department role but in no department sees only its own; moving it into South would
    // make it see all of South
    const dormant = await sub([(await role('department')).id], null);
    expect(await sns(dormant.token)).toEqual([]);
    const before = await rolesOfUser(dormant.id);
    const move = await post('/system/subAccount/update', editor.token, {
      id: dormant.id,
      nickname: 'n',
      mobile: '',
      email: '',
      roleIds: before,
      departmentId: south,
    });
    expect(move.statusCode, move.body).toBe(403);
    expect(await sns(dormant.token)).toEqual([]);
  });

  it('cannot take over a user who sees more than it does (a new password would be a way in)', async () => {
    const editor = await sub([(await role('own', EDITOR_RIGHTS)).id], south);
    const seer = await sub([(await role('all')).id], null);
    for (const [url, body] of [
      [
        '/system/subAccount/resetPassword',
        { id: seer.id, password: 'Other0Passw0rd', confirmPassword: 'Other0Passw0rd' },
      ],
      ['/system/subAccount/logout', { id: seer.id }],
      ['/system/subAccount/state', { id: seer.id, state: 'disabled' }],
      ['/system/subAccount/delete', { id: seer.id }],
    ] as const) {
      const res = await post(url, editor.token, body);
      expect(res.statusCode, `${url} ${res.body}`).toBe(403);
      expect(res.body_.msg).toBe(`the user ${seer.username} is outside your data scope`);
    }
    expect(await sns(seer.token)).toHaveLength(4);
  });
});

describe('a department-scoped editor', () => {
  it('places users only in its subtree, with roles no wider than department', async () => {
    const editor = await sub([(await role('department', EDITOR_RIGHTS)).id], north);
    expect(await sns(editor.token)).toEqual([SN.north, SN.northEast]);
    const dep = await role('department');
    const wide = await role('all');

    // inside: North-East, a department role; it sees its part of the subtree only
    const inside = await createSub(editor.token, [dep.id], northEast);
    expect(inside.statusCode, inside.body).toBe(200);
    expect(await sns((await h.login(inside.body_.data.username, PASSWORD)).token)).toEqual([SN.northEast]);
    // outside the subtree, in none, or with an all role: refused
    const south1 = await createSub(editor.token, [dep.id], south);
    expect(south1.statusCode).toBe(403);
    expect(south1.body_.msg).toBe('departmentId: the department South is outside your data scope');
    const none = await createSub(editor.token, [dep.id], null);
    expect(none.statusCode).toBe(403);
    expect(none.body_.msg).toContain('choose a department inside your data scope');
    expect((await createSub(editor.token, [wide.id], northEast)).statusCode).toBe(403);

    // moving a user of its subtree out of it
    const moved = await post('/system/subAccount/update', editor.token, {
      id: inside.body_.data.id,
      nickname: 'n',
      mobile: '',
      email: '',
      roleIds: [dep.id],
      departmentId: south,
    });
    expect(moved.statusCode, moved.body).toBe(403);
    expect(
      (await h.db.selectFrom('users').select('department_id').where('id', '=', inside.body_.data.id).executeTakeFirst())
        ?.department_id,
    ).toBe(northEast);

    // roles for users outside the subtree: not through the sub-account screen, nor through the members panel
    const southern = await sub([], south);
    const give = await post('/system/subAccount/update', editor.token, {
      id: southern.id,
      nickname: 'n',
      mobile: '',
      email: '',
      roleIds: [dep.id],
    });
    expect(give.statusCode, give.body).toBe(403);
    const add = await post('/system/role/addMembers', editor.token, { id: dep.id, userIds: [southern.id] });
    expect(add.statusCode, add.body).toBe(403);
    expect(add.body_.msg).toBe(`the user ${southern.username} is outside your data scope`);
    expect(await rolesOfUser(southern.id)).toEqual([]);

    // roles: department yes, all no
    expect(
      (
        await post('/system/role/create', editor.token, {
          name: 'd',
          code: uniq('d_'),
          permissions: [PERMISSIONS.deviceView],
          dataScope: 'department',
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await post('/system/role/create', editor.token, {
          name: 'a',
          code: uniq('a_'),
          permissions: [PERMISSIONS.deviceView],
          dataScope: 'all',
        })
      ).statusCode,
    ).toBe(403);
  });

  it('cannot widen what a role gives to members outside its subtree', async () => {
    const editor = await sub([(await role('department', [...EDITOR_RIGHTS, PERMISSIONS.deviceReboot])).id], north);
    const shared = await role('department');
    const southern = await sub([shared.id], south);
    const ne = await sub([shared.id], northEast);
    expect(ne.id).toBeGreaterThan(0);
    const more = await post('/system/role/update', editor.token, {
      id: shared.id,
      name: shared.code,
      code: shared.code,
      permissions: [PERMISSIONS.deviceView, PERMISSIONS.deviceReboot],
      dataScope: 'department',
    });
    expect(more.statusCode, more.body).toBe(403);
    expect(more.body_.msg).toContain(`(${southern.username})`);
    expect((await roleRow(shared.id))?.permissions).toEqual([PERMISSIONS.deviceView]);
    // renaming it, or taking a permission away, gives nothing: allowed
    const rename = await post('/system/role/update', editor.token, {
      id: shared.id,
      name: 'shared',
      code: shared.code,
      permissions: [PERMISSIONS.deviceView],
      dataScope: 'department',
    });
    expect(rename.statusCode, rename.body).toBe(200);
  });
});

describe('the platform Admin role', () => {
  let admin: string;
  let adminRoleId: number;
  let platformId: number;
  beforeAll(async () => {
    admin = (await h.login('admin', ADMIN_PASSWORD)).token;
    const r = await h.db
      .selectFrom('roles')
      .innerJoin('tenants as t', 't.id', 'roles.tenant_id')
      .select(['roles.id', 'roles.tenant_id'])
      .where('t.kind', '=', 'platform')
      .where('roles.code', '=', 'Admin')
      .executeTakeFirstOrThrow();
    [adminRoleId, platformId] = [r.id, r.tenant_id];
  });

  /** A staff user holding a platform role with these permissions (scope all). */
  async function staff(permissions: string[], scope: DataScope = 'all') {
    const code = uniq('staff_');
    const role = await h.db
      .insertInto('roles')
      .values({ tenant_id: platformId, code, name: code, permissions, data_scope: scope })
      .returning('id')
      .executeTakeFirstOrThrow();
    const username = uniq('st_');
    const u = await h.db
      .insertInto('users')
      .values({ tenant_id: platformId, username, password_hash: await hashPassword(PASSWORD), is_super: 2 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await h.db.insertInto('user_roles').values({ tenant_id: platformId, user_id: u.id, role_id: role.id }).execute();
    return { id: u.id, token: (await h.login(username, PASSWORD)).token };
  }

  it('staff users follow the same rule: an own-scoped staff editor gives no wider scope', async () => {
    const editor = await staff([PERMISSIONS.roleEdit, PERMISSIONS.userEdit, PERMISSIONS.deviceView], 'own');
    const wide = await h.db
      .insertInto('roles')
      .values({ tenant_id: platformId, code: uniq('sw_'), name: 'wide', permissions: [PERMISSIONS.deviceView] })
      .returning('id')
      .executeTakeFirstOrThrow();
    const username = uniq('st_');
    const res = await post('/system/user/create', editor.token, {
      username,
      password: PASSWORD,
      confirmPassword: PASSWORD,
      roleIds: [wide.id],
    });
    expect(res.statusCode, res.body).toBe(403);
    expect(await userNamed(username)).toBeUndefined();
    const role = await post('/system/role/create', editor.token, {
      name: 'x',
      code: uniq('sx_'),
      permissions: [PERMISSIONS.deviceView],
      dataScope: 'all',
    });
    expect(role.statusCode, role.body).toBe(403);
  });

  it('is read-only to a staff role editor who is not an admin', async () => {
    const editor = await staff([PERMISSIONS.roleEdit, PERMISSIONS.userEdit]);
    const before = await roleRow(adminRoleId);
    for (const change of [
      { name: 'Owned', dataScope: before!.data_scope },
      { name: before!.name, description: 'mine now', dataScope: before!.data_scope },
      { name: before!.name, dataScope: 'own' },
    ]) {
      const res = await post('/system/role/update', editor.token, {
        id: adminRoleId,
        code: 'Admin',
        permissions: [],
        ...change,
      });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.body_.msg).toBe('only an administrator can change the Admin role');
    }
    expect(await roleRow(adminRoleId)).toEqual(before);
    // nor its members: the admin stays in it
    const adminId = (await userNamed('admin'))!.id;
    const strip = await post('/system/role/removeMembers', editor.token, { id: adminRoleId, userIds: [adminId] });
    expect(strip.statusCode, strip.body).toBe(403);
    expect(await rolesOfUser(adminId)).toContain(adminRoleId);
  });

  it('keeps its code and data scope even for the admin, who may rename it', async () => {
    const before = await roleRow(adminRoleId);
    const scope = await post('/system/role/update', admin, {
      id: adminRoleId,
      name: before!.name,
      code: 'Admin',
      dataScope: 'own',
      permissions: [],
    });
    expect(scope.statusCode, scope.body).toBe(403);
    expect(scope.body_.msg).toBe("the Admin role's code and data scope cannot be changed");
    expect((await roleRow(adminRoleId))?.data_scope).toBe(before!.data_scope);
    const renamed = await post('/system/role/update', admin, {
      id: adminRoleId,
      name: 'Administrators',
      code: 'Admin',
      dataScope: before!.data_scope,
      permissions: [],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.body_.data).toMatchObject({ name: 'Administrators', code: 'Admin', locked: true });
    await post('/system/role/update', admin, {
      id: adminRoleId,
      name: before!.name,
      code: 'Admin',
      dataScope: before!.data_scope,
      permissions: [],
    });
  });
});
