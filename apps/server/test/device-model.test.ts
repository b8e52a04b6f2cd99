import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isImei, luhnDigit } from '@cpc/contracts/device';
import { ADMIN_PASSWORD, PNG_1x1, createHarness, multipart, registerCustomer, type Harness } from './harness.ts';

let h: Harness;
let staff: string;
let customer: string;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
  customer = (await registerCustomer(h)).token;
});
afterAll(() => h.close());

const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });
const upload = (token: string, name: string, bytes: Buffer | string) =>
  h.call({
    method: 'POST',
    url: '/apiAdmin/system/deviceRegistry/import',
    token,
    ...multipart({}, { name, bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), type: 'text/csv' }),
  });
const fields = (res: { body_: { data: { fields?: Array<{ field: string }> } | null } }) =>
  res.body_.data?.fields?.map((f) => f.field) ?? [];
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const deviceCount = async () =>
  Number(
    (
      await h.db
        .selectFrom('devices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const withLuhn = (body: string) => body + luhnDigit(body);

let seq = 0;
const uniq = () => `${process.pid % 1000}${++seq}`.padStart(6, '0');
const newModel = async (over: Record<string, unknown> = {}) => {
  const res = await post('/system/deviceModel/add', staff, {
    code: `P${uniq()}`,
    name: '58 mm receipt printer',
    kind: 'printer',
    paperWidthMm: 58,
    capabilities: ['print', 'cutter'],
    ...over,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as { id: number; code: string };
};

describe('staff only', () => {
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/system/deviceModel/list'],
    ['POST', '/system/deviceModel/add', { code: 'X1', name: 'x', kind: 'printer' }],
    ['POST', '/system/deviceModel/edit', { id: 1, name: 'x' }],
    ['POST', '/system/deviceModel/delete', { id: 1 }],
    ['GET', '/system/deviceRegistry/list'],
    ['POST', '/system/deviceRegistry/register', { sn: 'CUST-0001', model: 'X1' }],
  ];
  it.each(routes)('%s %s answers 403 to a customer and changes nothing', async (method, url, payload) => {
    const before = await deviceCount();
    const res = await h.call({
      method: method as 'GET' | 'POST',
      url: `/apiAdmin${url}`,
      token: customer,
      ...(payload ? { payload: payload as object } : {}),
    });
    expect(res.statusCode).toBe(403);
    expect(res.body_.code).toBe(403);
    expect(await deviceCount()).toBe(before);
  });

  it('refuses a CSV import by a customer', async () => {
    const res = await upload(customer, 'devices.csv', 'sn,model\nCUST-0002,X1\n');
    expect(res.statusCode).toBe(403);
  });

  it('refuses staff permissions held by a customer role (the platform tenant is required)', async () => {
    const c = await registerCustomer(h);
    const user = await h.db
      .selectFrom('users')
      .select(['id', 'tenant_id'])
      .where('username', '=', c.username)
      .executeTakeFirstOrThrow();
    const role = await h.db
      .insertInto('roles')
      .values({
        tenant_id: user.tenant_id,
        code: 'rogue',
        name: 'rogue',
        permissions: ['device:register', 'device:model:manage'],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await h.db
      .insertInto('user_roles')
      .values({ tenant_id: user.tenant_id, user_id: user.id, role_id: role.id })
      .execute();
    const res = await get('/system/deviceRegistry/list', c.token);
    expect(res.statusCode).toBe(403);
    expect((await get('/system/deviceModel/list', c.token)).statusCode).toBe(403);
  });

  it('shows customers the catalogue as options', async () => {
    const m = await newModel({ name: 'Options model' });
    const res = await get('/device/model/options', customer);
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toContainEqual({
      id: m.id,
      code: m.code,
      name: 'Options model',
      kind: 'printer',
      paperWidthMm: 58,
    });
  });
});

describe('device models', () => {
  it('adds, lists, edits and deletes a model; codes are unique whatever their case', async () => {
    const code = `Cat${uniq()}`;
    const add = await post('/system/deviceModel/add', staff, {
      code,
      name: 'Terminal T1',
      kind: 'android-terminal',
      paperWidthMm: 80,
      capabilities: ['print', 'apps', 'wallpaper'],
    });
    expect(add.statusCode).toBe(200);
    expect(add.body_.data).toMatchObject({
      code,
      name: 'Terminal T1',
      kind: 'android-terminal',
      paperWidthMm: 80,
      capabilities: ['print', 'apps', 'wallpaper'],
      deviceCount: 0,
    });

    const dup = await post('/system/deviceModel/add', staff, {
      code: code.toUpperCase(),
      name: 'again',
      kind: 'printer',
    });
    expect(dup.statusCode).toBe(400);
    expect(dup.body_.msg).toBe('code: a model with this code already exists');

    const list = await get(`/system/deviceModel/list?keyword=${code}`, staff);
    expect(list.body_.data).toMatchObject({ total: 1, list: [{ id: add.body_.data.id, code }] });
    expect((await get('/system/deviceModel/list?kind=printer&keyword=Terminal T1', staff)).body_.data.total).toBe(0);

    const edit = await post('/system/deviceModel/edit', staff, {
      id: add.body_.data.id,
      name: 'Terminal T2',
      capabilities: ['print'],
    });
    expect(edit.statusCode).toBe(200);
    expect(edit.body_.data).toMatchObject({ code, name: 'Terminal T2', capabilities: ['print'], paperWidthMm: 80 });

    const del = await post('/system/deviceModel/delete', staff, { id: add.body_.data.id });
    expect(del.statusCode).toBe(200);
    expect((await post('/system/deviceModel/edit', staff, { id: add.body_.data.id, name: 'gone' })).statusCode).toBe(
      404,
    );
    expect((await post('/system/deviceModel/delete', staff, { id: add.body_.data.id })).statusCode).toBe(404);
  });

  it('refuses to delete a model devices use', async () => {
    const m = await newModel();
    expect(
      (await post('/system/deviceRegistry/register', staff, { sn: `USE-${uniq()}`, model: m.code })).statusCode,
    ).toBe(200);
    const del = await post('/system/deviceModel/delete', staff, { id: m.id });
    expect(del.statusCode).toBe(400);
    expect(del.body_.msg).toMatch(/used by 1 registered devices/);
    expect((await get(`/system/deviceModel/list?keyword=${m.code}`, staff)).body_.data.list[0].deviceCount).toBe(1);
  });

  const bad: Array<[Record<string, unknown>, string]> = [
    [{ code: 'a', name: 'x', kind: 'printer' }, 'code'],
    [{ code: 'has space', name: 'x', kind: 'printer' }, 'code'],
    [{ code: 'OK1', name: '  ', kind: 'printer' }, 'name'],
    [{ code: 'OK1', name: 'x', kind: 'fax' }, 'kind'],
    [{ code: 'OK1', name: 'x', kind: 'printer', paperWidthMm: -1 }, 'paperWidthMm'],
    [{ code: 'OK1', name: 'x', kind: 'printer', capabilities: ['Print!'] }, 'capabilities.0'],
    [{ code: 'OK1', name: 'x', kind: 'printer', capabilities: ['print', 'print'] }, 'capabilities'],
    [{ code: 'OK1', name: 'x', kind: 'printer', extra: 1 }, 'extra'],
  ];
  it.each(bad)('refuses %j naming %s', async (body, field) => {
    const res = await post('/system/deviceModel/add', staff, body);
    expect(res.statusCode).toBe(400);
    expect(res.body_.code).toBe(400);
    if (field === 'extra') expect(res.body_.msg).toContain('"extra"');
    else expect(fields(res)).toContain(field);
  });
});

describe('single registration', () => {
  it('generates what is absent, shows the key and secret once, and stores only the key hash', async () => {
    const m = await newModel();
    const sn = `REG-${uniq()}`;
    const res = await post('/system/deviceRegistry/register', staff, { sn, model: m.code.toLowerCase() });
    expect(res.statusCode).toBe(200);
    const d = res.body_.data.devices[0];
    expect(res.body_.data.imported).toBe(1);
    expect(d).toMatchObject({ sn, model: m.code });
    expect(d.bindKey).toMatch(/^[A-HJ-NP-Z2-9]{12}$/);
    expect(d.secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(d.iccid).toMatch(/^8986\d{16}$/);
    expect(isImei(d.imei)).toBe(true);

    const row = await h.db.selectFrom('devices').selectAll().where('sn', '=', sn).executeTakeFirstOrThrow();
    expect(row.bind_key_hash).toBe(sha256(d.bindKey));
    expect(JSON.stringify(row)).not.toContain(d.bindKey);
    expect(row.tenant_id).toBeNull();
    const sim = await h.db.selectFrom('sims').selectAll().where('iccid', '=', d.iccid).executeTakeFirstOrThrow();
    expect(sim).toMatchObject({ device_id: row.id, tenant_id: null });
    expect(['cmcc', 'cucc', 'ctcc']).toContain(sim.carrier);

    // the registry never shows the key or the secret again
    const list = await get(`/system/deviceRegistry/list?keyword=${sn}`, staff);
    expect(list.body_.data.list).toEqual([
      expect.objectContaining({ sn, bound: false, tenantName: null, iccid: d.iccid, imei: d.imei, modelCode: m.code }),
    ]);
    expect(JSON.stringify(list.body_)).not.toContain(d.secret);
    expect(JSON.stringify(list.body_)).not.toContain(d.bindKey);
  });

  it('keeps given values and refuses duplicates, unknown models and bad formats naming the field', async () => {
    const m = await newModel();
    const sn = `GIV-${uniq()}`;
    const iccid = withLuhn(`8986011${uniq()}${uniq()}`.slice(0, 19));
    const imei = withLuhn(`8612345${uniq()}`.slice(0, 14).padEnd(14, '0'));
    const ok = await post('/system/deviceRegistry/register', staff, {
      sn,
      model: m.code,
      bindKey: 'LABEL2024',
      secret: 's'.repeat(20),
      iccid,
      imei,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.body_.data.devices[0]).toMatchObject({ sn, bindKey: 'LABEL2024', secret: 's'.repeat(20), iccid, imei });

    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ sn: sn.toLowerCase(), model: m.code }, 'sn', /already registered/],
      [{ sn: `N-${uniq()}`, model: m.code, iccid }, 'iccid', /already registered/],
      [{ sn: `N-${uniq()}`, model: m.code, imei }, 'imei', /already registered/],
      [{ sn: `N-${uniq()}`, model: 'NOPE' }, 'model', /unknown model code "NOPE"/],
      [{ sn: 'x', model: m.code }, 'sn', /4-32/],
      [{ sn: `N-${uniq()}`, model: m.code, imei: '123456789012345' }, 'imei', /check digit/],
      [{ sn: `N-${uniq()}`, model: m.code, iccid: '12ab' }, 'iccid', /19 or 20 digits/],
      [{ sn: `N-${uniq()}`, model: m.code, bindKey: 'ab' }, 'bindKey', /6-32/],
    ];
    for (const [body, field, msg] of cases) {
      const before = await deviceCount();
      const res = await post('/system/deviceRegistry/register', staff, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(fields(res)).toContain(field);
      expect(res.body_.msg).toMatch(msg);
      expect(await deviceCount()).toBe(before);
    }
  });
});

describe('CSV import', () => {
  it('imports a good file (any column order, optional columns empty) and shows every generated key once', async () => {
    const m = await newModel();
    const p = uniq();
    const iccid = withLuhn(`89860300${p}00000`.slice(0, 19));
    const csv = [
      '\ufeffmodel,sn,bind_key,iccid',
      `${m.code},CSV-${p}-1,KEY00001,`,
      `${m.code.toLowerCase()},CSV-${p}-2,,${iccid}`,
      '',
      `${m.code},CSV-${p}-3,,`,
    ].join('\r\n');
    const res = await upload(staff, 'factory.csv', csv);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.imported).toBe(3);
    const devices = res.body_.data.devices as Array<{ sn: string; bindKey: string; iccid: string; secret: string }>;
    expect(devices.map((d) => d.sn)).toEqual([`CSV-${p}-1`, `CSV-${p}-2`, `CSV-${p}-3`]);
    expect(devices[0].bindKey).toBe('KEY00001');
    expect(devices[1].iccid).toBe(iccid);
    expect(devices[2].bindKey).toMatch(/^[A-HJ-NP-Z2-9]{12}$/);
    const reg = await get(`/system/deviceRegistry/list?keyword=CSV-${p}&bound=false`, staff);
    expect(reg.body_.data.total).toBe(3);
  });

  it('refuses a file with bad rows as a whole, naming every row and field', async () => {
    const m = await newModel();
    const p = uniq();
    const taken = (await post('/system/deviceRegistry/register', staff, { sn: `TAKEN-${p}`, model: m.code })).body_.data
      .devices[0];
    const csv = [
      'sn,model,bind_key,secret,iccid,imei',
      `OK-${p}-1,${m.code},,,,`, // row 2: fine
      `x,${m.code},,,,`, // row 3: bad sn
      `OK-${p}-4,NOPE,,,,`, // row 4: unknown model
      `ok-${p}-1,${m.code},,,,`, // row 5: repeats row 2 (case aside)
      `TAKEN-${p},${m.code},,,,`, // row 6: already registered
      `OK-${p}-7,${m.code},,,${taken.iccid},123`, // row 7: ICCID taken, bad IMEI
      `OK-${p}-8,${m.code},,`, // row 8: too few columns
    ].join('\n');
    const before = await deviceCount();
    const res = await upload(staff, 'bad.csv', csv);
    expect(res.statusCode).toBe(400);
    expect(res.body_.msg).toMatch(/^nothing imported: row 3 sn: /);
    expect(res.body_.msg).toMatch(/and \d+ more$/);
    const rows = res.body_.data.rows as Array<{ row: number; field: string; message: string }>;
    expect(rows.map((r) => [r.row, r.field])).toEqual([
      [3, 'sn'],
      [4, 'model'],
      [5, 'sn'],
      [6, 'sn'],
      [7, 'iccid'],
      [7, 'imei'],
      [8, 'row'],
    ]);
    expect(rows.find((r) => r.row === 5)!.message).toBe('duplicate of row 2');
    expect(rows.find((r) => r.row === 6)!.message).toBe('already registered');
    expect(rows.find((r) => r.row === 8)!.message).toBe('expected 6 columns, found 4');
    expect(fields(res)).toContain('row 7.imei');
    expect(await deviceCount()).toBe(before);
  });

  it('refuses what is not such a CSV with a clear message on file', async () => {
    const cases: Array<[string, Buffer | string, RegExp]> = [
      [
        'letter.txt',
        'Dear staff, here are the printers.\nRegards "Bob"\n',
        /^file: the first line must be the header sn,model,bind_key,secret,iccid,imei/,
      ],
      ['photo.csv', PNG_1x1, /^file: must be a UTF-8 CSV text file/],
      ['empty.csv', '', /^file: the file is empty/],
      ['header.csv', 'sn,model\n', /^file: no devices in the file/],
      ['unknown-column.csv', 'sn,model,colour\nA-0001,X,red\n', /^file: the first line must be the header/],
      ['quote.csv', 'sn,model\n"A-0001,X\n', /^file: not a valid CSV at line \d/],
    ];
    for (const [name, bytes, msg] of cases) {
      const before = await deviceCount();
      const res = await upload(staff, name, bytes);
      expect(res.statusCode, name).toBe(400);
      expect(res.body_.code).toBe(400);
      expect(res.body_.msg, name).toMatch(msg);
      expect(await deviceCount()).toBe(before);
    }
    const notMultipart = await post('/system/deviceRegistry/import', staff, { file: 'sn,model' });
    expect(notMultipart.statusCode).toBe(400);
    expect(notMultipart.body_.msg).toMatch(/^file: /);
  });

  it('refuses a form the parser cannot read (no boundary, cut off) with 400 on file, not 500', async () => {
    const broken: Array<[string, string]> = [
      ['multipart/form-data', 'sn,model'],
      [
        'multipart/form-data; boundary=fz',
        '--fz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nsn,model\n',
      ],
    ];
    for (const [type, payload] of broken) {
      const before = await deviceCount();
      const res = await h.call({
        method: 'POST',
        url: '/apiAdmin/system/deviceRegistry/import',
        token: staff,
        payload,
        headers: { 'content-type': type },
      });
      expect(res.statusCode, type).toBe(400);
      expect(res.body_.code).toBe(400);
      expect(res.body_.data.fields[0].field).toBe('file');
      expect(await deviceCount()).toBe(before);
    }
  });
});

describe('registry', () => {
  it('pages, filters by bound and model, and names the owner once bound', async () => {
    const m = await newModel();
    const p = uniq();
    const csv = ['sn,model', ...Array.from({ length: 5 }, (_, i) => `PG-${p}-${i},${m.code}`)].join('\n');
    const devices = (await upload(staff, 'page.csv', csv)).body_.data.devices as Array<{ sn: string; bindKey: string }>;
    const c = await registerCustomer(h);
    expect((await post('/device/bind', c.token, { sn: devices[0].sn, bindKey: devices[0].bindKey })).statusCode).toBe(
      200,
    );

    const page1 = await get(`/system/deviceRegistry/list?modelId=${m.id}&pageSize=2&pageNo=1`, staff);
    const page3 = await get(`/system/deviceRegistry/list?modelId=${m.id}&pageSize=2&pageNo=3`, staff);
    expect(page1.body_.data.total).toBe(5);
    expect(page1.body_.data.list).toHaveLength(2);
    expect(page3.body_.data.list).toHaveLength(1);
    const bound = await get(`/system/deviceRegistry/list?modelId=${m.id}&bound=true`, staff);
    expect(bound.body_.data.list).toEqual([
      expect.objectContaining({ sn: devices[0].sn, bound: true, tenantName: c.username }),
    ]);
    expect(Date.parse(bound.body_.data.list[0].boundAt)).not.toBeNaN();
    expect((await get(`/system/deviceRegistry/list?modelId=${m.id}&bound=false`, staff)).body_.data.total).toBe(4);
    expect((await get(`/system/deviceRegistry/list?keyword=${c.username}`, staff)).body_.data.total).toBe(1);
    const badPage = await get('/system/deviceRegistry/list?pageSize=101', staff);
    expect(badPage.statusCode).toBe(400);
    expect(fields(badPage)).toContain('pageSize');
  });
});

describe('bind keys', () => {
  it('lets staff issue a new bind key (shown once, only its hash kept): the old key stops working', async () => {
    const m = await newModel();
    const p = uniq();
    const [d] = (await upload(staff, 'key.csv', `sn,model\nKY-${p},${m.code}\n`)).body_.data.devices as Array<{
      id: number;
      sn: string;
      bindKey: string;
    }>;
    const res = await post('/system/deviceRegistry/bindKey', staff, { id: d.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data).toEqual({ id: d.id, sn: d.sn, bindKey: expect.stringMatching(/^[A-HJ-NP-Z2-9]{12}$/) });
    const { bindKey } = res.body_.data;
    const row = await h.db
      .selectFrom('devices')
      .select('bind_key_hash')
      .where('id', '=', d.id)
      .executeTakeFirstOrThrow();
    expect(row.bind_key_hash).toBe(sha256(bindKey));
    const c = await registerCustomer(h);
    expect((await post('/device/bind', c.token, { sn: d.sn, bindKey: d.bindKey })).statusCode).toBe(400);
    expect((await post('/device/bind', c.token, { sn: d.sn, bindKey })).statusCode).toBe(200);
    const audit = await h.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('action', '=', 'device.bindKey.reissue')
      .where('resource_id', '=', String(d.id))
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0].details)).not.toContain(bindKey);
  });

  it('refuses customers (403), unknown devices (404) and bad ids (400)', async () => {
    expect((await post('/system/deviceRegistry/bindKey', customer, { id: 1 })).statusCode).toBe(403);
    expect((await post('/system/deviceRegistry/bindKey', staff, { id: 987654321 })).statusCode).toBe(404);
    const bad = await post('/system/deviceRegistry/bindKey', staff, { id: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(fields(bad)).toContain('id');
  });
});

describe('OpenAPI', () => {
  it('documents the device, model, registry and dashboard routes', async () => {
    const res = await h.call({ method: 'GET', url: '/apiAdmin/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const p of [
      '/apiAdmin/device/list',
      '/apiAdmin/device/{id}',
      '/apiAdmin/device/group/tree',
      '/apiAdmin/system/deviceRegistry/import',
      '/apiAdmin/dashboard/overview',
    ])
      expect(paths).toContain(p);
  });
});
