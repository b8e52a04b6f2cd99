import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, subAccountWith, type Customer } from './device-helpers.ts';

let h: Harness;
let A: Customer;
let B: Customer;
beforeAll(async () => {
  h = await createHarness();
  [A, B] = [await customer(h), await customer(h)];
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });
const add = async (token: string, name: string, parentId: number | null = null) => {
  const res = await post('/system/department/add', token, { name, parentId });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data.id as number;
};
const pathOf = async (id: number) =>
  (await h.db.selectFrom('departments').select('path').where('id', '=', id).executeTakeFirstOrThrow()).path;
interface Node {
  id: number;
  name: string;
  userCount: number;
  deviceCount: number;
  children: Node[];
}
const names = (nodes: Node[]): unknown => nodes.map((n) => (n.children.length ? [n.name, names(n.children)] : n.name));

describe('department tree', () => {
  it('adds, renames, reorders and moves departments, rewriting the subtree paths', async () => {
    const hq = await add(A.token, '总部');
    const sales = await add(A.token, 'Sales', hq);
    const east = await add(A.token, 'East', sales);
    const ops = await add(A.token, 'Ops', hq);
    expect(await pathOf(east)).toBe(`${hq}/${sales}/${east}/`);
    let tree = (await get('/system/department/tree', A.token)).body_.data as Node[];
    expect(names(tree)).toEqual([['总部', [['Sales', ['East']], 'Ops']]]);

    // reorder: Ops before Sales
    expect((await post('/system/department/edit', A.token, { id: ops, sort: 0 })).statusCode).toBe(200);
    expect((await post('/system/department/edit', A.token, { id: sales, sort: 5 })).statusCode).toBe(200);
    // rename
    const renamed = await post('/system/department/edit', A.token, { id: sales, name: '销售部' });
    expect(renamed.body_.data).toMatchObject({ id: sales, name: '销售部', parentId: hq });
    // move Sales (with East) under Ops
    expect((await post('/system/department/edit', A.token, { id: sales, parentId: ops })).statusCode).toBe(200);
    expect(await pathOf(sales)).toBe(`${hq}/${ops}/${sales}/`);
    expect(await pathOf(east)).toBe(`${hq}/${ops}/${sales}/${east}/`);
    tree = (await get('/system/department/tree', A.token)).body_.data;
    expect(names(tree)).toEqual([['总部', [['Ops', [['销售部', ['East']]]]]]]);
    // back to the top level
    expect((await post('/system/department/edit', A.token, { id: sales, parentId: null })).statusCode).toBe(200);
    expect(await pathOf(east)).toBe(`${sales}/${east}/`);

    // the system log has the change before → after
    const log = await h.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('tenant_id', '=', A.tenantId)
      .where('action', '=', 'department.update')
      .where('resource_id', '=', String(sales))
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log.details).toMatchObject({ changes: { parentId: { before: ops, after: null } } });
  });

  it('refuses a move under itself or below it, and a name taken among siblings (400 on the field)', async () => {
    const top = await add(A.token, 'Top');
    const mid = await add(A.token, 'Mid', top);
    const low = await add(A.token, 'Low', mid);
    for (const parentId of [top, low]) {
      const res = await post('/system/department/edit', A.token, { id: top, parentId });
      expect(res.statusCode).toBe(400);
      expect(res.body_.data.fields[0]).toMatchObject({ field: 'parentId', key: 'department.cycle' });
    }
    const dup = await post('/system/department/add', A.token, { name: 'mid', parentId: top });
    expect(dup.statusCode).toBe(400);
    expect(dup.body_.data.fields[0]).toMatchObject({ field: 'name', key: 'department.nameTaken' });
    const rename = await post('/system/department/edit', A.token, { id: low, name: 'MID', parentId: top });
    expect(rename.statusCode).toBe(400);
    // the same name under another parent is fine
    expect((await post('/system/department/add', A.token, { name: 'Mid', parentId: low })).statusCode).toBe(200);
    expect(await pathOf(top)).toBe(`${top}/`);
    expect((await post('/system/department/add', A.token, { name: '', parentId: top })).statusCode).toBe(400);
  });

  it('deletes only an empty department: 409 naming its children, users or devices', async () => {
    const parent = await add(A.token, 'Busy');
    const child = await add(A.token, 'Child', parent);
    let res = await post('/system/department/delete', A.token, { id: parent });
    expect(res.statusCode).toBe(409);
    expect(res.body_.msg).toBe('this department has 1 sub-departments: delete or move them first');

    const roles = (await get('/system/subAccount/roles', A.token)).body_.data;
    const sub = await post('/system/subAccount/create', A.token, {
      username: `dep_${Date.now().toString(36)}`,
      password: 'Sub0Passw0rd',
      confirmPassword: 'Sub0Passw0rd',
      roleIds: [roles[0].id],
      departmentId: child,
    });
    expect(sub.statusCode, sub.body).toBe(200);
    res = await post('/system/department/delete', A.token, { id: child });
    expect(res.statusCode).toBe(409);
    expect(res.body_.msg).toContain('1 users');
    await post('/system/subAccount/update', A.token, {
      id: sub.body_.data.id,
      nickname: '',
      mobile: '',
      email: '',
      roleIds: [roles[0].id],
      departmentId: null,
    });

    const ids = await devicesOf(h, A.tenantId, makeSpecs(1, { prefix: 'DEPDEL' }));
    const deviceId = [...ids.values()][0];
    const moved = await post('/device/edit', A.token, { id: deviceId, departmentId: child });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.body_.data).toMatchObject({ departmentId: child, departmentName: 'Child' });
    const tree = (await get('/system/department/tree', A.token)).body_.data as Node[];
    const node = tree.find((n) => n.id === parent)!.children[0];
    expect(node).toMatchObject({ id: child, deviceCount: 1, userCount: 0 });
    res = await post('/system/department/delete', A.token, { id: child });
    expect(res.statusCode).toBe(409);
    expect(res.body_.msg).toBe('this department has 1 devices: move them to another department first');

    await post('/device/edit', A.token, { id: deviceId, departmentId: null });
    expect((await post('/system/department/delete', A.token, { id: child })).statusCode).toBe(200);
    expect((await post('/system/department/delete', A.token, { id: parent })).statusCode).toBe(200);
    expect((await post('/system/department/delete', A.token, { id: parent })).statusCode).toBe(404);
  });

  it("keeps tenants apart: another tenant's department is 404 and never in the tree", async () => {
    const mine = await add(A.token, 'Mine');
    expect((await post('/system/department/edit', B.token, { id: mine, name: 'Stolen' })).statusCode).toBe(404);
    expect((await post('/system/department/delete', B.token, { id: mine })).statusCode).toBe(404);
    const res = await post('/system/department/add', B.token, { name: 'Under A', parentId: mine });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields[0].field).toBe('parentId');
    expect((await get('/system/department/tree', B.token)).body_.data).toEqual([]);
  });

  it('lets device and user managers read the tree, and only department managers change it', async () => {
    const viewer = await subAccountWith(h, A.tenantId, ['device:view']);
    const userAdmin = await subAccountWith(h, A.tenantId, ['system:user:edit']);
    const none = await subAccountWith(h, A.tenantId, ['print:view']);
    const editor = await subAccountWith(h, A.tenantId, ['system:department:edit']);
    expect((await get('/system/department/tree', viewer)).statusCode).toBe(200);
    expect((await get('/system/department/tree', userAdmin)).statusCode).toBe(200);
    expect((await get('/system/department/tree', none)).statusCode).toBe(403);
    expect((await post('/system/department/add', viewer, { name: 'No' })).statusCode).toBe(403);
    expect((await post('/system/department/add', editor, { name: 'Yes' })).statusCode).toBe(200);
  });

  it("tells the tenant's consoles that read the tree when it changes, and no one else", async () => {
    const viewer = await subAccountWith(h, A.tenantId, ['device:view']);
    const none = await subAccountWith(h, A.tenantId, ['print:view']);
    const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const [mine, blind, other] = [
      await openEvents(h, base, viewer),
      await openEvents(h, base, none),
      await openEvents(h, base, B.token),
    ];
    try {
      const id = await add(A.token, 'Live');
      await mine.waitFor('the department event after an add', (e) => e.type === 'department');
      expect((await post('/system/department/edit', A.token, { id, name: 'Live 2' })).statusCode).toBe(200);
      expect((await post('/system/department/delete', A.token, { id })).statusCode).toBe(200);
      // a refused change changes nothing and tells no one
      expect((await post('/system/department/delete', A.token, { id })).statusCode).toBe(404);
      await new Promise((r) => setTimeout(r, 300));
      expect(mine.events.filter((e) => e.type === 'department')).toHaveLength(3);
      expect(blind.events.filter((e) => e.type === 'department')).toEqual([]);
      expect(other.events.filter((e) => e.type === 'department')).toEqual([]);
    } finally {
      [mine, blind, other].forEach((s) => s.close());
    }
  });
});
