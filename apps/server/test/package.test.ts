import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PACKAGE_MAX_BYTES } from '@cpc/contracts';
import { enqueueTasks } from '../src/modules/task/index.ts';
import { ChunkedUploads } from '../src/modules/package/index.ts';
import { TenantScope } from '../src/db/tenant-scope.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, subAccountWith, waitUntil, type Customer } from './device-helpers.ts';
import { makeApk, makeSigner, type ApkSpec, type Signer } from './fixtures/apk.ts';

/**
 * Packages (issue 15): the chunked, resumable upload bound to an upload token, the SHA-256 check, APKs read by a
 * real parser from real signed bytes, the catalogue, and every refusal.
 */
let h: Harness;
let A: Customer;
let B: Customer;
let alpha: Signer;
let beta: Signer;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const app = (v: Partial<ApkSpec> = {}): ApkSpec => ({
  packageName: 'com.example.printhelper',
  versionCode: 10,
  versionName: '1.0.0',
  label: 'Print Helper',
  minSdk: 26,
  targetSdk: 34,
  permissions: ['android.permission.INTERNET', 'android.permission.BLUETOOTH_CONNECT'],
  ...v,
});

beforeAll(async () => {
  h = await createHarness();
  [A, B] = [await customer(h), await customer(h)];
  alpha = makeSigner('Alpha Signer');
  beta = makeSigner('Beta Signer');
});
afterAll(() => h.close());
// a tenant keeps at most 8 unfinished uploads (archive-bombs.test.ts): what a test leaves unfinished goes
afterEach(() => fs.rmSync(path.join(h.app.storage.directory, '.uploads'), { recursive: true, force: true }));

async function uploadToken(c: Customer, bucket = 'package'): Promise<string> {
  const res = await h.call({
    method: 'GET',
    url: `/apiAdmin/user/v1/user/getQnToken?bucket=${bucket}`,
    token: c.token,
  });
  expect(res.body_.data.uploadUrl).toBe(bucket === 'package' ? '/apiAdmin/upload/chunks' : '/apiAdmin/upload');
  return res.body_.data.token;
}

const start = (token: string | null, name: string, size: number) =>
  h.call({
    method: 'POST',
    url: '/apiAdmin/upload/chunks',
    headers: token ? { 'x-upload-token': token } : {},
    payload: { name, size },
  });
const put = (token: string | null, id: string, bytes: Buffer, from: number, total: number) =>
  h.call({
    method: 'PUT',
    url: `/apiAdmin/upload/chunks/${id}`,
    headers: {
      ...(token ? { 'x-upload-token': token } : {}),
      'content-type': 'application/offset+octet-stream',
      'content-range': `bytes ${from}-${from + bytes.length - 1}/${total}`,
    },
    payload: bytes,
  });
const offsetOf = (token: string, id: string) =>
  h.call({ method: 'GET', url: `/apiAdmin/upload/chunks/${id}`, headers: { 'x-upload-token': token } });

/** Uploads the bytes in chunks of `chunk`; answers the upload id. */
async function upload(c: Customer, bytes: Buffer, name = 'app.apk', chunk = 64 * 1024): Promise<string> {
  const token = await uploadToken(c);
  const s = await start(token, name, bytes.length);
  expect(s.statusCode).toBe(200);
  const id = s.body_.data.uploadId as string;
  for (let at = 0; at < bytes.length; at += chunk) {
    const r = await put(token, id, bytes.subarray(at, at + chunk), at, bytes.length);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.body_.data.offset).toBe(Math.min(at + chunk, bytes.length));
  }
  return id;
}

const create = (c: Customer, body: Record<string, unknown>) =>
  h.call({ method: 'POST', url: '/apiAdmin/package/create', token: c.token, payload: body });

async function createApp(c: Customer, bytes: Buffer, name = 'app.apk') {
  const uploadId = await upload(c, bytes, name);
  return create(c, { kind: 'app', uploadId, sha256: sha(bytes) });
}

describe('chunked upload', () => {
  it('refuses every request without a valid package upload token (401)', async () => {
    const none = await start(null, 'a.bin', 10);
    expect(none.statusCode).toBe(401);
    expect(none.body_.code).toBe(401);
    const forged = await start('abc.def', 'a.bin', 10);
    expect(forged.statusCode).toBe(401);
    // a token of another bucket is not a package token
    const image = await start(await uploadToken(A, 'permanentfile'), 'a.bin', 10);
    expect(image.statusCode).toBe(401);
    const token = await uploadToken(A);
    const id = (await start(token, 'a.bin', 10)).body_.data.uploadId;
    expect((await put(null, id, Buffer.alloc(10), 0, 10)).statusCode).toBe(401);
    expect((await h.call({ method: 'GET', url: `/apiAdmin/upload/chunks/${id}` })).statusCode).toBe(401);
    // and a package token is no good for the small-file upload
    const multi = await h.call({ method: 'POST', url: `/apiAdmin/upload?token=${token}` });
    expect(multi.statusCode).not.toBe(200);
  });

  it('refuses a package over 2 GiB, naming the size', async () => {
    const token = await uploadToken(A);
    const res = await start(token, 'huge.bin', PACKAGE_MAX_BYTES + 1);
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields[0].field).toBe('size');
    expect(res.body_.msg).toContain('2 GB');
    expect((await start(token, 'max.bin', PACKAGE_MAX_BYTES)).statusCode).toBe(200);
  });

  it('resumes: part of the file, a stop, the offset asked, a wrong offset refused, the rest', async () => {
    const bytes = randomBytes(300_000);
    const token = await uploadToken(A);
    const id = (await start(token, 'fw.bin', bytes.length)).body_.data.uploadId as string;
    expect((await put(token, id, bytes.subarray(0, 100_000), 0, bytes.length)).body_.data.offset).toBe(100_000);
    // the client stops (a network cut, a reload): it asks where the upload stands
    const state = await offsetOf(token, id);
    expect(state.statusCode).toBe(200);
    expect(state.headers['upload-offset']).toBe('100000');
    expect(state.body_.data).toMatchObject({ offset: 100_000, size: bytes.length, name: 'fw.bin' });
    const head = await h.call({
      method: 'HEAD',
      url: `/apiAdmin/upload/chunks/${id}`,
      headers: { 'x-upload-token': token },
    });
    expect(head.headers['upload-offset']).toBe('100000');
    // a chunk that does not start at the offset is refused, saying where it is
    const wrong = await put(token, id, bytes.subarray(150_000, 200_000), 150_000, bytes.length);
    expect(wrong.statusCode).toBe(409);
    expect(wrong.body_.data.offset).toBe(100_000);
    // a range past the declared size is refused
    const past = await put(token, id, bytes.subarray(100_000), 100_000, bytes.length + 5);
    expect(past.statusCode).toBe(400);
    expect(past.body_.data.fields[0].field).toBe('content-range');
    // unfinished: it is not a package yet
    const early = await create(A, {
      kind: 'firmware',
      uploadId: id,
      sha256: sha(bytes),
      name: 'CP58',
      versionName: '1.0',
    });
    expect(early.statusCode).toBe(409);
    expect(early.body_.msg).toContain('100000');
    expect((await put(token, id, bytes.subarray(100_000), 100_000, bytes.length)).body_.data.offset).toBe(300_000);
    const done = await create(A, {
      kind: 'firmware',
      uploadId: id,
      sha256: sha(bytes).toUpperCase(),
      name: 'CP58',
      versionName: '2.1.0',
      notes: 'Fixes the cutter',
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.body_.data).toMatchObject({ kind: 'firmware', identifier: 'CP58', size: 300_000, sha256: sha(bytes) });
    // the bytes are the object's, whole; the upload is gone
    const obj = await h.db
      .selectFrom('packages')
      .select('object_key')
      .where('id', '=', done.body_.data.id)
      .executeTakeFirstOrThrow();
    expect(sha(fs.readFileSync(h.app.storage.pathOf(obj.object_key)))).toBe(sha(bytes));
    expect((await offsetOf(token, id)).statusCode).toBe(404);
  });

  it('keeps the bytes of a chunk cut off mid-way: the client asks the offset and sends the rest', async () => {
    const bytes = randomBytes(100_000);
    const token = await uploadToken(A);
    const id = (await start(token, 'cut.bin', bytes.length)).body_.data.uploadId as string;
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    // a real connection that dies after 40 000 of the chunk's 100 000 bytes
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `PUT /apiAdmin/upload/chunks/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-upload-token: ${token}\r\n` +
        `content-type: application/offset+octet-stream\r\ncontent-range: bytes 0-99999/100000\r\n` +
        `content-length: 100000\r\n\r\n`,
    );
    socket.write(bytes.subarray(0, 40_000));
    await waitUntil('the first bytes on disk', () =>
      fs.statSync(path.join(h.app.storage.directory, '.uploads', `${id}.part`)).size === 40_000 ? true : null,
    );
    socket.destroy();
    const state = await waitUntil('the cut chunk to end', async () => {
      const r = await offsetOf(token, id);
      // the lock is gone once the server has seen the cut
      return fs.existsSync(path.join(h.app.storage.directory, '.uploads', `${id}.lock`)) ? null : r;
    });
    expect(state.body_.data.offset).toBe(40_000);
    expect((await put(token, id, bytes.subarray(40_000), 40_000, bytes.length)).body_.data.offset).toBe(100_000);
    const done = await create(A, {
      kind: 'firmware',
      uploadId: id,
      sha256: sha(bytes),
      name: 'CP58',
      versionName: '2.2.0',
    });
    expect(done.statusCode, done.body).toBe(200);
  });

  it('takes chunks far over the 1 MB body limit of JSON calls, and refuses one over 16 MB', async () => {
    const bytes = randomBytes(6 * 1024 * 1024);
    const token = await uploadToken(A);
    const id = (await start(token, 'big.bin', 40 * 1024 * 1024)).body_.data.uploadId as string;
    const r = await put(token, id, bytes, 0, 40 * 1024 * 1024);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.body_.data.offset).toBe(bytes.length);
    const huge = await put(token, id, Buffer.alloc(17 * 1024 * 1024), bytes.length, 40 * 1024 * 1024);
    expect(huge.statusCode).toBe(400);
    expect(huge.body_.msg).toContain('16 MB');
    expect((await offsetOf(token, id)).body_.data.offset).toBe(bytes.length);
  });

  it('keeps another tenant out of an upload (404) and expires old ones (410, then swept)', async () => {
    const tokenA = await uploadToken(A);
    const tokenB = await uploadToken(B);
    const id = (await start(tokenA, 'x.bin', 20)).body_.data.uploadId as string;
    expect((await offsetOf(tokenB, id)).statusCode).toBe(404);
    expect((await put(tokenB, id, Buffer.alloc(20), 0, 20)).statusCode).toBe(404);
    expect((await offsetOf(tokenA, id)).statusCode).toBe(200);
    const metaFile = path.join(h.app.storage.directory, '.uploads', `${id}.json`);
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
    fs.writeFileSync(metaFile, JSON.stringify({ ...meta, createdAt: Date.now() - 25 * 3600_000 }));
    const expired = await put(tokenA, id, Buffer.alloc(20), 0, 20);
    expect(expired.statusCode).toBe(410);
    expect(expired.body_.msg).toMatch(/expired/);
    expect(fs.existsSync(metaFile)).toBe(false);
    // the periodic sweep removes what nobody asks for again
    const old = (await start(tokenA, 'old.bin', 20)).body_.data.uploadId as string;
    const fresh = (await start(tokenA, 'fresh.bin', 20)).body_.data.uploadId as string;
    const oldMeta = path.join(h.app.storage.directory, '.uploads', `${old}.json`);
    fs.writeFileSync(oldMeta, JSON.stringify({ ...meta, createdAt: Date.now() - 25 * 3600_000 }));
    expect(await new ChunkedUploads(h.app.storage).sweep()).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(oldMeta)).toBe(false);
    expect(fs.existsSync(path.join(h.app.storage.directory, '.uploads', `${old}.part`))).toBe(false);
    expect((await offsetOf(tokenA, fresh)).statusCode).toBe(200);
  });
});

describe('packages', () => {
  it('refuses a SHA-256 that is not the bytes', async () => {
    const bytes = makeApk(app(), alpha);
    const uploadId = await upload(A, bytes);
    const res = await create(A, { kind: 'app', uploadId, sha256: sha(Buffer.from('other')) });
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields[0].field).toBe('sha256');
    expect(res.body_.msg).toContain(sha(bytes));
  });

  it('refuses a file that is not an APK, naming it', async () => {
    const res = await createApp(A, randomBytes(5000), 'holiday.jpg.apk');
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields[0].field).toBe('file');
    expect(res.body_.msg).toContain('holiday.jpg.apk');
  });

  let first: number;
  it('reads an APK: package name, versions, SDKs, permissions, label, icon, certificate', async () => {
    const res = await createApp(A, makeApk(app(), alpha));
    expect(res.statusCode, res.body).toBe(200);
    const p = res.body_.data;
    first = p.id;
    expect(p).toMatchObject({
      kind: 'app',
      name: 'Print Helper',
      identifier: 'com.example.printhelper',
      versionName: '1.0.0',
      versionCode: 10,
    });
    expect(p.meta).toMatchObject({
      minSdk: 26,
      targetSdk: 34,
      permissions: ['android.permission.INTERNET', 'android.permission.BLUETOOTH_CONNECT'],
      certSha256: alpha.fingerprint,
      certSubject: 'CN=Alpha Signer, O=Cloud Print Test',
      downgrade: false,
    });
    const icon = await h.call({ method: 'GET', url: p.iconUrl });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/png');
    const detail = await h.call({ method: 'GET', url: `/apiAdmin/package/${p.id}`, token: A.token });
    expect(detail.body_.data.openTasks).toBe(0);
    const download = await h.call({ method: 'GET', url: detail.body_.data.downloadUrl });
    expect(sha(download.rawPayload)).toBe(p.sha256);
    const log = await h.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('resource_id', '=', String(p.id))
      .where('action', '=', 'package.create')
      .executeTakeFirst();
    expect(JSON.stringify(log?.details)).toContain(p.sha256);
  });

  it('refuses another certificate (409 naming both) and the same version again (409)', async () => {
    const other = await createApp(A, makeApk(app({ versionCode: 11, versionName: '1.1.0' }), beta));
    expect(other.statusCode).toBe(409);
    expect(other.body_.msg).toContain(alpha.fingerprint.slice(0, 16));
    expect(other.body_.msg).toContain(beta.fingerprint.slice(0, 16));
    const again = await createApp(A, makeApk(app({ versionCode: 12 }), alpha));
    expect(again.statusCode).toBe(409);
    expect(again.body_.msg).toContain('1.0.0');
    // another tenant may upload the same package name with its own certificate
    expect((await createApp(B, makeApk(app(), beta))).statusCode).toBe(200);
  });

  it('takes a newer version, and a lower version code flagged as a downgrade', async () => {
    expect((await createApp(A, makeApk(app({ versionCode: 20, versionName: '2.0.0' }), alpha))).statusCode).toBe(200);
    const lower = await createApp(A, makeApk(app({ versionCode: 15, versionName: '1.5.0' }), alpha));
    expect(lower.statusCode).toBe(200);
    expect(lower.body_.data.meta.downgrade).toBe(true);
    const apps = await h.call({ method: 'GET', url: '/apiAdmin/package/apps', token: A.token });
    const group = apps.body_.data.list.find((g: { identifier: string }) => g.identifier === 'com.example.printhelper');
    expect(group).toMatchObject({ versions: 3, latest: { versionName: '2.0.0' } });
    const list = await h.call({
      method: 'GET',
      url: '/apiAdmin/package/list?kind=app&identifier=com.example.printhelper&pageSize=2',
      token: A.token,
    });
    expect(list.body_.data.total).toBe(3);
    expect(list.body_.data.list.map((p: { versionName: string }) => p.versionName)).toEqual(['1.5.0', '2.0.0']);
  });

  it('asks the permission of the kind: application:edit for an app, upgrade:edit for firmware', async () => {
    const appsOnly = await subAccountWith(h, A.tenantId, ['application:view', 'application:edit']);
    const asSub = { ...A, token: appsOnly };
    const bytes = randomBytes(500);
    const uploadId = await upload(asSub, bytes, 'fw.bin');
    const fw = await create(asSub, {
      kind: 'firmware',
      uploadId,
      sha256: sha(bytes),
      name: 'CP58',
      versionName: '9.0',
    });
    expect(fw.statusCode).toBe(403);
    // it sees apps, not firmware
    const list = await h.call({ method: 'GET', url: '/apiAdmin/package/list', token: appsOnly });
    expect(list.body_.data.list.length).toBeGreaterThan(0);
    expect(list.body_.data.list.every((p: { kind: string }) => p.kind === 'app')).toBe(true);
    // a viewer cannot even stage the bytes: no package upload token (archive-bombs.test.ts)
    const viewer = await subAccountWith(h, A.tenantId, ['application:view']);
    const token = await h.call({
      method: 'GET',
      url: '/apiAdmin/user/v1/user/getQnToken?bucket=package',
      token: viewer,
    });
    expect(token.statusCode).toBe(403);
    // nor make a package of an upload someone else staged
    const staged = await upload(A, makeApk(app({ versionName: '7.0.0' }), alpha));
    expect(
      (await create({ ...A, token: viewer }, { kind: 'app', uploadId: staged, sha256: sha(randomBytes(1)) }))
        .statusCode,
    ).toBe(403);
  });

  it("never shows a tenant another's packages (404)", async () => {
    expect((await h.call({ method: 'GET', url: `/apiAdmin/package/${first}`, token: B.token })).statusCode).toBe(404);
    expect(
      (await h.call({ method: 'POST', url: `/apiAdmin/package/${first}/delete`, token: B.token })).statusCode,
    ).toBe(404);
    const list = await h.call({ method: 'GET', url: '/apiAdmin/package/list?kind=app', token: B.token });
    expect(
      list.body_.data.list.every((p: { meta: { certSha256: string } }) => p.meta.certSha256 === beta.fingerprint),
    ).toBe(true);
  });

  it('refuses to delete a package an open task uses (409), then deletes it (soft)', async () => {
    const specs = makeSpecs(1, { seed: 15, prefix: 'PKG' });
    const deviceId = (await devicesOf(h, A.tenantId, specs)).get(specs[0]!.sn)!;
    const [task] = await enqueueTasks(new TenantScope(h.db, A.tenantId), [
      {
        deviceId,
        type: 'install_app',
        params: { packageId: first },
        expireAt: new Date(Date.now() + 3600_000),
        createdBy: null,
      },
    ]);
    const busy = await h.call({ method: 'POST', url: `/apiAdmin/package/${first}/delete`, token: A.token });
    expect(busy.statusCode).toBe(409);
    expect(busy.body_.data.openTasks).toBe(1);
    await h.db.updateTable('device_tasks').set({ state: 'succeeded' }).where('id', '=', task!.id).execute();
    const del = await h.call({ method: 'POST', url: `/apiAdmin/package/${first}/delete`, token: A.token });
    expect(del.statusCode).toBe(200);
    expect((await h.call({ method: 'GET', url: `/apiAdmin/package/${first}`, token: A.token })).statusCode).toBe(404);
    const row = await h.db
      .selectFrom('packages')
      .select('deleted_at')
      .where('id', '=', first)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).not.toBeNull();
    // its version may be uploaded again, still only with the same certificate
    expect((await createApp(A, makeApk(app(), beta))).statusCode).toBe(409);
    expect((await createApp(A, makeApk(app(), alpha))).statusCode).toBe(200);
  });

  it('checks the device models of firmware and keeps a model package’s description', async () => {
    const bytes = randomBytes(1000);
    const bad = await create(A, {
      kind: 'firmware',
      uploadId: await upload(A, bytes, 'fw.bin'),
      sha256: sha(bytes),
      name: 'CP58',
      versionName: '3.0',
      models: ['NO-SUCH-MODEL'],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body_.data.fields[0].field).toBe('models');
    const model = await create(A, {
      kind: 'model',
      uploadId: await upload(A, bytes, 'ocr.onnx'),
      sha256: sha(bytes),
      name: 'receipt-ocr',
      versionName: '1.0',
      framework: 'onnx',
      inputs: '1x3x640x640 image',
      outputs: 'text boxes',
    });
    expect(model.statusCode, model.body).toBe(200);
    expect(model.body_.data.meta).toEqual({ framework: 'onnx', inputs: '1x3x640x640 image', outputs: 'text boxes' });
  });
});

describe('live events', () => {
  it('tells the tenant’s consoles of a new and of a deleted package, and no other tenant', async () => {
    const a = h.app.server.address();
    const base =
      a && typeof a === 'object' ? `http://127.0.0.1:${a.port}` : await h.app.listen({ port: 0, host: '127.0.0.1' });
    const streamA = await openEvents(h, base, A.token);
    const streamB = await openEvents(h, base, B.token);
    const bytes = randomBytes(800);
    const made = await create(A, {
      kind: 'firmware',
      uploadId: await upload(A, bytes, 'fw.bin'),
      sha256: sha(bytes),
      name: 'CP60',
      versionName: '1.0',
    });
    const id = made.body_.data.id as number;
    await streamA.waitFor(
      'the new package',
      (e) => e.type === 'package' && e.data.id === id && e.data.kind === 'firmware',
    );
    expect((await h.call({ method: 'POST', url: `/apiAdmin/package/${id}/delete`, token: A.token })).statusCode).toBe(
      200,
    );
    await waitUntil(
      'the deletion too',
      () => streamA.events.filter((e) => e.type === 'package' && e.data.id === id).length === 2,
    );
    expect(streamB.events.some((e) => e.type === 'package')).toBe(false);
    streamA.close();
    streamB.close();
  });
});
