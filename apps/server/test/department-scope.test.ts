import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type DataScope } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, type Customer } from './device-helpers.ts';

/**
 * Changing the department tree within one's data scope: a `department`-scoped editor changes only what lies below
 * its own department (moving a department with its devices under itself would widen what it sees), an `own`-scoped
 * one changes nothing, and the tree counts only the devices the reader sees.
 */
let h: Harness;
let A: Customer;
beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown, lang = 'en') =>
  h.call({
    method: 'POST',
    url: `/apiAdmin${url}`,
    token,
    payload: payload as Record<string, unknown>,
    headers: { 'accept-language': lang },
  });

/** A role of tenant A with this data scope (written directly, as data-scope.test.ts does). */
async function role(scope: DataScope): Promise<number> {
  const code = `r_${randomUUID().slice(0, 8)}`;
  const r = await h.db
    .insertInto('roles')
    .values({
      tenant_id: A.tenantId,
      code,
      name: code,
      permissions: [PERMISSIONS.departmentEdit, PERMISSIONS.deviceView],
      data_scope: scope,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** A sub-account of A in this department with a department editor's role of this scope, signed in. */
async function editor(scope: DataScope, departmentId: number): Promise<string> {
  const username = `dse_${randomUUID().slice(0, 8)}`;
  const res = await post('/system/subAccount/create', A.token, {
    username,
    password: 'Sub0Passw0rd',
    confirmPassword: 'Sub0Passw0rd',
    roleIds: [await role(scope)],
    departmentId,
  });
  expect(res.statusCode, res.body).toBe(200);
  return (await h.login(username, 'Sub0Passw0rd')).token;
}

const add = async (name: string, parentId: number | null = null) => {
  const res = await post('/system/department/add', A.token, { name, parentId });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data.id as number;
};
const row = (id: number) =>
  h.db.selectFrom('departments').select(['name', 'parent_id', 'path', 'sort']).where('id', '=', id).executeTakeFirst();
const sns = async (token: string) =>
  ((await get('/device/list?pageSize=100', token)).body_.data.list as Array<{ sn: string }>).map((d) => d.sn).sort();
interface Node {
  id: number;
  name: string;
  deviceCount: number;
  children: Node[];
}
const flat = (nodes: Node[]): Node[] => nodes.flatMap((n) => [n, ...flat(n.children)]);
const countsOf = async (token: string) =>
  new Map(flat((await get('/system/department/tree', token)).body_.data as Node[]).map((n) => [n.id, n.deviceCount]));

describe('department tree within the data scope', () => {
  it('refuses a department-scoped editor moving another department, with its device, under its own', async () => {
    const north = await add('Atk North');
    const south = await add('Atk South');
    const ids = await devicesOf(h, A.tenantId, makeSpecs(2, { prefix: 'DSATK' }));
    const [northSn, southSn] = [...ids.keys()].sort();
    for (const [sn, departmentId] of [
      [northSn, north],
      [southSn, south],
    ] as const)
      expect((await post('/device/edit', A.token, { id: ids.get(sn), departmentId })).statusCode).toBe(200);

    const u = await editor('department', north);
    expect(await sns(u)).toEqual([northSn]);
    const before = await row(south);

    const moved = await post('/system/department/edit', u, { id: south, parentId: north });
    expect(moved.statusCode, moved.body).toBe(403);
    expect(moved.body_.msg).toContain('Atk South');
    const zh = await post('/system/department/edit', u, { id: south, parentId: north }, 'zh-CN');
    expect(zh.statusCode).toBe(403);
    expect(zh.body_.msg).toContain('Atk South');
    expect(zh.body_.msg).not.toBe(moved.body_.msg);
    // nothing changed: South is where it was, and its device stays out of the editor's list and detail
    expect(await row(south)).toEqual(before);
    expect(await sns(u)).toEqual([northSn]);
    expect((await get(`/device/${ids.get(southSn)}`, u)).statusCode).toBe(404);

    // the tree the editor reads (for pickers) counts only the devices it sees; the main account's counts all
    const mine = await countsOf(u);
    expect(mine.get(north)).toBe(1);
    expect(mine.get(south)).toBe(0);
    const all = await countsOf(A.token);
    expect(all.get(south)).toBe(1);
  });

  it('refuses changes outside the subtree or to the own department itself, and allows them below it', async () => {
    const home = await add('Home');
    const team = await add('Team', home);
    const leaf = await add('Leaf', team);
    const away = await add('Away');
    const awayChild = await add('Away child', away);
    const u = await editor('department', home);
    const snapshot = async () => Promise.all([home, team, leaf, away, awayChild].map(row));
    const before = await snapshot();

    const refused: Array<[string, Record<string, unknown>, string]> = [
      // outside the subtree: rename, reorder, move, delete, add under it
      ['/system/department/edit', { id: away, name: 'Mine now' }, 'Away'],
      ['/system/department/edit', { id: away, sort: 3 }, 'Away'],
      ['/system/department/edit', { id: awayChild, parentId: team }, 'Away child'],
      ['/system/department/delete', { id: awayChild }, 'Away child'],
      ['/system/department/add', { name: 'Planted', parentId: away }, 'Away'],
      // out of the subtree from inside it: to another branch or to the top level
      ['/system/department/edit', { id: leaf, parentId: away }, 'Away'],
      ['/system/department/edit', { id: leaf, parentId: null }, 'Leaf'],
      ['/system/department/add', { name: 'Top', parentId: null }, 'Top'],
      // the editor's own department itself
      ['/system/department/edit', { id: home, name: 'Bigger home' }, 'Home'],
      ['/system/department/edit', { id: home, parentId: away }, 'Home'],
      ['/system/department/delete', { id: home }, 'Home'],
    ];
    for (const [url, body, named] of refused) {
      const res = await post(url, u, body);
      expect(res.statusCode, `${url} ${JSON.stringify(body)}: ${res.body}`).toBe(403);
      expect(res.body_.msg).toContain(named);
    }
    expect(await snapshot()).toEqual(before);
    const tree = flat((await get('/system/department/tree', A.token)).body_.data as Node[]).map((n) => n.name);
    expect(tree).not.toContain('Planted');
    expect(tree).not.toContain('Top');

    // below the own department: add, rename, reorder, move within the subtree, delete
    const sub = await post('/system/department/add', u, { name: 'Sub', parentId: home });
    expect(sub.statusCode, sub.body).toBe(200);
    const deep = await post('/system/department/add', u, { name: 'Deep', parentId: leaf });
    expect(deep.statusCode, deep.body).toBe(200);
    expect((await post('/system/department/edit', u, { id: team, name: 'Team 2', sort: 4 })).statusCode).toBe(200);
    const move = await post('/system/department/edit', u, { id: leaf, parentId: home });
    expect(move.statusCode, move.body).toBe(200);
    expect((await row(leaf))?.path).toBe(`${home}/${leaf}/`);
    expect((await row(deep.body_.data.id))?.path).toBe(`${home}/${leaf}/${deep.body_.data.id}/`);
    expect((await post('/system/department/delete', u, { id: deep.body_.data.id })).statusCode).toBe(200);
    expect((await post('/system/department/delete', u, { id: sub.body_.data.id })).statusCode).toBe(200);

    // the main account (and an `all`-scoped editor) still change the whole tree
    const wide = await editor('all', home);
    expect((await post('/system/department/edit', wide, { id: away, name: 'Away 2' })).statusCode).toBe(200);
    expect((await post('/system/department/edit', A.token, { id: awayChild, parentId: home })).statusCode).toBe(200);
    expect((await post('/system/department/edit', A.token, { id: home, name: 'Home 2' })).statusCode).toBe(200);
    expect((await post('/system/department/add', A.token, { name: 'Top', parentId: null })).statusCode).toBe(200);
    expect((await post('/system/department/delete', A.token, { id: awayChild })).statusCode).toBe(200);
  });

  it('refuses every change to an own-scoped editor, even in its own department', async () => {
    const home = await add('Own home');
    const child = await add('Own child', home);
    const u = await editor('own', home);
    const before = await Promise.all([row(home), row(child)]);
    const refused: Array<[string, Record<string, unknown>, string]> = [
      ['/system/department/add', { name: 'Own new', parentId: home }, 'Own new'],
      ['/system/department/add', { name: 'Own top', parentId: null }, 'Own top'],
      ['/system/department/edit', { id: child, name: 'Renamed' }, 'Own child'],
      ['/system/department/edit', { id: child, parentId: null }, 'Own child'],
      ['/system/department/delete', { id: child }, 'Own child'],
    ];
    for (const [url, body, named] of refused) {
      const res = await post(url, u, body);
      expect(res.statusCode, `${url} ${JSON.stringify(body)}: ${res.body}`).toBe(403);
      expect(res.body_.msg).toContain(named);
    }
    expect(await Promise.all([row(home), row(child)])).toEqual(before);
    // reading the tree for pickers stays open to it
    expect((await get('/system/department/tree', u)).statusCode).toBe(200);
  });
});
