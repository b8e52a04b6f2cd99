import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_MAX_BYTES } from '@cpc/contracts/device';
import {
  ADMIN_PASSWORD,
  JPEG_1x1,
  PNG_1x1,
  createHarness,
  multipart,
  registerCustomer,
  type Harness,
} from './harness.ts';

let h: Harness;
let staff: string;
beforeAll(async () => {
  h = await createHarness();
  staff = (await h.login('admin', ADMIN_PASSWORD)).token;
});
afterAll(() => h.close());

const MB = 1024 * 1024;
const get = (url: string, token: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });
const post = (url: string, token: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });
const uploadToken = async (token: string) =>
  (await get('/user/v1/user/getQnToken?bucket=permanentfile', token)).body_.data.token as string;
const upload = (token: string, name: string, bytes: Buffer) =>
  h.call({ method: 'POST', url: '/apiAdmin/upload', ...multipart({ token }, { name, bytes, type: 'image/jpeg' }) });

/** Every file under DATA_DIR/objects, temporary ones included. */
function filesOnDisk(): string[] {
  const root = path.join(h.dataDir, 'objects');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((p) =>
    fs.statSync(path.join(root, p)).isFile(),
  );
}
const objectRows = async () =>
  Number(
    (
      await h.db
        .selectFrom('objects')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const deviceCount = async () =>
  Number(
    (
      await h.db
        .selectFrom('devices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** A jpg of exactly `size` bytes: a real header, then padding file-type does not read. */
const jpegOf = (size: number) => Buffer.concat([JPEG_1x1, Buffer.alloc(size - JPEG_1x1.length, 0x20)]);

let base = '';
/** The app on a real socket (inject hands the whole body over at once). */
async function listening(): Promise<string> {
  if (!base) base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  return base;
}

/** POSTs a body over a socket, pausing at each of `cuts` so each piece is read on its own. */
async function postInPieces(
  payload: Buffer,
  headers: Record<string, string>,
  cuts: number[],
  path = '/apiAdmin/upload',
): Promise<{ status: number; body: any }> {
  const url = new URL(path, await listening());
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': payload.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    let at = 0;
    const send = async () => {
      for (const cut of [...cuts, payload.length]) {
        await new Promise<void>((r) => req.write(payload.subarray(at, cut), () => r()));
        at = cut;
        await new Promise((r) => setTimeout(r, 200));
      }
      req.end();
    };
    send().catch(reject);
  });
}

/** Sends the first `bytes` of a body, then destroys the socket: a client that goes away mid-upload. */
async function abortAfter(payload: Buffer, headers: Record<string, string>, bytes: number): Promise<void> {
  const url = new URL('/apiAdmin/upload', await listening());
  const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': payload.length } });
  req.on('error', () => {});
  await new Promise<void>((r) => req.write(payload.subarray(0, bytes), () => r()));
  await new Promise((r) => setTimeout(r, 300));
  req.destroy();
}

/** Asserts a refused upload kept nothing: same files on disk, same rows. */
async function keptNothing(before: { files: string[]; rows: number }) {
  expect(filesOnDisk()).toEqual(before.files);
  expect(await objectRows()).toBe(before.rows);
}
const snapshot = async () => ({ files: filesOnDisk(), rows: await objectRows() });

describe('upload size', () => {
  it('refuses an 11 MB jpg whole: 400 naming file and the limit, no file, no row', async () => {
    const c = await registerCustomer(h);
    const before = await snapshot();
    const res = await upload(await uploadToken(c.token), 'big.jpg', jpegOf(11 * MB));
    expect(res.statusCode).toBe(400);
    expect(res.body_.code).toBe(400);
    expect(res.body_.msg).toBe('file: file must not exceed 10MB');
    expect(res.body_.data.fields).toEqual([
      { field: 'file', message: 'file must not exceed 10MB', key: 'upload.tooLarge' },
    ]);
    await keptNothing(before);
  });

  it('refuses an 11 MB jpg whose first 10 MB arrive in one piece over a real socket', async () => {
    // busboy marks the file cut only when bytes past the limit arrive: a read that ended at exactly 10 MB
    // used to hand over a whole-looking 10 MB file
    const c = await registerCustomer(h);
    const before = await snapshot();
    const body = multipart({ token: await uploadToken(c.token) }, { name: 'big.jpg', bytes: jpegOf(11 * MB) });
    const fileStart = body.payload.indexOf(JPEG_1x1);
    const res = await postInPieces(body.payload, body.headers, [fileStart + 10 * MB]);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('file: file must not exceed 10MB');
    await keptNothing(before);
  });

  it('refuses a file one byte over the limit, and the same in Chinese', async () => {
    const c = await registerCustomer(h);
    const before = await snapshot();
    const body = multipart({ token: await uploadToken(c.token) }, { name: 'big.jpg', bytes: jpegOf(10 * MB + 1) });
    const zh = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      payload: body.payload,
      headers: { ...body.headers, 'accept-language': 'zh-CN' },
    });
    expect(zh.statusCode).toBe(400);
    expect(zh.body_.msg).toBe('文件：文件不能超过10MB');
    expect(zh.body_.msg).toMatch(/[\u4e00-\u9fff]/);
    await keptNothing(before);
  });

  it('accepts a jpg of exactly 10 MB, kept whole', async () => {
    const c = await registerCustomer(h);
    const before = await snapshot();
    const res = await upload(await uploadToken(c.token), 'exact.jpg', jpegOf(10 * MB));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.size).toBe(10 * MB);
    expect(res.body_.data.mime).toBe('image/jpeg');
    const files = filesOnDisk();
    expect(files.length).toBe(before.files.length + 1);
    expect(files).toContain(res.body_.data.key);
    expect(fs.statSync(path.join(h.dataDir, 'objects', res.body_.data.key)).size).toBe(10 * MB);
    expect(await objectRows()).toBe(before.rows + 1);
    const read = await h.call({ method: 'GET', url: res.body_.data.url });
    expect(read.statusCode).toBe(200);
    expect(read.rawPayload.length).toBe(10 * MB);
  });
});

describe('temporary files', () => {
  it('removes what an interrupted upload left hours ago, and leaves a recent one alone', async () => {
    // a fresh app: the sweep runs at its first upload
    const other = await createHarness();
    try {
      const tmp = path.join(other.dataDir, 'objects', '.tmp');
      fs.mkdirSync(tmp, { recursive: true });
      fs.writeFileSync(path.join(tmp, 'old'), 'x');
      fs.writeFileSync(path.join(tmp, 'recent'), 'x');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      fs.utimesSync(path.join(tmp, 'old'), twoHoursAgo, twoHoursAgo);
      const c = await registerCustomer(other);
      const t = (
        await other.call({
          method: 'GET',
          url: '/apiAdmin/user/v1/user/getQnToken?bucket=permanentfile',
          token: c.token,
        })
      ).body_.data.token;
      expect(
        (
          await other.call({
            method: 'POST',
            url: '/apiAdmin/upload',
            ...multipart({ token: t }, { name: 'a.png', bytes: PNG_1x1 }),
          })
        ).statusCode,
      ).toBe(200);
      expect(fs.readdirSync(tmp)).toEqual(['recent']);
    } finally {
      await other.close();
    }
  });
});

describe('what is checked before anything is written', () => {
  it("refuses a deleted sub-account's token with 401 and keeps no file", async () => {
    const main = await registerCustomer(h);
    const sub = await post('/system/subAccount/create', main.token, {
      username: `up_${Date.now().toString(36)}`,
      password: 'Passw0rd99',
      confirmPassword: 'Passw0rd99',
    });
    expect(sub.statusCode, sub.body).toBe(200);
    const subLogin = await h.login(sub.body_.data.username, 'Passw0rd99');
    const token = await uploadToken(subLogin.token);
    expect((await post('/system/subAccount/delete', main.token, { id: sub.body_.data.id })).statusCode).toBe(200);
    const before = await snapshot();
    const res = await upload(token, 'a.png', PNG_1x1);
    expect(res.statusCode).toBe(401);
    expect(res.body_.code).toBe(401);
    await keptNothing(before);
  });

  it('refuses the token of a disabled sub-account, and of a session that logged out', async () => {
    const main = await registerCustomer(h);
    const sub = await post('/system/subAccount/create', main.token, {
      username: `ud_${Date.now().toString(36)}`,
      password: 'Passw0rd99',
      confirmPassword: 'Passw0rd99',
    });
    const subLogin = await h.login(sub.body_.data.username, 'Passw0rd99');
    const token = await uploadToken(subLogin.token);
    expect((await upload(token, 'ok.png', PNG_1x1)).statusCode).toBe(200);
    expect(
      (await post('/system/subAccount/state', main.token, { id: sub.body_.data.id, state: 'disabled' })).statusCode,
    ).toBe(200);
    const before = await snapshot();
    const res = await upload(token, 'a.png', PNG_1x1);
    expect(res.statusCode).toBe(401);
    expect(res.body_.code).toBe(401);
    await keptNothing(before);

    const c = await registerCustomer(h);
    const t2 = await uploadToken(c.token);
    expect((await get('/logout', c.token)).statusCode).toBe(200);
    expect((await upload(t2, 'a.png', PNG_1x1)).statusCode).toBe(401);
    await keptNothing(before);
  });

  it('refuses the token of a user disabled after getting it', async () => {
    const c = await registerCustomer(h);
    const token = await uploadToken(c.token);
    const user = await h.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', c.username)
      .executeTakeFirstOrThrow();
    // disabled directly, sessions left as they were: the user's state alone must refuse it
    await h.db.updateTable('users').set({ state: 'disabled' }).where('id', '=', user.id).execute();
    const before = await snapshot();
    const res = await upload(token, 'a.png', PNG_1x1);
    expect(res.statusCode).toBe(401);
    await keptNothing(before);
  });

  it('refuses a NUL in the file name with 400 naming the file name, and keeps no file', async () => {
    const c = await registerCustomer(h);
    const before = await snapshot();
    const res = await upload(await uploadToken(c.token), 'a\u0000b.png', PNG_1x1);
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields.map((f: { field: string }) => f.field)).toEqual(['filename']);
    await keptNothing(before);
  });

  it('refuses a form cut before the end of its file with 400 on file, keeping nothing', async () => {
    const c = await registerCustomer(h);
    const before = await snapshot();
    const body = multipart({ token: await uploadToken(c.token) }, { name: 'cut.jpg', bytes: jpegOf(3 * MB) });
    // a body that stops at half with no closing boundary: the request ends before the file does
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      payload: body.payload.subarray(0, 1.5 * MB),
      headers: body.headers,
    });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields).toEqual([
      { field: 'file', message: 'the file did not arrive whole', key: 'upload.incomplete' },
    ]);
    await keptNothing(before);
  });

  it('keeps no file, temporary or not, when the client goes away mid-upload', async () => {
    const c = await registerCustomer(h);
    const before = await snapshot();
    const body = multipart({ token: await uploadToken(c.token) }, { name: 'cut.jpg', bytes: jpegOf(3 * MB) });
    await abortAfter(body.payload, body.headers, 1.5 * MB);
    // the server notices the socket close on its own time
    for (let i = 0; i < 50 && filesOnDisk().length !== before.files.length; i++)
      await new Promise((r) => setTimeout(r, 50));
    await keptNothing(before);
  });
});

describe('signed object URLs', () => {
  it.each([
    '/apiAdmin/objects/%25ZZ?exp=1&sig=x',
    '/apiAdmin/objects/%ZZ?exp=1&sig=x',
    '/apiAdmin/objects/a/%E0%A4%A?exp=9999999999&sig=x',
  ])('%s answers a 4xx envelope', async (url) => {
    const res = await h.call({ method: 'GET', url });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(res.body_.code).toBe(res.statusCode);
  });

  it.each([
    '/apiAdmin/device/%ZZ',
    '/apiAdmin/device/%25ZZ',
    '/apiAdmin/device/%E0%A4%A/telemetry',
    '/apiAdmin/print/%C0%AF',
    '/apiAdmin/integration/job/%ZZ',
    '/apiAdmin/system/deviceRegistry/list?keyword=%ZZ',
    '/apiAdmin/system/deviceRegistry/list?keyword=%E0%A4%A&page=%',
    '/apiAdmin/%ZZ',
  ])('%s (a bad escape in a path or query) answers a 4xx envelope', async (url) => {
    const res = await h.call({ method: 'GET', url, token: staff });
    expect(res.statusCode).toBeGreaterThanOrEqual(200);
    expect(res.statusCode).not.toBeGreaterThanOrEqual(500);
    expect(res.body_.code).toBe(res.statusCode);
  });

  it('reads back an object whose name is not ASCII through its signed URL', async () => {
    const c = await registerCustomer(h);
    const res = await upload(await uploadToken(c.token), '发票 100%.png', PNG_1x1);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.key).toMatch(/\/发票_100_\.png$/);
    const read = await h.call({ method: 'GET', url: res.body_.data.url });
    expect(read.statusCode).toBe(200);
    expect(read.rawPayload.equals(PNG_1x1)).toBe(true);
  });

  it('answers 404 for a signed URL whose file is gone from disk', async () => {
    const c = await registerCustomer(h);
    const res = await upload(await uploadToken(c.token), 'gone.png', PNG_1x1);
    fs.rmSync(path.join(h.dataDir, 'objects', res.body_.data.key));
    const read = await h.call({ method: 'GET', url: res.body_.data.url });
    expect(read.statusCode).toBe(404);
    expect(read.body_.code).toBe(404);
  });
});

describe('device CSV import', () => {
  const importCsv = (bytes: Buffer | string) =>
    h.call({
      method: 'POST',
      url: '/apiAdmin/system/deviceRegistry/import',
      token: staff,
      ...multipart(
        {},
        { name: 'factory.csv', bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), type: 'text/csv' },
      ),
    });
  const newModel = async () => {
    const res = await post('/system/deviceModel/add', staff, {
      code: `U${Date.now().toString(36)}`,
      name: 'printer',
      kind: 'printer',
      paperWidthMm: 58,
      capabilities: ['print'],
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.body_.data.code as string;
  };

  it('refuses a CSV over 2 MB whole, importing none of its rows', async () => {
    const model = await newModel();
    const p = Date.now().toString(36).toUpperCase();
    const line = (i: number) => `BIG-${p}-${String(i).padStart(6, '0')},${model}${' '.repeat(200)}`;
    const lines = [
      'sn,model',
      ...Array.from({ length: Math.ceil(IMPORT_MAX_BYTES / line(0).length) + 10 }, (_, i) => line(i)),
    ];
    const before = await deviceCount();
    const res = await importCsv(lines.join('\n'));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body_.code).toBe(400);
    expect(res.body_.data.fields).toEqual([
      { field: 'file', message: 'file must not exceed 2 MB', key: 'upload.tooLargeMb', params: { n: 2 } },
    ]);
    expect(await deviceCount()).toBe(before);
  });

  it('refuses a CSV over 2 MB whose first 2 MB arrive in one piece, importing none of it', async () => {
    const model = await newModel();
    const p = Date.now().toString(36).toUpperCase();
    // lines as long as puts the 2 MB mark in a line's padding: the cut prefix is itself a valid file
    let width = 230;
    while (IMPORT_MAX_BYTES % (width + 1) < 60) width++;
    const line = (i: number) => `CUT-${p}-${String(i).padStart(6, '0')},${model}`.padEnd(width, ' ');
    const csv = Buffer.from(
      [
        'sn,model'.padEnd(width, ' '),
        ...Array.from({ length: Math.ceil(IMPORT_MAX_BYTES / width) + 20 }, (_, i) => line(i)),
      ].join('\n'),
    );
    const body = multipart({}, { name: 'factory.csv', bytes: csv, type: 'text/csv' });
    const before = await deviceCount();
    const res = await postInPieces(
      body.payload,
      { ...body.headers, authorization: `Bearer ${staff}` },
      [body.payload.indexOf(csv) + IMPORT_MAX_BYTES],
      '/apiAdmin/system/deviceRegistry/import',
    );
    expect(res.status).toBe(400);
    expect(res.body.data.fields).toEqual([
      { field: 'file', message: 'file must not exceed 2 MB', key: 'upload.tooLargeMb', params: { n: 2 } },
    ]);
    expect(await deviceCount()).toBe(before);
  });

  it('imports a file of exactly 2 MB', async () => {
    const model = await newModel();
    const p = Date.now().toString(36).toUpperCase();
    const head = `sn,model\nEXACT-${p},${model}`;
    const csv = head + ' '.repeat(IMPORT_MAX_BYTES - head.length);
    const res = await importCsv(csv);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.imported).toBe(1);
  });

  it('imports nothing from a file with one bad row among good ones, naming it', async () => {
    const model = await newModel();
    const p = Date.now().toString(36).toUpperCase();
    const csv = ['sn,model,imei', `GOOD-${p}-1,${model},`, `GOOD-${p}-2,${model},123`, `GOOD-${p}-3,${model},`].join(
      '\n',
    );
    const before = await deviceCount();
    const res = await importCsv(csv);
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.rows.map((r: { row: number; field: string }) => [r.row, r.field])).toEqual([[3, 'imei']]);
    expect(await deviceCount()).toBe(before);
  });
});
