import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import S3rver from 's3rver';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { continueDownload, startDownload } from '../../device-sim/src/download.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/database.ts';
import { TenantScope } from '../src/db/tenant-scope.ts';
import { LocalDriver, parseS3Url, storageDriver } from '../src/lib/storage/index.ts';
import { S3Driver } from '../src/lib/storage/s3.ts';
import { migrateObjects } from '../src/lib/storage/migrate.ts';
import { ChunkedUploads, deviceDownloadUrl } from '../src/modules/package/index.ts';
import { deviceUploadUrl } from '../src/modules/file-acquisition/index.ts';
import { enqueueTasks } from '../src/modules/task/index.ts';
import { PNG_1x1, caller, createHarness, multipart, type Harness } from './harness.ts';
import { customer, devicesOf, storedPackage, type Customer } from './device-helpers.ts';
import { makeApk, makeSigner } from './fixtures/apk.ts';

/**
 * Objects in S3 (issue 17), against a real S3-compatible server (s3rver) started here: uploads land in the bucket
 * and not on the node's disk, signed links redirect to presigned ones, a device downloads (and resumes) from the
 * bucket, a refused file never reaches it, another node with its own disk reads the same objects, and the
 * migration command copies a local folder idempotently.
 */
const BUCKET = 'cpc-test';
let s3: S3rver;
let s3Dir: string;
let endpoint: string;
let storageUrl: string;
let client: S3Client;
let h: Harness;
let A: Customer;

beforeAll(async () => {
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-s3rver-'));
  s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory: s3Dir,
    silent: true,
    configureBuckets: [
      { name: BUCKET, configs: [] },
      { name: 'cpc-migrate', configs: [] },
    ],
  });
  const addr = (await s3.run()) as AddressInfo;
  endpoint = `http://127.0.0.1:${addr.port}`;
  storageUrl = `s3://S3RVER:S3RVER@${BUCKET}?endpoint=${endpoint}&region=us-east-1&forcePathStyle=true`;
  client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  h = await createHarness({ STORAGE_URL: storageUrl });
  A = await customer(h);
}, 60_000);
afterAll(async () => {
  await h?.close();
  client?.destroy();
  await s3?.close();
  fs.rmSync(s3Dir, { recursive: true, force: true });
});

const keysInBucket = async (bucket = BUCKET) =>
  ((await client.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key!);
const inBucket = (key: string) =>
  client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
    (r) => Number(r.ContentLength),
    () => null,
  );
/** Every object file under the node's DATA_DIR/objects (its staging areas left out). */
const filesOnDisk = (dataDir: string) => {
  const root = path.join(dataDir, 'objects');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter(
    (p) => !p.startsWith('.') && fs.statSync(path.join(root, p)).isFile(),
  );
};
const upload = async (name: string, bytes: Buffer, bucket = 'permanentfile') => {
  const token = (
    await h.call({ method: 'GET', url: `/apiAdmin/user/v1/user/getQnToken?bucket=${bucket}`, token: A.token })
  ).body_.data.token as string;
  return h.call({ method: 'POST', url: '/apiAdmin/upload', ...multipart({ token }, { name, bytes }) });
};

describe('STORAGE_URL', () => {
  it('parses an s3 URL; a bad one is refused at start without showing its secret', () => {
    const loc = parseS3Url('s3://AK:se%2Fcret@bucket-1/some/prefix?endpoint=http://minio:9000&region=eu-west-1');
    expect(loc).toMatchObject({
      bucket: 'bucket-1',
      prefix: 'some/prefix/',
      region: 'eu-west-1',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AK', secretAccessKey: 'se/cret' },
    });
    expect(parseS3Url('s3://b-2').credentials).toBeUndefined();
    for (const bad of ['s3://AK:topsecret@B?endpoint=x', 's3://AK:topsecret@bucket?nope=1', 'http://x']) {
      let msg = '';
      try {
        loadConfig({ STORAGE_URL: bad });
      } catch (e) {
        msg = (e as Error).message;
      }
      expect(msg).toMatch(/STORAGE_URL/);
      expect(msg).not.toMatch(/topsecret/);
    }
  });
  it('is the local folder when unset or file://', async () => {
    const unset = await storageDriver(undefined, '/srv/cpc/objects');
    expect(unset).toBeInstanceOf(LocalDriver);
    expect((unset as LocalDriver).root).toBe('/srv/cpc/objects');
    expect(((await storageDriver('file:///mnt/shared/objects', '/srv/cpc/objects')) as LocalDriver).root).toBe(
      '/mnt/shared/objects',
    );
    expect((await storageDriver(storageUrl, '/srv/cpc/objects')).kind).toBe('s3');
  });

  it('checks the bucket at start: a missing one is named, without the secret', async () => {
    const ok = new S3Driver(parseS3Url(storageUrl));
    await expect(ok.check()).resolves.toBeUndefined();
    const missing = new S3Driver(parseS3Url(`s3://S3RVER:S3RVER@no-such-bucket?endpoint=${endpoint}`));
    await expect(missing.check()).rejects.toThrow(/no-such-bucket .* cannot be reached: .*HTTP 404/);
    ok.destroy();
    missing.destroy();
  });
});

describe('objects in S3', () => {
  it('stores an upload in the bucket, not on the node, and its signed link redirects to a presigned one', async () => {
    const res = await upload('logo.png', PNG_1x1);
    expect(res.statusCode).toBe(200);
    const { key, url } = res.body_.data as { key: string; url: string };
    expect(await inBucket(key)).toBe(PNG_1x1.length);
    expect(filesOnDisk(h.dataDir)).toEqual([]);

    const signed = await h.call({ method: 'GET', url });
    expect(signed.statusCode).toBe(302);
    const location = String(signed.headers.location);
    expect(location.startsWith(`${endpoint}/${BUCKET}/`)).toBe(true);
    expect(Number(new URL(location).searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(3600 + 600);
    const got = await fetch(location);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await got.arrayBuffer()).equals(PNG_1x1)).toBe(true);

    // the node's own link still expires and still refuses a tampered signature (no redirect then)
    const expired = h.app.storage.signedUrl(key, -10);
    expect((await h.call({ method: 'GET', url: expired })).statusCode).toBe(403);
    expect(
      (await h.call({ method: 'GET', url: url.replace(/sig=(.)/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`) }))
        .statusCode,
    ).toBe(403);
    // the console may load images from the bucket's origin
    const csp = String(signed.headers['content-security-policy'] ?? '');
    expect(csp).toMatch(new RegExp(`img-src[^;]*${endpoint.replace(/[.:/]/g, '\\$&')}`));
  });

  it('refuses a file whose bytes are not what it claims, and leaves nothing in the bucket', async () => {
    const before = await keysInBucket();
    const fake = await upload('photo.png', Buffer.from('#!/bin/sh\necho not a png\n'));
    expect(fake.statusCode).toBe(400);
    expect(fake.body_.msg).toBeTruthy();
    expect(await keysInBucket()).toEqual(before);
    expect(filesOnDisk(h.dataDir)).toEqual([]);
  });

  it("serves a device's package from the bucket by a presigned link, with Range (resume)", async () => {
    const bytes = randomBytes(300_000);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const specs = makeSpecs(1, { seed: 91, prefix: 'S3D' });
    const deviceId = (await devicesOf(h, A.tenantId, specs)).get(specs[0].sn)!;
    const pkg = await storedPackage(h, A.tenantId, {
      kind: 'firmware',
      name: 'fw',
      identifier: 'CP58',
      versionName: '3.0.0',
      bytes,
      fileName: 'fw.bin',
    });
    expect(filesOnDisk(h.dataDir)).toEqual([]);
    const expireAt = new Date(Date.now() + 3600_000);
    const [row] = await enqueueTasks(new TenantScope(h.db, A.tenantId), [
      { deviceId, type: 'upgrade', params: { packageId: pkg.id }, expireAt, createdBy: null },
    ]);
    await h.db.updateTable('device_tasks').set({ state: 'sent' }).where('id', '=', row.id).execute();
    const url = deviceDownloadUrl(h.app.storage, row.id, expireAt);

    const first = await h.call({ method: 'GET', url });
    expect(first.statusCode).toBe(302);
    expect(first.headers['x-content-sha256']).toBe(sha256);
    const location = String(first.headers.location);
    const rest = await fetch(location, { headers: { range: 'bytes=100000-' } });
    expect(rest.status).toBe(206);
    expect(Buffer.from(await rest.arrayBuffer()).equals(bytes.subarray(100_000))).toBe(true);

    // the simulated device follows the redirect through a listening node, and gets the package whole
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    expect(await continueDownload(startDownload(base + url), base + url, { bytesPerSecond: 0 })).toBe(sha256);

    // a finished task's link is dead before it reaches the bucket
    await h.db.updateTable('device_tasks').set({ state: 'succeeded' }).where('id', '=', row.id).execute();
    expect((await h.call({ method: 'GET', url })).statusCode).toBe(404);
  });

  it('takes a chunked APK into the bucket after reading it on the node, and refuses a fake one', async () => {
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const uploadApk = async (bytes: Buffer, name: string) => {
      const token = (
        await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken?bucket=package', token: A.token })
      ).body_.data.token as string;
      const s = await h.call({
        method: 'POST',
        url: '/apiAdmin/upload/chunks',
        headers: { 'x-upload-token': token },
        payload: { name, size: bytes.length },
      });
      const id = s.body_.data.uploadId as string;
      for (let at = 0; at < bytes.length; at += 64 * 1024) {
        const chunk = bytes.subarray(at, at + 64 * 1024);
        const r = await h.call({
          method: 'PUT',
          url: `/apiAdmin/upload/chunks/${id}`,
          headers: {
            'x-upload-token': token,
            'content-type': 'application/offset+octet-stream',
            'content-range': `bytes ${at}-${at + chunk.length - 1}/${bytes.length}`,
          },
          payload: chunk,
        });
        expect(r.statusCode, r.body).toBe(200);
      }
      return h.call({
        method: 'POST',
        url: '/apiAdmin/package/create',
        token: A.token,
        payload: { kind: 'app', uploadId: id, sha256: sha(bytes) },
      });
    };
    const before = await keysInBucket();
    const fake = await uploadApk(randomBytes(5000), 'fake.apk');
    expect(fake.statusCode).toBe(400);
    expect(fake.body_.data.fields[0].field).toBe('file');
    // no object: only the unfinished upload's own state (its chunks, swept with the upload after its time)
    expect((await keysInBucket()).filter((k) => !k.startsWith('.uploads/'))).toEqual(before);

    const apk = makeApk(
      {
        packageName: 'com.example.s3',
        versionCode: 1,
        versionName: '1.0.0',
        label: 'S3 Helper',
        minSdk: 26,
        targetSdk: 34,
        permissions: [],
      },
      makeSigner('S3 Signer'),
    );
    const res = await uploadApk(apk, 'helper.apk');
    expect(res.statusCode, res.body).toBe(200);
    const p = res.body_.data;
    const row = await h.db.selectFrom('packages').select('object_key').where('id', '=', p.id).executeTakeFirstOrThrow();
    expect(await inBucket(row.object_key)).toBe(apk.length);
    expect(filesOnDisk(h.dataDir)).toEqual([]);
    // the icon the node read from the APK went to the bucket too, and its link redirects there
    const icon = await h.call({ method: 'GET', url: p.iconUrl });
    expect(icon.statusCode).toBe(302);
    expect((await fetch(String(icon.headers.location))).headers.get('content-type')).toBe('image/png');
    const detail = await h.call({ method: 'GET', url: `/apiAdmin/package/${p.id}`, token: A.token });
    const download = await h.call({ method: 'GET', url: detail.body_.data.downloadUrl });
    expect(download.statusCode).toBe(302);
    const got = await fetch(String(download.headers.location));
    expect(got.headers.get('content-disposition')).toBe('attachment');
    expect(sha(Buffer.from(await got.arrayBuffer()))).toBe(p.sha256);
    // the refused upload's chunks went with the refusal (it would hold one of the tenant's places): nothing is left
    // for the sweep
    expect((await keysInBucket()).filter((k) => k.startsWith('.uploads/'))).toEqual([]);
    expect(await new ChunkedUploads(h.app.storage).sweep(Date.now() + 2 * 86_400_000)).toBe(0);
  });

  it('resumes a chunked upload on another node, which finishes the package', async () => {
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-node2-'));
    const db = createDb(h.config.DATABASE_URL!, 3);
    const node2 = await buildApp({ ...h.config, dataDir: otherDir }, db);
    try {
      await node2.ready();
      const call2 = caller(node2);
      const bytes = randomBytes(200_000);
      const token = (
        await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken?bucket=package', token: A.token })
      ).body_.data.token as string;
      const started = await h.call({
        method: 'POST',
        url: '/apiAdmin/upload/chunks',
        headers: { 'x-upload-token': token },
        payload: { name: 'fw.bin', size: bytes.length },
      });
      const id = started.body_.data.uploadId as string;
      const put = (call: typeof h.call, from: number, to: number) =>
        call({
          method: 'PUT',
          url: `/apiAdmin/upload/chunks/${id}`,
          headers: {
            'x-upload-token': token,
            'content-type': 'application/offset+octet-stream',
            'content-range': `bytes ${from}-${to - 1}/${bytes.length}`,
          },
          payload: bytes.subarray(from, to),
        });
      expect((await put(h.call, 0, 120_000)).body_.data.offset).toBe(120_000);
      // node 2 knows where the upload stands, refuses a wrong offset, and takes the rest
      const state = await call2({
        method: 'GET',
        url: `/apiAdmin/upload/chunks/${id}`,
        headers: { 'x-upload-token': token },
      });
      expect(state.body_.data.offset).toBe(120_000);
      expect((await put(call2, 100_000, 200_000)).statusCode).toBe(409);
      expect((await put(call2, 120_000, 200_000)).body_.data.offset).toBe(200_000);
      const models = await h.db.selectFrom('device_models').select('code').limit(1).execute();
      const created = await call2({
        method: 'POST',
        url: '/apiAdmin/package/create',
        token: A.token,
        payload: {
          kind: 'firmware',
          uploadId: id,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          name: 'CP80',
          versionName: '9.9.9',
          models: models.map((m) => m.code),
        },
      });
      expect(created.statusCode, created.body).toBe(200);
      const row = await h.db
        .selectFrom('packages')
        .select('object_key')
        .where('id', '=', created.body_.data.id)
        .executeTakeFirstOrThrow();
      expect(await inBucket(row.object_key)).toBe(bytes.length);
      // the chunks are gone from the bucket, and from both disks
      expect((await keysInBucket()).filter((k) => k.startsWith(`.uploads/${id}`))).toEqual([]);
      expect(filesOnDisk(otherDir)).toEqual([]);
      expect(fs.readdirSync(path.join(otherDir, 'objects', '.uploads'))).toEqual([]);
    } finally {
      await node2.close();
      await db.destroy();
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it("takes a device's file in chunks across two nodes into the bucket; the console downloads it from there", async () => {
    const specs = makeSpecs(1, { seed: 92, prefix: 'S3F' });
    const deviceId = (await devicesOf(h, A.tenantId, specs)).get(specs[0].sn)!;
    const asked = await h.call({
      method: 'POST',
      url: '/apiAdmin/fileAcquisition/request',
      token: A.token,
      payload: { deviceIds: [deviceId], preset: 'print_log' },
    });
    expect(asked.statusCode, asked.body).toBe(200);
    const item = asked.body_.data[0];
    const url = deviceUploadUrl(h.app.storage, item.id, new Date(item.expireAt));
    const bytes = Buffer.from('line one\nline two\n'.repeat(20));
    const put = (call: typeof h.call, from: number, to: number) =>
      call({
        method: 'PUT',
        url: `${url}&name=print.log`,
        headers: {
          'content-type': 'application/octet-stream',
          'content-range': `bytes ${from}-${to - 1}/${bytes.length}`,
        },
        payload: bytes.subarray(from, to),
      });
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-node2-'));
    const db = createDb(h.config.DATABASE_URL!, 3);
    const node2 = await buildApp({ ...h.config, dataDir: otherDir }, db);
    try {
      await node2.ready();
      expect((await put(h.call, 0, 100)).body_.data).toEqual({ offset: 100, total: bytes.length, complete: false });
      expect((await caller(node2)({ method: 'HEAD', url })).headers['upload-offset']).toBe('100');
      expect((await put(caller(node2), 0, 100)).statusCode).toBe(409);
      const last = await put(caller(node2), 100, bytes.length);
      expect(last.body_.data).toEqual({ offset: bytes.length, total: bytes.length, complete: true });
    } finally {
      await node2.close();
      await db.destroy();
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
    expect((await keysInBucket()).filter((k) => k.startsWith('.acquiring/'))).toEqual([]);
    const dl = await h.call({ method: 'GET', url: `/apiAdmin/fileAcquisition/download?id=${item.id}`, token: A.token });
    const file = await h.call({ method: 'GET', url: dl.body_.data.url });
    expect(file.statusCode).toBe(302);
    const got = await fetch(String(file.headers.location));
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    expect(got.headers.get('content-disposition')).toMatch(/^attachment; filename="print.log"/);
  });

  it("lets another node, with its own disk, read the first node's objects", async () => {
    const res = await upload('shared.png', PNG_1x1);
    const { key, url } = res.body_.data as { key: string; url: string };
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-node2-'));
    const db = createDb(h.config.DATABASE_URL!, 3);
    const app = await buildApp({ ...h.config, dataDir: otherDir }, db);
    try {
      await app.ready();
      expect((await app.storage.read(key))?.equals(PNG_1x1)).toBe(true);
      const viaNode2 = await caller(app)({ method: 'GET', url });
      expect(viaNode2.statusCode).toBe(302);
      const got = await fetch(String(viaNode2.headers.location));
      expect(Buffer.from(await got.arrayBuffer()).equals(PNG_1x1)).toBe(true);
      // and an object node 2 writes, node 1 reads
      const k2 = app.storage.newKey('from-node-2.bin');
      await app.storage.write(k2, Buffer.from('node 2'));
      expect((await h.app.storage.read(k2))?.toString()).toBe('node 2');
      expect(filesOnDisk(otherDir)).toEqual([]);
    } finally {
      await app.close();
      await db.destroy();
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe('storage:migrate', () => {
  it('copies local objects to the bucket, skips them the second time, deletes local copies only when asked', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cpc-migrate-'));
    const local = new LocalDriver(dir);
    const objects = new Map<string, Buffer>();
    for (let i = 0; i < 5; i++) {
      const key = `20260101/${randomBytes(8).toString('hex')}/f${i}.bin`;
      objects.set(key, randomBytes(1000 + i));
      await local.putBytes(key, objects.get(key)!);
    }
    // a staging area is not an object
    fs.mkdirSync(path.join(dir, '.tmp'));
    fs.writeFileSync(path.join(dir, '.tmp', 'partial'), 'x');
    const target = new S3Driver(parseS3Url(storageUrl.replace(BUCKET, 'cpc-migrate')));
    try {
      expect(await migrateObjects(local, target)).toEqual({ found: 5, copied: 5, skipped: 0, failed: 0, deleted: 0 });
      for (const [key, bytes] of objects) expect((await target.read(key))?.equals(bytes)).toBe(true);
      expect(await migrateObjects(local, target)).toEqual({ found: 5, copied: 0, skipped: 5, failed: 0, deleted: 0 });
      // the command itself, as an operator runs it: the counts, and the local copies deleted on request
      const run = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'src/storage-migrate.ts', '--delete-local'],
        {
          cwd: path.resolve(import.meta.dirname, '..'),
          env: { ...process.env, DATA_DIR: '/nonexistent', STORAGE_URL: storageUrl.replace(BUCKET, 'cpc-migrate') },
        },
      ).catch((e: { stdout: string; stderr: string }) => e);
      expect(run.stdout).toMatch(/found 0, copied 0/);
      const cli = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', 'src/storage-migrate.ts', '--from', dir, '--delete-local'],
        {
          cwd: path.resolve(import.meta.dirname, '..'),
          env: { ...process.env, STORAGE_URL: storageUrl.replace(BUCKET, 'cpc-migrate') },
        },
      );
      expect(cli.stdout).toMatch(/found 5, copied 0, already there 5, failed 0, local copies deleted 5/);
      expect(cli.stdout + cli.stderr).not.toMatch(/S3RVER@/);
      const left: string[] = [];
      for await (const o of local.list()) left.push(o.key);
      expect(left).toEqual([]);
      expect((await keysInBucket('cpc-migrate')).sort()).toEqual([...objects.keys()].sort());
    } finally {
      target.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
