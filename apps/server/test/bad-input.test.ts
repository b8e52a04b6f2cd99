import Fastify from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../src/plugins/errors.ts';
import { ADMIN_PASSWORD, createHarness, multipart, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
let token: string;
let staff: string;
/** A device bound to the customer, one of its groups, and a device still in the factory pool. */
let device: { id: number; sn: string };
let groupId: number;
let spare: { sn: string; bindKey: string };
beforeAll(async () => {
  h = await createHarness();
  token = (await registerCustomer(h)).token;
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
  await h.call({
    method: 'POST',
    url: '/apiAdmin/system/deviceModel/add',
    token: staff,
    payload: { code: 'BAD58', name: 'Bad input printer', kind: 'printer' },
  });
  const made = await h.call({
    method: 'POST',
    url: '/apiAdmin/system/deviceRegistry/import',
    token: staff,
    ...multipart({}, { name: 'd.csv', bytes: Buffer.from('sn,model\nBADIN-0001,BAD58\nBADIN-0002,BAD58\n') }),
  });
  const [d, free] = made.body_.data.devices;
  await h.call({ method: 'POST', url: '/apiAdmin/device/bind', token, payload: { sn: d.sn, bindKey: d.bindKey } });
  device = { id: d.id, sn: d.sn };
  spare = { sn: free.sn, bindKey: free.bindKey };
  groupId = (await h.call({ method: 'POST', url: '/apiAdmin/device/group/add', token, payload: { name: 'Kitchen' } }))
    .body_.data.id;
});
afterAll(() => h.close());

const reg = {
  type: 'individual',
  username: 'gooduser',
  mobile: '13800000000',
  smsCode: '123456',
  password: 'Passw0rd99',
  confirmPassword: 'Passw0rd99',
};

// Each bad input answers 400 naming the field, and nothing is created.
const cases: Array<{
  name: string;
  url: string;
  method?: 'POST' | 'GET';
  auth?: boolean;
  payload?: unknown;
  raw?: string;
  field: RegExp;
}> = [
  {
    name: 'login: empty user name',
    url: '/apiAdmin/user/v1/login',
    payload: { username: '  ', password: 'secret12' },
    field: /^username: user name cannot be empty/,
  },
  {
    name: 'login: short password',
    url: '/apiAdmin/user/v1/login',
    payload: { username: 'abcdef', password: '123' },
    field: /^password: password cannot be less than 6 characters/,
  },
  {
    name: 'login: missing password',
    url: '/apiAdmin/user/v1/login',
    payload: { username: 'abcdef' },
    field: /^password/,
  },
  {
    name: 'login: wrong type',
    url: '/apiAdmin/user/v1/login',
    payload: { username: 123456, password: 'secret12' },
    field: /^username/,
  },
  {
    name: 'login: unknown field',
    url: '/apiAdmin/user/login',
    payload: { username: 'abcdef', password: 'secret12', admin: true },
    field: /^admin: /,
  },
  {
    name: 'register: mobile',
    url: '/apiAdmin/register',
    payload: { ...reg, mobile: '23800000000' },
    field: /^mobile: must be 11 digits starting with 1/,
  },
  {
    name: 'register: weak password',
    url: '/apiAdmin/register',
    payload: { ...reg, password: 'password', confirmPassword: 'password' },
    field: /^password: must be 8-16/,
  },
  {
    name: 'register: passwords differ',
    url: '/apiAdmin/register',
    payload: { ...reg, confirmPassword: 'Passw0rd98' },
    field: /^confirmPassword: the two passwords do not match/,
  },
  { name: 'register: type', url: '/apiAdmin/register', payload: { ...reg, type: 'company' }, field: /^type/ },
  { name: 'register: sms code', url: '/apiAdmin/register', payload: { ...reg, smsCode: '12ab' }, field: /^smsCode/ },
  {
    name: 'register: user name',
    url: '/apiAdmin/register',
    payload: { ...reg, username: '1bad name' },
    field: /^username/,
  },
  { name: 'sms: mobile', url: '/apiAdmin/sms/send', payload: { mobile: '1380000' }, field: /^mobile/ },
  {
    name: 'sms: purpose',
    url: '/apiAdmin/sms/send',
    payload: { mobile: '13800000000', purpose: 'reset' },
    field: /^purpose/,
  },
  {
    name: 'authenticate: type',
    url: '/apiAdmin/user/v1/user/authenticate',
    auth: true,
    payload: { type: 'robot' },
    field: /^type/,
  },
  {
    name: 'authenticate: realName',
    url: '/apiAdmin/user/v1/user/authenticate',
    auth: true,
    payload: { type: 'individual', realName: 'x', idNumber: '11010519491231002X', idFrontKey: 'a', idBackKey: 'b' },
    field: /^realName/,
  },
  {
    name: 'checkPassword: empty',
    url: '/apiAdmin/user/v1/user/checkPassword',
    auth: true,
    payload: {},
    field: /^password/,
  },
  {
    name: 'changePassword: weak',
    url: '/apiAdmin/user/v1/user/changePassword',
    auth: true,
    payload: { oldPassword: 'x', password: 'weak', confirmPassword: 'weak' },
    field: /^password/,
  },
  {
    name: 'notice list: page size',
    url: '/apiAdmin/notice/getList?pageSize=1000',
    method: 'GET',
    auth: true,
    field: /^pageSize/,
  },
  {
    name: 'notice list: page number',
    url: '/apiAdmin/notice/getList?pageNo=abc',
    method: 'GET',
    auth: true,
    field: /^pageNo/,
  },
  {
    name: 'login: NUL in the user name',
    url: '/apiAdmin/user/v1/login',
    payload: { username: 'ab\u0000cd', password: 'secret12' },
    field: /^username: must not contain control characters/,
  },
  {
    name: 'avatar: NUL in the key',
    url: '/apiAdmin/user/v1/user/updateAvatar',
    auth: true,
    payload: { avatarKey: 'a\u0000' },
    field: /^avatarKey: must not contain control characters/,
  },
  {
    name: 'sub-account list: NUL in the keyword',
    url: '/apiAdmin/system/subAccount/list?keyword=a%00b',
    method: 'GET',
    auth: true,
    field: /^keyword: must not contain control characters/,
  },
  { name: 'login: malformed JSON', url: '/apiAdmin/user/v1/login', raw: '{"username": "abc', field: /JSON|body/i },
];

describe('bad input answers 400 naming the field', () => {
  it.each(cases)('$name', async (c) => {
    const before = await h.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await h.call({
      method: c.method ?? 'POST',
      url: c.url,
      token: c.auth ? token : undefined,
      ...(c.raw !== undefined
        ? { payload: c.raw, headers: { 'content-type': 'application/json' } }
        : c.payload !== undefined
          ? { payload: c.payload as object }
          : {}),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body_.code).toBe(400);
    expect(res.body_.msg).toMatch(c.field);
    const after = await h.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('never answers 500 to odd bodies', async () => {
    for (const payload of [
      'null',
      '[]',
      '"x"',
      '{"__proto__": {"a": 1}}',
      '{"username": {"$ne": 1}, "password": "x"}',
    ]) {
      const res = await h.call({
        method: 'POST',
        url: '/apiAdmin/user/v1/login',
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.body_.code).toBe(400);
    }
    const wrongType = await h.call({
      method: 'POST',
      url: '/apiAdmin/user/v1/login',
      payload: 'username=abc',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.statusCode).toBeGreaterThanOrEqual(400);
    expect(wrongType.statusCode).toBeLessThan(500);
    expect(wrongType.body_.code).toBe(wrongType.statusCode);
  });
});

/** Everything the device routes could change, as one fingerprint. */
async function deviceState(): Promise<string> {
  const tables = ['devices', 'device_groups', 'device_models', 'device_tasks', 'task_batches', 'sims'];
  const parts = await Promise.all(
    tables.map((t) =>
      sql<{
        f: string | null;
      }>`select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as f from ${sql.table(t)} x`.execute(h.db),
    ),
  );
  return parts.map((p) => p.rows[0].f).join(',');
}

// NUL, other control characters, huge strings, wrong types and numbers past the database's range, on every
// device route: each answers 400 naming the field (never 500), and nothing changes.
const NUL = '\u0000';
const HUGE = 'x'.repeat(100_000);
const BIG = '99999999999999999999';
type DeviceCase = [
  name: string,
  who: 'customer' | 'staff',
  method: 'GET' | 'POST',
  url: () => string,
  body: (() => unknown) | null,
  field: string,
];
const deviceCases: DeviceCase[] = [
  ['list: NUL in the keyword', 'customer', 'GET', () => '/device/list?keyword=a%00b', null, 'keyword'],
  ['list: an escape in the keyword', 'customer', 'GET', () => '/device/list?keyword=%1B%5B31m', null, 'keyword'],
  ['list: a huge keyword', 'customer', 'GET', () => `/device/list?keyword=${'k'.repeat(5000)}`, null, 'keyword'],
  ['list: a page past any offset', 'customer', 'GET', () => '/device/list?pageNo=1e20', null, 'pageNo'],
  ['list: a group id past bigint', 'customer', 'GET', () => `/device/list?groupId=${BIG}`, null, 'groupId'],
  ['list: a model id of the wrong type', 'customer', 'GET', () => '/device/list?modelId=abc', null, 'modelId'],
  [
    'list: an unknown paper state',
    'customer',
    'GET',
    () => `/device/list?paper=${encodeURIComponent(NUL)}`,
    null,
    'paper',
  ],
  ['detail: an id past bigint', 'customer', 'GET', () => `/device/${BIG}`, null, 'id'],
  [
    'telemetry: a date that is not one',
    'customer',
    'GET',
    () => `/device/${device.id}/telemetry?from=${encodeURIComponent(`2024-01-01${NUL}`)}`,
    null,
    'from',
  ],
  ['map: a group id past bigint', 'customer', 'GET', () => `/device/map?groupId=${BIG}`, null, 'groupId'],
  [
    'bind: NUL in the serial number',
    'customer',
    'POST',
    () => '/device/bind',
    () => ({ sn: `${spare.sn}${NUL}`, bindKey: spare.bindKey }),
    'sn',
  ],
  [
    'bind: NUL in the key',
    'customer',
    'POST',
    () => '/device/bind',
    () => ({ sn: spare.sn, bindKey: `${spare.bindKey}${NUL}` }),
    'bindKey',
  ],
  ['bind: a huge key', 'customer', 'POST', () => '/device/bind', () => ({ sn: spare.sn, bindKey: HUGE }), 'bindKey'],
  [
    'bind: NUL in the name',
    'customer',
    'POST',
    () => '/device/bind',
    () => ({ sn: spare.sn, bindKey: spare.bindKey, name: `Desk${NUL}` }),
    'name',
  ],
  [
    'bind: a serial number of the wrong type',
    'customer',
    'POST',
    () => '/device/bind',
    () => ({ sn: 12345678, bindKey: spare.bindKey }),
    'sn',
  ],
  [
    'bind: a group id past bigint',
    'customer',
    'POST',
    () => '/device/bind',
    () => ({ sn: spare.sn, bindKey: spare.bindKey, groupId: 1e20 }),
    'groupId',
  ],
  [
    'edit: NUL in the name',
    'customer',
    'POST',
    () => '/device/edit',
    () => ({ id: device.id, name: `a${NUL}b` }),
    'name',
  ],
  [
    'edit: a tab in the name',
    'customer',
    'POST',
    () => '/device/edit',
    () => ({ id: device.id, name: 'a\tb' }),
    'name',
  ],
  [
    'edit: NUL in the remark',
    'customer',
    'POST',
    () => '/device/edit',
    () => ({ id: device.id, remark: `by the door${NUL}` }),
    'remark',
  ],
  ['edit: a huge remark', 'customer', 'POST', () => '/device/edit', () => ({ id: device.id, remark: HUGE }), 'remark'],
  [
    'edit: a name of the wrong type',
    'customer',
    'POST',
    () => '/device/edit',
    () => ({ id: device.id, name: { first: 'x' } }),
    'name',
  ],
  [
    'edit: an id as a string',
    'customer',
    'POST',
    () => '/device/edit',
    () => ({ id: String(device.id), name: 'x' }),
    'id',
  ],
  ['unbind: an id past bigint', 'customer', 'POST', () => '/device/unbind', () => ({ id: 1e20 }), 'id'],
  ['move: ids of the wrong type', 'customer', 'POST', () => '/device/move', () => ({ ids: 'all', groupId }), 'ids'],
  [
    'move: a group id of the wrong type',
    'customer',
    'POST',
    () => '/device/move',
    () => ({ ids: [device.id], groupId: 'top' }),
    'groupId',
  ],
  ['group add: NUL in the name', 'customer', 'POST', () => '/device/group/add', () => ({ name: `Shop${NUL}` }), 'name'],
  [
    'group add: a newline in the name',
    'customer',
    'POST',
    () => '/device/group/add',
    () => ({ name: 'Shop\nTwo' }),
    'name',
  ],
  ['group add: a huge name', 'customer', 'POST', () => '/device/group/add', () => ({ name: HUGE }), 'name'],
  [
    'group add: a name of the wrong type',
    'customer',
    'POST',
    () => '/device/group/add',
    () => ({ name: ['Shop'] }),
    'name',
  ],
  [
    'group edit: NUL in the name',
    'customer',
    'POST',
    () => '/device/group/edit',
    () => ({ id: groupId, name: `Kitchen${NUL}` }),
    'name',
  ],
  [
    'group delete: an id of the wrong type',
    'customer',
    'POST',
    () => '/device/group/delete',
    () => ({ id: null }),
    'id',
  ],
  [
    'command: a device id past bigint',
    'customer',
    'POST',
    () => '/device/command',
    () => ({ deviceIds: [1e20], type: 'reboot' }),
    'deviceIds.0',
  ],
  ['tasks: a batch id past bigint', 'customer', 'GET', () => `/device/task/list?batchId=${BIG}`, null, 'batchId'],
  ['batches: page 0', 'customer', 'GET', () => '/device/task/batch/list?pageNo=0', null, 'pageNo'],
  ['models: NUL in the keyword', 'staff', 'GET', () => '/system/deviceModel/list?keyword=%00', null, 'keyword'],
  [
    'models: NUL in a new name',
    'staff',
    'POST',
    () => '/system/deviceModel/add',
    () => ({ code: 'NUL58', name: `Printer${NUL}`, kind: 'printer' }),
    'name',
  ],
  [
    'models: a huge name',
    'staff',
    'POST',
    () => '/system/deviceModel/add',
    () => ({ code: 'HUGE58', name: HUGE, kind: 'printer' }),
    'name',
  ],
  ['registry: NUL in the keyword', 'staff', 'GET', () => '/system/deviceRegistry/list?keyword=%00', null, 'keyword'],
  [
    'register: NUL in the model code',
    'staff',
    'POST',
    () => '/system/deviceRegistry/register',
    () => ({ sn: 'BADIN-0099', model: `BAD58${NUL}` }),
    'model',
  ],
  [
    'register: a control character in the model code',
    'staff',
    'POST',
    () => '/system/deviceRegistry/register',
    () => ({ sn: 'BADIN-0099', model: 'BAD\u000158' }),
    'model',
  ],
  [
    'register: a key of the wrong type',
    'staff',
    'POST',
    () => '/system/deviceRegistry/register',
    () => ({ sn: 'BADIN-0099', model: 'BAD58', bindKey: 123456 }),
    'bindKey',
  ],
];

describe('device routes refuse bad text, sizes and types with 400 naming the field, changing nothing', () => {
  it.each(deviceCases)('%s', async (_name, who, method, url, body, field) => {
    const before = await deviceState();
    const res = await h.call({
      method,
      url: `/apiAdmin${url()}`,
      token: who === 'staff' ? staff : token,
      ...(body ? { payload: body() as object } : {}),
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
    expect(res.body_.code).toBe(400);
    expect(res.body_.data.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(await deviceState()).toBe(before);
  });

  it('refuses a CSV whose model column holds a control character, naming the row', async () => {
    const before = await deviceState();
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/deviceRegistry/import',
      token: staff,
      ...multipart({}, { name: 'd.csv', bytes: Buffer.from('sn,model\nBADIN-0101,BAD\u000158\n') }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.rows).toEqual([
      { row: 2, field: 'model', message: 'must not contain control characters', key: 'rule.noControl' },
    ]);
    expect(await deviceState()).toBe(before);
  });

  it('keeps line breaks in a remark (a text area), and the values that were refused work without the bad character', async () => {
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/device/edit',
      token,
      payload: { id: device.id, name: 'Desk', remark: 'by the door\r\nsecond floor' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toMatchObject({ name: 'Desk', remark: 'by the door\r\nsecond floor' });
    expect((await h.call({ method: 'GET', url: '/apiAdmin/device/list?keyword=Desk', token })).body_.data.total).toBe(
      1,
    );
  });
});

describe('the one error handler', () => {
  // behind the schemas: a value PostgreSQL refuses as data (SQLSTATE class 22) is the caller's mistake, not a 500
  it.each([
    ['NUL in text (22021)', sql`select ${'a\u0000b'}::text`, 'a value contains a character that cannot be stored'],
    ['a malformed uuid (22P02)', sql`select ${'not-a-uuid'}::uuid`, 'a value has an invalid format'],
    ['a number out of range (22003)', sql`select ${'99999999999999999999'}::bigint`, 'a value is out of range'],
    ['a date that does not exist (22008)', sql`select ${'2024-02-30'}::date`, 'a value is not a valid date or time'],
  ])('answers %s with a 400 envelope', async (_name, query, message) => {
    const app = Fastify();
    registerErrorHandling(app);
    app.post('/x', async () => (await query.execute(h.db)).rows);
    app.get('/x', async () => (await query.execute(h.db)).rows);
    app.get('/y', async () => (await sql`select * from no_such_table`.execute(h.db)).rows);
    const post = await app.inject({ method: 'POST', url: '/x', payload: { value: 1 } });
    expect(post.statusCode).toBe(400);
    expect(post.json()).toEqual({
      code: 400,
      msg: `body: ${message}`,
      data: { fields: [{ field: 'body', message, key: expect.stringMatching(/^db\./) }] },
    });
    const get = await app.inject({ method: 'GET', url: '/x?value=1' });
    expect(get.json()).toMatchObject({ code: 400, data: { fields: [{ field: 'query', message }] } });
    // other database errors stay 500s
    expect((await app.inject({ method: 'GET', url: '/y' })).statusCode).toBe(500);
    await app.close();
  });
});
