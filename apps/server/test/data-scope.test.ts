import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type DataScope } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { registerInDb } from '../../device-sim/src/register-db.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, type Customer } from './device-helpers.ts';
import { widestScope } from '../src/lib/data-scope.ts';

let h: Harness;
let A: Customer;
beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });

const DEVICE_RIGHTS = [
  PERMISSIONS.deviceView,
  PERMISSIONS.deviceEdit,
  PERMISSIONS.deviceBind,
  PERMISSIONS.deviceReboot,
  PERMISSIONS.deviceTask,
];

/** A role of tenant A with this data scope (the role screen is another section's: written directly). */
async function role(scope: DataScope, permissions: string[] = DEVICE_RIGHTS): Promise<number> {
  const code = `r_${randomUUID().slice(0, 8)}`;
  const r = await h.db
    .insertInto('roles')
    .values({ tenant_id: A.tenantId, code, name: code, permissions, data_scope: scope })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

/** A sub-account made by the main account through the API, signed in. */
async function sub(roleIds: number[], departmentId: number | null): Promise<{ id: number; token: string }> {
  const username = `ds_${randomUUID().slice(0, 8)}`;
  const res = await post('/system/subAccount/create', A.token, {
    username,
    password: 'Sub0Passw0rd',
    confirmPassword: 'Sub0Passw0rd',
    roleIds,
    departmentId,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.body_.data.id, token: (await h.login(username, 'Sub0Passw0rd')).token };
}

const dept = async (name: string, parentId: number | null = null) =>
  (await post('/system/department/add', A.token, { name, parentId })).body_.data.id as number;
const sns = async (token: string, query = '') =>
  ((await get(`/device/list?pageSize=100${query}`, token)).body_.data.list as Array<{ sn: string }>)
    .map((d) => d.sn)
    .sort();

let north: number;
let northEast: number;
let south: number;
let ids: Map<string, number>;
const SN = { north: 'DSCOPE-00001', northEast: 'DSCOPE-00002', south: 'DSCOPE-00003', none: 'DSCOPE-00004' };

beforeAll(async () => {
  north = await dept('North');
  northEast = await dept('North-East', north);
  south = await dept('South');
  ids = await devicesOf(h, A.tenantId, makeSpecs(4, { prefix: 'DSCOPE' }));
  expect([...ids.keys()].sort()).toEqual(Object.values(SN));
  await post('/device/edit', A.token, { id: ids.get(SN.north), departmentId: north });
  await post('/device/edit', A.token, { id: ids.get(SN.northEast), departmentId: northEast });
  await post('/device/edit', A.token, { id: ids.get(SN.south), departmentId: south });
});

describe('data scope', () => {
  it('takes the widest scope of the roles; none is own', () => {
    expect(widestScope([])).toBe('own');
    expect(widestScope(['own', 'department'])).toBe('department');
    expect(widestScope(['department', 'all', 'own'])).toBe('all');
  });

  it("limits a 'department' sub-account to its department and below: list, detail, commands, dashboard", async () => {
    const u = await sub([await role('department')], north);
    // the console learns the scope with the user (it hides what the server would refuse)
    expect((await get('/user/v1/user/userInfo', u.token)).body_.data.dataScope).toBe('department');
    expect((await get('/user/v1/user/userInfo', A.token)).body_.data.dataScope).toBe('all');
    expect(await sns(u.token)).toEqual([SN.north, SN.northEast]);
    expect((await get('/device/list', u.token)).body_.data.total).toBe(2);
    // the filters cannot widen it
    expect(await sns(u.token, `&departmentId=${south}`)).toEqual([]);
    expect(await sns(u.token, `&departmentId=${northEast}`)).toEqual([SN.northEast]);

    const inside = ids.get(SN.northEast)!;
    const outside = ids.get(SN.south)!;
    expect((await get(`/device/${inside}`, u.token)).statusCode).toBe(200);
    for (const id of [outside, ids.get(SN.none)!]) {
      expect((await get(`/device/${id}`, u.token)).statusCode).toBe(404);
      expect((await get(`/device/${id}/telemetry`, u.token)).statusCode).toBe(404);
      expect((await post('/device/edit', u.token, { id, name: 'mine now' })).statusCode).toBe(404);
      expect((await post('/device/command', u.token, { deviceIds: [id], type: 'reboot' })).statusCode).toBe(404);
      expect((await get(`/device/task/list?deviceId=${id}`, u.token)).statusCode).toBe(404);
    }
    // one device outside the scope refuses the whole command: nothing is sent
    const mixed = await post('/device/command', u.token, { deviceIds: [inside, outside], type: 'reboot' });
    expect(mixed.statusCode).toBe(404);
    const sent = await post('/device/command', u.token, { deviceIds: [inside], type: 'reboot' });
    expect(sent.statusCode, sent.body).toBe(200);
    // a task on a device outside the scope (sent by the main account) stays out of the sub-account's task list
    const theirs = await post('/device/command', A.token, { deviceIds: [outside], type: 'reboot' });
    expect(theirs.statusCode).toBe(200);
    // …and cannot be canceled by it
    const theirTask = theirs.body_.data.taskIds[0] as string;
    expect((await post(`/device/task/${theirTask}/cancel`, u.token, {})).statusCode).toBe(404);
    const tasks = (await get('/device/task/list', u.token)).body_.data;
    expect(tasks.list.map((t: { deviceId: number }) => t.deviceId)).toEqual([inside]);

    const mine = (await get('/dashboard/overview', u.token)).body_.data;
    expect(mine.cards).toMatchObject({ devices: 2, tasksToday: 1 });
    const all = (await get('/dashboard/overview', A.token)).body_.data;
    expect(all.cards).toMatchObject({ devices: 4, tasksToday: 2 });

    // a scope 'department' user may not refile devices (it needs 'all')
    const refile = await post('/device/edit', u.token, { id: inside, departmentId: north });
    expect(refile.statusCode).toBe(403);
    expect((await get(`/device/${inside}`, A.token)).body_.data.departmentId).toBe(northEast);
  });

  it('shows a scoped user only the batches with a device inside its scope, counting those tasks', async () => {
    const u = await sub([await role('department')], north);
    const inside = ids.get(SN.north)!;
    const outside = ids.get(SN.south)!;
    const mixed = await post('/device/command', A.token, { deviceIds: [inside, outside], type: 'reboot' });
    const foreign = await post('/device/command', A.token, { deviceIds: [outside, ids.get(SN.none)!], type: 'reboot' });
    const [mixedId, foreignId] = [mixed.body_.data.batchId as number, foreign.body_.data.batchId as number];
    expect(mixedId && foreignId).toBeTruthy();

    const seen = (await get('/device/task/batch/list?pageSize=100', u.token)).body_.data;
    const batchIds = seen.list.map((b: { id: number }) => b.id);
    expect(batchIds).toContain(mixedId);
    expect(batchIds).not.toContain(foreignId);
    const one = (await get(`/device/task/batch/${mixedId}`, u.token)).body_.data;
    expect(one.total).toBe(1);
    expect((await get(`/device/task/batch/${foreignId}`, u.token)).statusCode).toBe(404);
    expect((await get(`/device/task/list?batchId=${foreignId}`, u.token)).statusCode).toBe(404);
    // the main account sees both whole
    expect((await get(`/device/task/batch/${mixedId}`, A.token)).body_.data.total).toBe(2);
    expect((await get(`/device/task/batch/${foreignId}`, A.token)).statusCode).toBe(200);
  });

  it("gives 'own' only the devices the user bound; binding files them under the user's department", async () => {
    const u = await sub([await role('own')], south);
    expect(await sns(u.token)).toEqual([]);
    const [spec] = makeSpecs(1, { prefix: 'DSOWN' });
    await registerInDb(h.db, [spec]);
    const bound = await post('/device/bind', u.token, { sn: spec.sn, bindKey: spec.bindKey });
    expect(bound.statusCode, bound.body).toBe(200);
    expect(bound.body_.data).toMatchObject({ departmentId: south, departmentName: 'South' });
    expect(await sns(u.token)).toEqual([spec.sn]);
    const row = await h.db
      .selectFrom('devices')
      .select(['owner_id', 'department_id'])
      .where('sn', '=', spec.sn)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ owner_id: u.id, department_id: south });
    // another device of its own department is not its own
    expect((await get(`/device/${ids.get(SN.south)}`, u.token)).statusCode).toBe(404);
    expect((await get('/dashboard/overview', u.token)).body_.data.cards.devices).toBe(1);

    // a 'department' colleague of South sees both
    const colleague = await sub([await role('department')], south);
    expect(await sns(colleague.token)).toEqual([SN.south, spec.sn].sort());
    // unbinding clears owner and department
    expect((await post('/device/unbind', u.token, { id: bound.body_.data.id })).statusCode).toBe(200);
    expect(
      await h.db
        .selectFrom('devices')
        .select(['owner_id', 'department_id'])
        .where('sn', '=', spec.sn)
        .executeTakeFirst(),
    ).toEqual({ owner_id: null, department_id: null });
  });

  it('takes the widest of several roles, and a user without a role or department sees only its own', async () => {
    const both = await sub([await role('own'), await role('all')], south);
    expect(await sns(both.token)).toHaveLength(4);
    const noDept = await sub([await role('department')], null);
    expect(await sns(noDept.token)).toEqual([]);
  });

  it('follows a move of the department tree at once (paths in SQL, nothing cached)', async () => {
    const u = await sub([await role('department')], north);
    expect(await sns(u.token)).toEqual([SN.north, SN.northEast]);
    // North-East moves under South: North's user no longer sees it
    expect((await post('/system/department/edit', A.token, { id: northEast, parentId: south })).statusCode).toBe(200);
    expect(await sns(u.token)).toEqual([SN.north]);
    expect((await get(`/device/${ids.get(SN.northEast)}`, u.token)).statusCode).toBe(404);
    await post('/system/department/edit', A.token, { id: northEast, parentId: north });
    expect(await sns(u.token)).toEqual([SN.north, SN.northEast]);
  });
});
