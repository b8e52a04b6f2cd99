import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, createHarness, multipart, registerCustomer, type Harness } from './harness.ts';
import { BIND_KEY_RULE } from '@cpc/contracts/device';
import { hashPassword } from '../src/lib/password.ts';
import { Presence } from '../src/plugins/mqtt/presence.ts';

let h: Harness;
let staff: string;
let modelCode: string;
let modelId: number;
let otherModelId: number;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
  const m = await post('/system/deviceModel/add', staff, {
    code: 'P58',
    name: 'Receipt printer 58',
    kind: 'printer',
    paperWidthMm: 58,
    capabilities: ['print'],
  });
  modelCode = m.body_.data.code;
  modelId = m.body_.data.id;
  otherModelId = (
    await post('/system/deviceModel/add', staff, {
      code: 'T10',
      name: 'Terminal T10',
      kind: 'android-terminal',
      paperWidthMm: 80,
    })
  ).body_.data.id;
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });
const fields = (res: { body_: { data: { fields?: Array<{ field: string }> } | null } }) =>
  res.body_.data?.fields?.map((f) => f.field) ?? [];

interface Made {
  id: number;
  sn: string;
  bindKey: string;
  secret: string;
  iccid: string;
}
let seq = 0;
/** Registers devices at the "factory" (staff API) and returns their labels. */
async function make(n = 1, model = modelCode): Promise<Made[]> {
  const prefix = `D${process.pid % 1000}X${String(++seq).padStart(3, '0')}`;
  const rows = Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')},${model}`);
  const res = await h.call({
    method: 'POST',
    url: '/apiAdmin/system/deviceRegistry/import',
    token: staff,
    ...multipart({}, { name: 'd.csv', bytes: Buffer.from(['sn,model', ...rows].join('\n')) }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data.devices;
}
async function bound(token: string, n = 1, model = modelCode): Promise<Made[]> {
  const list = await make(n, model);
  for (const d of list)
    expect((await post('/device/bind', token, { sn: d.sn, bindKey: d.bindKey })).statusCode).toBe(200);
  return list;
}
const listOf = async (token: string, query = '') =>
  (await get(`/device/list?pageSize=100${query}`, token)).body_.data as {
    list: Array<Record<string, any>>;
    total: number;
  };

describe('binding', () => {
  it('binds with the key on the label: the device and its SIM join the account, and the key is used once', async () => {
    const a = await registerCustomer(h);
    const [d] = await make();
    const res = await post('/device/bind', a.token, { sn: d.sn.toLowerCase(), bindKey: d.bindKey, name: 'Front desk' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data).toMatchObject({
      id: d.id,
      sn: d.sn,
      name: 'Front desk',
      modelName: 'Receipt printer 58',
      modelKind: 'printer',
      status: 'offline',
      groupId: null,
    });
    expect(Date.parse(res.body_.data.boundAt)).not.toBeNaN();
    const tenant = (
      await h.db.selectFrom('users').select('tenant_id').where('username', '=', a.username).executeTakeFirstOrThrow()
    ).tenant_id;
    expect(
      (await h.db.selectFrom('sims').select('tenant_id').where('iccid', '=', d.iccid).executeTakeFirstOrThrow())
        .tenant_id,
    ).toBe(tenant);
    expect((await listOf(a.token)).list.map((x) => x.sn)).toEqual([d.sn]);

    const again = await post('/device/bind', a.token, { sn: d.sn, bindKey: d.bindKey });
    expect(again.statusCode).toBe(400);
    expect(again.body_.msg).toBe('sn: the device is already bound to this account');
  });

  it("refuses another account's device with the right key, without saying whose", async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const [d] = await bound(a.token);
    const res = await post('/device/bind', b.token, { sn: d.sn, bindKey: d.bindKey });
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toBe('sn: device is bound to another account');
    expect(res.body).not.toContain(a.username);
    expect((await listOf(b.token)).total).toBe(0);
  });

  it('answers a wrong key and an unknown serial number alike, and gives nothing away with a wrong key', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const [d] = await bound(a.token);
    const [free] = await make();
    const wrongOnBound = await post('/device/bind', b.token, { sn: d.sn, bindKey: 'WRONGKEY1' });
    const wrongOnFree = await post('/device/bind', b.token, { sn: free.sn, bindKey: 'WRONGKEY1' });
    const unknown = await post('/device/bind', b.token, { sn: 'NO-SUCH-SN-1', bindKey: 'WRONGKEY1' });
    for (const r of [wrongOnBound, wrongOnFree, unknown]) {
      expect(r.statusCode).toBe(400);
      expect(r.body_).toEqual({
        code: 400,
        msg: 'bindKey: bind key is wrong',
        data: { fields: [{ field: 'bindKey', message: 'bind key is wrong', key: 'device.bindKeyWrong' }] },
      });
    }
  });

  it('throttles per account and serial number: after 5 wrong keys even the right key answers 429 for 15 minutes', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const [d, other] = await make(2);
    for (let i = 0; i < 5; i++)
      expect((await post('/device/bind', a.token, { sn: d.sn, bindKey: `WRONG${i}XX` })).statusCode).toBe(400);
    const blocked = await post('/device/bind', a.token, { sn: d.sn.toLowerCase(), bindKey: d.bindKey });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.body_.msg).toBe('too many wrong bind keys for this device, try again in 15 minutes');
    // the seconds left in the window that began with the first wrong key
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(890);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(900);
    // another serial number is not affected
    expect((await post('/device/bind', a.token, { sn: other.sn, bindKey: other.bindKey })).statusCode).toBe(200);
    // once the failures are older than the window, the right key works
    await h.db
      .updateTable('rate_counters')
      .set({ reset_at: new Date(Date.now() - 1000) })
      .where('bucket', '=', 'device.bind')
      .where('key', 'like', `%:${d.sn.toLowerCase()}`)
      .execute();
    expect((await post('/device/bind', a.token, { sn: d.sn, bindKey: d.bindKey })).statusCode).toBe(200);
    expect((await post('/device/bind', b.token, { sn: other.sn, bindKey: 'WRONG0XX' })).statusCode).toBe(400);
  });

  it('compares no more than 5 of 30 simultaneous wrong keys: the rest answer 429 without a compare', async () => {
    const a = await registerCustomer(h);
    const [d] = await make();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        post('/device/bind', a.token, { sn: d.sn, bindKey: `RACE${String(i).padStart(2, '0')}XX` }),
      ),
    );
    const count = (code: number) => answers.filter((r) => r.statusCode === code).length;
    expect(count(400)).toBe(5);
    expect(count(429)).toBe(25);
    const fails = await h.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('action', '=', 'device.bind')
      .where('result', '=', 'fail')
      .where('subject', '=', d.sn.toLowerCase())
      .executeTakeFirstOrThrow();
    expect(Number(fails.n)).toBe(5);
  });

  it('never lets a stranger guessing keys lock the owner out', async () => {
    const owner = await registerCustomer(h);
    const strangers = [await registerCustomer(h), await registerCustomer(h)];
    const [d] = await make();
    // two strangers, 5 wrong keys each: each is locked out of this serial number
    for (const s of strangers) {
      for (let i = 0; i < 5; i++)
        expect((await post('/device/bind', s.token, { sn: d.sn, bindKey: `GUESS${i}XX` })).statusCode).toBe(400);
      expect((await post('/device/bind', s.token, { sn: d.sn, bindKey: 'GUESS9XX' })).statusCode).toBe(429);
    }
    // the owner holding the label binds at the first try
    const res = await post('/device/bind', owner.token, { sn: d.sn, bindKey: d.bindKey });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('binds straight into a group of the account, and refuses a group of another account with 404', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const g = (await post('/device/group/add', a.token, { name: 'Shop 1' })).body_.data;
    const gb = (await post('/device/group/add', b.token, { name: 'Theirs' })).body_.data;
    const [d, e] = await make(2);
    const ok = await post('/device/bind', a.token, { sn: d.sn, bindKey: d.bindKey, groupId: g.id });
    expect(ok.body_.data).toMatchObject({ groupId: g.id, groupName: 'Shop 1' });
    const foreign = await post('/device/bind', a.token, { sn: e.sn, bindKey: e.bindKey, groupId: gb.id });
    expect(foreign.statusCode).toBe(404);
    expect(
      (await h.db.selectFrom('devices').select('tenant_id').where('id', '=', e.id).executeTakeFirstOrThrow()).tenant_id,
    ).toBeNull();
  });

  it('refuses bad input naming the field', async () => {
    const a = await registerCustomer(h);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ bindKey: 'ABCDEF' }, 'sn'],
      [{ sn: 'a b', bindKey: 'ABCDEF' }, 'sn'],
      [{ sn: 'GOOD-SN-1', bindKey: '' }, 'bindKey'],
      [{ sn: 'GOOD-SN-1', bindKey: 'ABCDEF', name: 'n'.repeat(31) }, 'name'],
      [{ sn: 'GOOD-SN-1', bindKey: 'ABCDEF', groupId: 'x' }, 'groupId'],
    ];
    for (const [body, field] of cases) {
      const res = await post('/device/bind', a.token, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fields(res)).toContain(field);
    }
  });
});

describe('unbinding and editing', () => {
  it('unbinds: back to the pool with name, remark and group cleared, open tasks canceled; a new key binds it again, the old one no more', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const g = (await post('/device/group/add', a.token, { name: 'Kitchen' })).body_.data;
    const [d] = await make();
    await post('/device/bind', a.token, { sn: d.sn, bindKey: d.bindKey, name: 'Old name', groupId: g.id });
    await post('/device/edit', a.token, { id: d.id, remark: 'by the door' });
    const tenantA = (
      await h.db.selectFrom('devices').select('tenant_id').where('id', '=', d.id).executeTakeFirstOrThrow()
    ).tenant_id!;
    const task = (base: { state: 'queued' | 'running' | 'succeeded' }) =>
      h.db
        .insertInto('device_tasks')
        .values({
          tenant_id: tenantA,
          device_id: d.id,
          type: 'reboot',
          params: '{}',
          expire_at: new Date(Date.now() + 3600_000),
          batch_id: null,
          created_by: null,
          sent_at: null,
          delivered_at: null,
          started_at: null,
          finished_at: null,
          ...base,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    const queued = await task({ state: 'queued' });
    const running = await task({ state: 'running' });
    const done = await task({ state: 'succeeded' });

    expect((await post('/device/unbind', b.token, { id: d.id })).statusCode).toBe(404);
    const res = await post('/device/unbind', a.token, { id: d.id });
    expect(res.statusCode).toBe(200);
    // the new key, shown this once to the owner who unbinds, for the next owner
    expect(res.body_.data).toEqual({ sn: d.sn, bindKey: expect.stringMatching(BIND_KEY_RULE) });
    const newKey: string = res.body_.data.bindKey;
    expect(newKey).not.toBe(d.bindKey);
    expect((await get(`/device/${d.id}`, a.token)).statusCode).toBe(404);
    expect((await listOf(a.token)).total).toBe(0);
    const row = await h.db.selectFrom('devices').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ tenant_id: null, bound_at: null, name: '', remark: '', group_id: null });
    expect(
      (await h.db.selectFrom('sims').select('tenant_id').where('iccid', '=', d.iccid).executeTakeFirstOrThrow())
        .tenant_id,
    ).toBeNull();
    const states = await h.db
      .selectFrom('device_tasks')
      .select(['id', 'state', 'error'])
      .where('device_id', '=', d.id)
      .execute();
    expect(states.find((t) => t.id === queued.id)).toMatchObject({ state: 'canceled', error: 'device unbound' });
    expect(states.find((t) => t.id === running.id)!.state).toBe('canceled');
    expect(states.find((t) => t.id === done.id)!.state).toBe('succeeded');

    // the key on the label was used once: it binds nothing any more
    const old = await post('/device/bind', b.token, { sn: d.sn, bindKey: d.bindKey });
    expect(old.statusCode).toBe(400);
    expect(old.body_.msg).toBe('bindKey: bind key is wrong');
    const rebind = await post('/device/bind', b.token, { sn: d.sn, bindKey: newKey });
    expect(rebind.statusCode).toBe(200);
    expect(rebind.body_.data).toMatchObject({ name: '', remark: '', groupId: null });
    // and that one too is used once: unbound again, a further new key
    const again = await post('/device/unbind', b.token, { id: d.id });
    expect((await post('/device/bind', a.token, { sn: d.sn, bindKey: newKey })).statusCode).toBe(400);
    expect((await post('/device/bind', a.token, { sn: d.sn, bindKey: again.body_.data.bindKey })).statusCode).toBe(200);
  });

  it('renames and remarks; 404 for a device of another account; 400 naming the field', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const [d] = await bound(a.token);
    const res = await post('/device/edit', a.token, { id: d.id, name: '  Bar  ', remark: 'second floor' });
    expect(res.body_.data).toMatchObject({ name: 'Bar', remark: 'second floor' });
    expect((await post('/device/edit', a.token, { id: d.id, name: 'Bar 2' })).body_.data).toMatchObject({
      name: 'Bar 2',
      remark: 'second floor',
    });
    expect((await post('/device/edit', b.token, { id: d.id, name: 'hijack' })).statusCode).toBe(404);
    expect((await get(`/device/${d.id}`, a.token)).body_.data.name).toBe('Bar 2');
    const tooLong = await post('/device/edit', a.token, { id: d.id, remark: 'r'.repeat(201) });
    expect(tooLong.statusCode).toBe(400);
    expect(fields(tooLong)).toContain('remark');
    const nothing = await post('/device/edit', a.token, { id: d.id });
    expect(nothing.statusCode).toBe(400);
    expect(fields(nothing)).toContain('name');
  });

  it('moves many devices at once, all or nothing', async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const mine = await bound(a.token, 3);
    const [theirs] = await bound(b.token);
    const g = (await post('/device/group/add', a.token, { name: 'Moved' })).body_.data;
    const refused = await post('/device/move', a.token, { ids: [mine[0].id, theirs.id], groupId: g.id });
    expect(refused.statusCode).toBe(404);
    expect((await listOf(a.token, `&groupId=${g.id}`)).total).toBe(0);
    const ok = await post('/device/move', a.token, { ids: mine.map((d) => d.id), groupId: g.id });
    expect(ok.body_.data).toEqual({ moved: 3 });
    expect((await listOf(a.token, `&groupId=${g.id}`)).total).toBe(3);
    expect((await post('/device/move', a.token, { ids: [mine[0].id], groupId: null })).statusCode).toBe(200);
    expect((await listOf(a.token, '&groupId=0')).list.map((x) => x.id)).toEqual([mine[0].id]);
    const gb = (await post('/device/group/add', b.token, { name: 'Theirs' })).body_.data;
    expect((await post('/device/move', a.token, { ids: [mine[1].id], groupId: gb.id })).statusCode).toBe(404);
    const dup = await post('/device/move', a.token, { ids: [mine[1].id, mine[1].id], groupId: null });
    expect(dup.statusCode).toBe(400);
    expect(fields(dup)).toContain('ids');
  });
});

describe('groups', () => {
  it('keeps a tree with counts including subgroups, unique names among siblings and no cycles', async () => {
    const a = await registerCustomer(h);
    const add = async (name: string, parentId: number | null = null) => {
      const r = await post('/device/group/add', a.token, { name, parentId });
      expect(r.statusCode, r.body).toBe(200);
      return r.body_.data.id as number;
    };
    const east = await add('East');
    const shanghai = await add('Shanghai', east);
    const pudong = await add('Pudong', shanghai);
    const west = await add('West');
    await add('Pudong', west); // the same name under another parent is fine

    const dup = await post('/device/group/add', a.token, { name: 'pudong', parentId: shanghai });
    expect(dup.statusCode).toBe(400);
    expect(dup.body_.msg).toBe('name: a group with this name already exists here');

    const devices = await bound(a.token, 4);
    await post('/device/move', a.token, { ids: [devices[0].id], groupId: east });
    await post('/device/move', a.token, { ids: [devices[1].id, devices[2].id], groupId: pudong });
    await h.db
      .updateTable('devices')
      .set({ status: 'online', heartbeat_s: 86400, last_seen_at: new Date() })
      .where('id', '=', devices[1].id)
      .execute();

    const tree = (await get('/device/group/tree', a.token)).body_.data;
    expect(tree.total).toBe(4);
    expect(tree.ungrouped).toBe(1);
    const eastNode = tree.tree.find((g: { id: number }) => g.id === east);
    expect(eastNode).toMatchObject({ name: 'East', parentId: null, deviceCount: 3, onlineCount: 1 });
    expect(eastNode.children[0]).toMatchObject({
      id: shanghai,
      deviceCount: 2,
      children: [{ id: pudong, deviceCount: 2, onlineCount: 1, children: [] }],
    });
    expect(tree.tree.find((g: { id: number }) => g.id === west)).toMatchObject({ deviceCount: 0 });

    // no cycles: not under itself, not under a descendant
    for (const parentId of [east, pudong]) {
      const cyc = await post('/device/group/edit', a.token, { id: east, parentId });
      expect(cyc.statusCode).toBe(400);
      expect(cyc.body_.msg).toBe('parentId: a group cannot be moved under itself or one of its subgroups');
    }
    // moving Shanghai to the top keeps its subtree; renaming onto a sibling's name is refused
    expect((await post('/device/group/edit', a.token, { id: shanghai, parentId: null })).body_.data).toMatchObject({
      parentId: null,
    });
    expect((await post('/device/group/edit', a.token, { id: shanghai, name: 'WEST' })).statusCode).toBe(400);
    expect(
      (await post('/device/group/edit', a.token, { id: shanghai, name: 'Shanghai City', sort: 1 })).body_.data,
    ).toMatchObject({ name: 'Shanghai City', sort: 1 });

    // the group filter of the list includes subgroups
    expect((await listOf(a.token, `&groupId=${shanghai}`)).total).toBe(2);

    // deleting a group deletes its subgroups; their devices become ungrouped
    const del = await post('/device/group/delete', a.token, { id: shanghai });
    expect(del.body_.data).toEqual({ deletedGroups: 2, ungroupedDevices: 2 });
    const after = (await get('/device/group/tree', a.token)).body_.data;
    expect(after).toMatchObject({ total: 4, ungrouped: 3 });
    expect(after.tree.map((g: { name: string }) => g.name)).toEqual(['East', 'West']);
  });

  it("never shows or changes another account's groups", async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const ga = (await post('/device/group/add', a.token, { name: 'Mine' })).body_.data.id;
    expect((await get('/device/group/tree', b.token)).body_.data).toEqual({ tree: [], total: 0, ungrouped: 0 });
    expect((await post('/device/group/edit', b.token, { id: ga, name: 'x' })).statusCode).toBe(404);
    expect((await post('/device/group/delete', b.token, { id: ga })).statusCode).toBe(404);
    expect((await post('/device/group/add', b.token, { name: 'Child', parentId: ga })).statusCode).toBe(404);
    const gb = (await post('/device/group/add', b.token, { name: 'Theirs' })).body_.data.id;
    expect((await post('/device/group/edit', a.token, { id: ga, parentId: gb })).statusCode).toBe(404);
    const bad = await post('/device/group/add', a.token, { name: '' });
    expect(bad.statusCode).toBe(400);
    expect(fields(bad)).toContain('name');
  });
});

describe('list', () => {
  let a: { token: string };
  let d: Made[];
  beforeAll(async () => {
    a = await registerCustomer(h);
    d = [...(await bound(a.token, 4)), ...(await bound(a.token, 1, 'T10'))];
    // a day-long heartbeat keeps the gateway's presence sweep from taking these "online" devices offline
    const set = (i: number, v: Record<string, unknown>) =>
      h.db
        .updateTable('devices')
        .set({ heartbeat_s: 86400, ...v })
        .where('id', '=', d[i].id)
        .execute();
    const ago = (m: number) => new Date(Date.now() - m * 60_000);
    await set(0, {
      name: 'Alpha',
      status: 'online',
      battery: 90,
      signal: 40,
      paper: 'ok',
      last_seen_at: ago(1),
      connected_at: ago(30),
      firmware: '1.2.0',
      province: '上海',
    });
    await set(1, {
      name: 'bravo',
      status: 'offline',
      battery: 10,
      signal: 80,
      paper: 'out',
      last_seen_at: ago(60),
      connected_at: ago(90),
      firmware: '1.1.0',
    });
    await set(2, { name: 'Charlie', status: 'online', battery: null, signal: 60, paper: 'ok', last_seen_at: ago(5) });
    await set(3, { name: '', status: 'offline', battery: 50, signal: null, paper: 'cover-open', last_seen_at: null });
    await set(4, { name: 'Echo', status: 'online', battery: 70, signal: 20, last_seen_at: ago(2) });
    const plan = (i: number, total: number, used: number) =>
      h.db
        .updateTable('sims')
        .set({ plan_total_mb: total, used_mb: used, state: 'active' })
        .where('iccid', '=', d[i].iccid)
        .execute();
    await plan(0, 1024, 24);
    await plan(1, 1024, 1000);
    await plan(2, 500, 0);
    await plan(3, 2048, 48.5);
    await h.db.updateTable('sims').set({ state: 'low' }).where('iccid', '=', d[1].iccid).execute();
    await h.db.updateTable('devices').set({ iccid: null }).where('id', '=', d[4].id).execute();
  });

  it('shows the columns a fleet owner needs', async () => {
    const { list } = await listOf(a.token, '&keyword=alpha');
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: d[0].id,
      sn: d[0].sn,
      name: 'Alpha',
      remark: '',
      modelId,
      modelName: 'Receipt printer 58',
      modelKind: 'printer',
      groupId: null,
      groupName: null,
      status: 'online',
      paper: 'ok',
      battery: 90,
      signal: 40,
      firmware: '1.2.0',
      simDataLeftMb: 1000,
      simPlanMb: 1024,
      simState: 'active',
      province: '上海',
    });
    expect(Date.parse(list[0].lastSeenAt)).toBeGreaterThan(Date.now() - 5 * 60_000);
    expect(Date.parse(list[0].connectedAt)).toBeLessThan(Date.parse(list[0].lastSeenAt));
    // connected since is only shown while online
    expect((await listOf(a.token, '&keyword=bravo')).list[0].connectedAt).toBeNull();
    // no secret, no key hash
    const raw = (await get('/device/list', a.token)).body;
    for (const x of d) expect(raw).not.toContain(x.secret);
    expect(raw).not.toMatch(/bind_?key|secret/i);
  });

  it("keeps each SIM's state from the data left: low under 10 % or 50 MB, active after a top-up; no plan is not low", async () => {
    const c = await registerCustomer(h);
    const [x, y, z] = await bound(c.token, 3);
    const presence = new Presence(h.db, { publish: () => {} }, { heartbeatS: 30, telemetrySampleS: 60 });
    const plan = (m: Made, total: number) =>
      h.db.updateTable('sims').set({ plan_total_mb: total }).where('iccid', '=', m.iccid).execute();
    const row = async (m: Made) => (await listOf(c.token, `&keyword=${m.sn}`)).list[0];
    await plan(x, 1000);
    await plan(y, 100);
    // the counter as devices report it (the gateway's write)
    await presence.traffic(x.id, { iccid: x.iccid, usedMb: 850 });
    await presence.traffic(y.id, { iccid: y.iccid, usedMb: 20 });
    await presence.flushTraffic(); // the gateway's roll-up, every LAST_SEEN_FLUSH_MS
    expect(await row(x)).toMatchObject({ simState: 'active', simDataLeftMb: 150, simPlanMb: 1000 });
    // 80 of 100 MB left: above 50 MB and above 10 % of the plan
    expect(await row(y)).toMatchObject({ simState: 'active', simDataLeftMb: 80, simPlanMb: 100 });
    await presence.traffic(x.id, { iccid: x.iccid, usedMb: 905 }); // 95 MB left: under 10 % of the plan
    await presence.traffic(y.id, { iccid: y.iccid, usedMb: 55 }); // 45 MB left: under 50 MB
    await presence.flushTraffic();
    expect(await row(x)).toMatchObject({ simState: 'low', simDataLeftMb: 95 });
    expect(await row(y)).toMatchObject({ simState: 'low', simDataLeftMb: 45 });
    expect((await get(`/device/${x.id}`, c.token)).body_.data.sim).toMatchObject({ state: 'low', leftMb: 95 });
    // a top-up (more plan) makes it active again; a suspended SIM stays suspended whatever is left
    await plan(x, 2000);
    expect(await row(x)).toMatchObject({ simState: 'active', simDataLeftMb: 1095 });
    await h.db.updateTable('sims').set({ state: 'suspended' }).where('iccid', '=', y.iccid).execute();
    await plan(y, 5000);
    expect((await row(y)).simState).toBe('suspended');
    // no plan at all: not low, and the list says so (0 MB of plan), whatever the counter
    await presence.traffic(z.id, { iccid: z.iccid, usedMb: 12 });
    await presence.flushTraffic();
    expect(await row(z)).toMatchObject({ simState: 'active', simPlanMb: 0 });
  });

  it('filters by status, paper, model, keyword (sn or name) and group', async () => {
    const ids = async (q: string) =>
      (await listOf(a.token, q)).list.map((x) => x.id).sort((x: number, y: number) => x - y);
    expect(await ids('&status=online')).toEqual([d[0].id, d[2].id, d[4].id]);
    expect(await ids('&status=offline&paper=out')).toEqual([d[1].id]);
    expect(await ids(`&modelId=${otherModelId}`)).toEqual([d[4].id]);
    expect(await ids(`&keyword=${d[3].sn.slice(-4)}`)).toEqual([d[3].id]);
    expect(await ids('&keyword=CHAR')).toEqual([d[2].id]);
    expect(await ids('&keyword=%25')).toEqual([]);
    expect(await ids('&groupId=0')).toHaveLength(5);
  });

  it('sorts by every column both ways with empty values last, and pages', async () => {
    const order = async (sort: string, dir: string) =>
      (await listOf(a.token, `&sort=${sort}&order=${dir}`)).list.map((x) => d.findIndex((y) => y.id === x.id));
    expect(await order('battery', 'desc')).toEqual([0, 4, 3, 1, 2]);
    expect(await order('battery', 'asc')).toEqual([1, 3, 4, 0, 2]);
    expect(await order('signal', 'asc')).toEqual([4, 0, 2, 1, 3]);
    expect(await order('signal', 'desc')).toEqual([1, 2, 0, 4, 3]);
    expect(await order('lastSeen', 'desc')).toEqual([0, 4, 2, 1, 3]);
    // never seen counts as the longest silent
    expect(await order('lastSeen', 'asc')).toEqual([3, 1, 2, 4, 0]);
    expect(await order('dataLeft', 'desc')).toEqual([3, 0, 2, 1, 4]);
    expect(await order('dataLeft', 'asc')).toEqual([1, 2, 0, 3, 4]);
    expect(await order('name', 'asc')).toEqual([0, 1, 2, 4, 3]);
    expect(await order('sn', 'desc')).toEqual([4, 3, 2, 1, 0]);

    const p1 = (await get('/device/list?sort=sn&pageSize=2&pageNo=1', a.token)).body_.data;
    const p3 = (await get('/device/list?sort=sn&pageSize=2&pageNo=3', a.token)).body_.data;
    expect(p1.total).toBe(5);
    expect(p1.list.map((x: { id: number }) => x.id)).toEqual([d[0].id, d[1].id]);
    expect(p3.list.map((x: { id: number }) => x.id)).toEqual([d[4].id]);
  });

  it('refuses bad queries naming the field', async () => {
    for (const [q, field] of [
      ['pageSize=101', 'pageSize'],
      ['pageNo=0', 'pageNo'],
      ['status=sleeping', 'status'],
      ['paper=wet', 'paper'],
      ['sort=colour', 'sort'],
      ['order=up', 'order'],
      ['groupId=-1', 'groupId'],
      ['modelId=abc', 'modelId'],
      ['hack=1', 'hack'],
    ]) {
      const res = await get(`/device/list?${q}`, a.token);
      expect(res.statusCode, q).toBe(400);
      expect(res.body_.msg, q).toContain(field);
    }
  });
});

describe('detail, telemetry and map', () => {
  it('shows a device with its SIM, location and recent status changes', async () => {
    const a = await registerCustomer(h);
    const [d] = await bound(a.token);
    const tenant = (
      await h.db.selectFrom('devices').select('tenant_id').where('id', '=', d.id).executeTakeFirstOrThrow()
    ).tenant_id!;
    await h.db
      .updateTable('devices')
      .set({
        lat: 31.23,
        lng: 121.47,
        located_at: new Date('2025-01-02T03:04:05Z'),
        province: '上海',
        imei: '861234567890123',
        heartbeat_s: 30,
      })
      .where('id', '=', d.id)
      .execute();
    await h.db
      .updateTable('sims')
      .set({
        msisdn: '1440000000001',
        plan_total_mb: 1024,
        used_mb: 256.5,
        expires_at: new Date('2099-01-01T00:00:00Z'),
      })
      .where('iccid', '=', d.iccid)
      .execute();
    for (const [status, m] of [
      ['online', 30],
      ['offline', 20],
      ['online', 10],
    ] as const) {
      await h.db
        .insertInto('device_status_log')
        .values({
          device_id: d.id,
          tenant_id: tenant,
          status,
          reason: status === 'offline' ? 'last will' : 'hello',
          at: new Date(Date.now() - m * 60_000),
        })
        .execute();
    }
    // history from before this account held the device is not shown
    await h.db
      .insertInto('device_status_log')
      .values({ device_id: d.id, tenant_id: null, status: 'online', at: new Date(Date.now() - 90 * 60_000) })
      .execute();

    const res = await get(`/device/${d.id}`, a.token);
    expect(res.statusCode).toBe(200);
    const x = res.body_.data;
    expect(x).toMatchObject({
      id: d.id,
      sn: d.sn,
      imei: '861234567890123',
      iccid: d.iccid,
      heartbeatS: 30,
      model: {
        id: modelId,
        code: 'P58',
        name: 'Receipt printer 58',
        kind: 'printer',
        paperWidthMm: 58,
        capabilities: ['print'],
      },
      location: { lat: 31.23, lng: 121.47, at: '2025-01-02T03:04:05.000Z' },
      sim: {
        iccid: d.iccid,
        msisdn: '1440000000001',
        planTotalMb: 1024,
        usedMb: 256.5,
        leftMb: 767.5,
        expiresAt: '2099-01-01T00:00:00.000Z',
        state: 'active',
      },
      simDataLeftMb: 767.5,
    });
    expect(['cmcc', 'cucc', 'ctcc']).toContain(x.sim.carrier);
    expect(x.recentStatus.map((s: { status: string; reason: string }) => [s.status, s.reason])).toEqual([
      ['online', 'hello'],
      ['offline', 'last will'],
      ['online', 'hello'],
    ]);
    expect(res.body).not.toContain(d.secret);

    for (const bad of ['abc', '0', '1.5']) {
      const r = await get(`/device/${bad}`, a.token);
      expect(r.statusCode, bad).toBe(400);
      expect(fields(r)).toContain('id');
    }
    expect((await get('/device/999999999', a.token)).statusCode).toBe(404);
  });

  it('answers telemetry over a bounded range, averaged into buckets', async () => {
    const a = await registerCustomer(h);
    const [d] = await bound(a.token);
    const tenant = (
      await h.db.selectFrom('devices').select('tenant_id').where('id', '=', d.id).executeTakeFirstOrThrow()
    ).tenant_id!;
    const t0 = Date.parse('2025-03-01T00:00:00Z');
    const samples = [
      [0, 80, 50, 10],
      [60, 70, 70, 12],
      [3600, 60, 40, 20],
    ] as const;
    for (const [s, battery, signal, used] of samples)
      await h.db
        .insertInto('device_telemetry')
        .values({
          device_id: d.id,
          tenant_id: tenant,
          at: new Date(t0 + s * 1000),
          battery,
          signal,
          used_mb: used,
          paper: 'ok',
          lat: null,
          lng: null,
        })
        .execute();

    const fine = (await get(`/device/${d.id}/telemetry?from=2025-03-01T00:00:00Z&to=2025-03-01T02:00:00Z`, a.token))
      .body_.data;
    expect(fine.bucketSeconds).toBe(60);
    expect(fine.points).toEqual([
      { at: '2025-03-01T00:00:00.000Z', battery: 80, signal: 50, usedMb: 10 },
      { at: '2025-03-01T00:01:00.000Z', battery: 70, signal: 70, usedMb: 12 },
      { at: '2025-03-01T01:00:00.000Z', battery: 60, signal: 40, usedMb: 20 },
    ]);
    const coarse = (
      await get(`/device/${d.id}/telemetry?from=2025-03-01T00:00:00%2B08:00&to=2025-03-08T08:00:00%2B08:00`, a.token)
    ).body_.data;
    expect(coarse.bucketSeconds).toBeGreaterThan(60);
    // 22-minute buckets counted from `from` (16:00Z): the first two samples share the one starting 23:42Z
    expect(coarse.bucketSeconds).toBe(1320);
    expect(coarse.points[0]).toEqual({ at: '2025-02-28T23:42:00.000Z', battery: 75, signal: 60, usedMb: 12 });

    const reversed = await get(`/device/${d.id}/telemetry?from=2025-03-02T00:00:00Z&to=2025-03-01T00:00:00Z`, a.token);
    expect(reversed.statusCode).toBe(400);
    expect(reversed.body_.msg).toBe('from: must be before to');
    const tooLong = await get(`/device/${d.id}/telemetry?from=2025-01-01T00:00:00Z&to=2025-03-01T00:00:00Z`, a.token);
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body_.msg).toBe('to: the range must not exceed 31 days');
    const garbled = await get(`/device/${d.id}/telemetry?from=yesterday`, a.token);
    expect(garbled.statusCode).toBe(400);
    expect(fields(garbled)).toContain('from');
    // the default range is the last 24 hours
    expect((await get(`/device/${d.id}/telemetry`, a.token)).body_.data.points).toEqual([]);
  });

  it('gives the map every located device and the count per province, with filters', async () => {
    const a = await registerCustomer(h);
    const ds = await bound(a.token, 4);
    const g = (await post('/device/group/add', a.token, { name: 'North' })).body_.data.id;
    await post('/device/move', a.token, { ids: [ds[2].id], groupId: g });
    const put = (i: number, v: Record<string, unknown>) =>
      h.db
        .updateTable('devices')
        .set({ heartbeat_s: 86400, last_seen_at: new Date(), ...v })
        .where('id', '=', ds[i].id)
        .execute();
    await put(0, { lat: 31.2, lng: 121.5, province: '上海', status: 'online', paper: 'out', name: 'S1' });
    await put(1, { lat: 31.1, lng: 121.3, province: '上海', status: 'offline' });
    await put(2, { lat: 39.9, lng: 116.4, province: '北京', status: 'online' });
    // ds[3] has no location

    const all = (await get('/device/map', a.token)).body_.data;
    expect(all.list).toEqual([
      { id: ds[0].id, sn: ds[0].sn, name: 'S1', status: 'online', paper: 'out', lat: 31.2, lng: 121.5 },
      { id: ds[1].id, sn: ds[1].sn, name: '', status: 'offline', paper: 'ok', lat: 31.1, lng: 121.3 },
      { id: ds[2].id, sn: ds[2].sn, name: '', status: 'online', paper: 'ok', lat: 39.9, lng: 116.4 },
    ]);
    expect(all.provinces).toEqual([
      { province: '上海', total: 2, online: 1 },
      { province: '北京', total: 1, online: 1 },
    ]);
    const online = (await get('/device/map?status=online', a.token)).body_.data;
    expect(online.list.map((x: { id: number }) => x.id)).toEqual([ds[0].id, ds[2].id]);
    const grouped = (await get(`/device/map?groupId=${g}`, a.token)).body_.data;
    expect(grouped).toEqual({
      list: [expect.objectContaining({ id: ds[2].id })],
      provinces: [{ province: '北京', total: 1, online: 1 }],
    });
  });
});

describe('tenant isolation', () => {
  it("never shows tenant A's devices to tenant B: 404 on detail and telemetry, absent from list and map", async () => {
    const a = await registerCustomer(h);
    const b = await registerCustomer(h);
    const [da] = await bound(a.token);
    const [db_] = await bound(b.token);
    await h.db
      .updateTable('devices')
      .set({ lat: 30, lng: 120, province: '浙江' })
      .where('id', 'in', [da.id, db_.id])
      .execute();
    expect((await get(`/device/${da.id}`, b.token)).statusCode).toBe(404);
    expect((await get(`/device/${da.id}/telemetry`, b.token)).statusCode).toBe(404);
    expect((await listOf(b.token)).list.map((x) => x.id)).toEqual([db_.id]);
    expect((await listOf(b.token, `&keyword=${da.sn}`)).total).toBe(0);
    const map = (await get('/device/map', b.token)).body_.data;
    expect(map.list.map((x: { id: number }) => x.id)).toEqual([db_.id]);
    expect(map.provinces).toEqual([{ province: '浙江', total: 1, online: 0 }]);
    // staff see the platform's own (empty) fleet here, not customers'
    expect((await listOf(staff)).total).toBe(0);
  });
});

describe('permissions', () => {
  it('lets a viewer read but not bind, edit, group or unbind', async () => {
    const a = await registerCustomer(h);
    const [d] = await bound(a.token);
    const [free] = await make();
    const owner = await h.db
      .selectFrom('users')
      .select(['tenant_id'])
      .where('username', '=', a.username)
      .executeTakeFirstOrThrow();
    const role = await h.db
      .insertInto('roles')
      .values({ tenant_id: owner.tenant_id, code: 'view-only', name: 'View only', permissions: ['device:view'] })
      .returning('id')
      .executeTakeFirstOrThrow();
    const user = await h.db
      .insertInto('users')
      .values({
        tenant_id: owner.tenant_id,
        username: `viewer_${process.pid}`,
        mobile: null,
        password_hash: await hashPassword('Passw0rd99'),
        is_super: 2,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await h.db
      .insertInto('user_roles')
      .values({ tenant_id: owner.tenant_id, user_id: user.id, role_id: role.id })
      .execute();
    const viewer = (await h.login(`viewer_${process.pid}`, 'Passw0rd99')).token;

    expect((await listOf(viewer)).list.map((x) => x.id)).toEqual([d.id]);
    expect((await get(`/device/${d.id}`, viewer)).statusCode).toBe(200);
    expect((await get('/device/group/tree', viewer)).statusCode).toBe(200);
    expect((await get('/device/map', viewer)).statusCode).toBe(200);
    const refused: Array<[string, unknown]> = [
      ['/device/bind', { sn: free.sn, bindKey: free.bindKey }],
      ['/device/unbind', { id: d.id }],
      ['/device/edit', { id: d.id, name: 'x' }],
      ['/device/move', { ids: [d.id], groupId: null }],
      ['/device/group/add', { name: 'x' }],
    ];
    for (const [url, body] of refused) {
      const res = await post(url, viewer, body);
      expect(res.statusCode, url).toBe(403);
    }
    expect(
      (await h.db.selectFrom('devices').select('tenant_id').where('id', '=', free.id).executeTakeFirstOrThrow())
        .tenant_id,
    ).toBeNull();
    expect((await get('/device/list', '')).statusCode).toBe(401);
  });
});
