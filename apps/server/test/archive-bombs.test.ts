import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import zlib from 'node:zlib';
import { PERMISSIONS } from '@cpc/contracts';
import { archiveSlots, Slots } from '../src/lib/bounded-zip.ts';
import {
  APK_ENTRY_MAX_BYTES,
  ARCHIVE_PARSE_CONCURRENCY,
  IMPORT_MAX_ROWS,
  OCR_MAX_PIXELS,
  PACKAGE_UPLOADS_MAX_UNFINISHED,
  PACKAGE_UPLOADS_MAX_UNFINISHED_BYTES,
} from '../src/lib/input-limits.ts';
import { ADMIN_PASSWORD, createHarness, multipart, type Harness } from './harness.ts';
import { customer, subAccountWith, type Customer } from './device-helpers.ts';
import { makeApk, makeSigner, type ApkSpec, type Signer } from './fixtures/apk.ts';
import { zip, type RawZipEntry } from './fixtures/zip.ts';

/**
 * What an uploaded archive may cost the server: a signed APK whose entry inflates to 1 GiB (honestly declared, or
 * declared small), refused naming the entry without the server's memory growing by the bomb; APKs read a few at a
 * time; package uploads staged only by those who can make packages of them, and only so many per tenant.
 */
let h: Harness;
let signer: Signer;
const MB = 1024 * 1024;
const GiB = 1024 * MB;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const spec = (v: Partial<ApkSpec> = {}): ApkSpec => ({
  packageName: 'com.example.bomb',
  versionCode: 1,
  versionName: '1.0.0',
  label: 'Bomb',
  ...v,
});

/** Raw deflate of `size` zero bytes, made in 1 MB steps: the test never holds the inflated bytes either. */
async function deflatedZeros(size: number): Promise<Buffer> {
  const d = zlib.createDeflateRaw({ level: 9, memLevel: 9 });
  const out: Buffer[] = [];
  d.on('data', (c: Buffer) => out.push(c));
  const step = Buffer.alloc(MB);
  for (let left = size; left > 0; left -= MB)
    if (!d.write(step.subarray(0, Math.min(MB, left)))) await once(d, 'drain');
  d.end();
  await once(d, 'end');
  return Buffer.concat(out);
}

/** The entries of a zip of stored entries (what makeApk writes), each to be written again as it is, CRC-32 left 0. */
function storedEntries(apk: Buffer): RawZipEntry[] {
  const eocd = apk.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = apk.readUInt16LE(eocd + 10);
  let p = apk.readUInt32LE(eocd + 16);
  const out: RawZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    const nameLen = apk.readUInt16LE(p + 28);
    const size = apk.readUInt32LE(p + 20);
    const local = apk.readUInt32LE(p + 42);
    const start = local + 30 + apk.readUInt16LE(local + 26) + apk.readUInt16LE(local + 28);
    out.push({
      name: apk.toString('utf8', p + 46, p + 46 + nameLen),
      raw: apk.subarray(start, start + size),
      method: 0,
      size,
    });
    p += 46 + nameLen + apk.readUInt16LE(p + 30) + apk.readUInt16LE(p + 32);
  }
  return out;
}

/** A signed APK with one more entry, `resources.arsc` unless named otherwise. */
const apkWith = (extra: Omit<RawZipEntry, 'name'> & { name?: string }, v: Partial<ApkSpec> = {}) =>
  zip([...storedEntries(makeApk(spec(v), signer)), { name: 'resources.arsc', ...extra }]);

let gibDeflated: Buffer;
beforeAll(async () => {
  h = await createHarness();
  signer = makeSigner('Bomb Signer');
  gibDeflated = await deflatedZeros(GiB);
}, 120_000);
afterAll(() => h.close());

async function uploadToken(token: string) {
  return h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken?bucket=package', token });
}
const start = (token: string, name: string, size: number) =>
  h.call({
    method: 'POST',
    url: '/apiAdmin/upload/chunks',
    headers: { 'x-upload-token': token },
    payload: { name, size },
  });
const put = (token: string, id: string, bytes: Buffer, from: number, total: number) =>
  h.call({
    method: 'PUT',
    url: `/apiAdmin/upload/chunks/${id}`,
    headers: {
      'x-upload-token': token,
      'content-type': 'application/offset+octet-stream',
      'content-range': `bytes ${from}-${from + bytes.length - 1}/${total}`,
    },
    payload: bytes,
  });

/** Uploads the bytes (in 8 MB chunks) and makes an app package of them. */
async function createApp(c: Customer, bytes: Buffer, name = 'bomb.apk') {
  const token = (await uploadToken(c.token)).body_.data.token as string;
  const s = await start(token, name, bytes.length);
  expect(s.statusCode, s.body).toBe(200);
  const id = s.body_.data.uploadId as string;
  for (let at = 0; at < bytes.length; at += 8 * MB) {
    const r = await put(token, id, bytes.subarray(at, at + 8 * MB), at, bytes.length);
    expect(r.statusCode, r.body).toBe(200);
  }
  return h.call({
    method: 'POST',
    url: '/apiAdmin/package/create',
    token: c.token,
    payload: { kind: 'app', uploadId: id, sha256: sha(bytes) },
  });
}

/** Runs `work` and answers how far this process's memory rose above where it started, at its highest. */
async function growthDuring<T>(work: () => Promise<T>): Promise<{ result: T; rss: number; arrayBuffers: number }> {
  const before = process.memoryUsage();
  let rss = before.rss;
  let arrayBuffers = before.arrayBuffers;
  const sample = () => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    arrayBuffers = Math.max(arrayBuffers, m.arrayBuffers);
  };
  const timer = setInterval(sample, 5);
  try {
    const result = await work();
    sample();
    return { result, rss: rss - before.rss, arrayBuffers: arrayBuffers - before.arrayBuffers };
  } finally {
    clearInterval(timer);
  }
}

const packagesOf = async (tenantId: number) =>
  h.db.selectFrom('packages').select('identifier').where('tenant_id', '=', tenantId).execute();

describe('APK deflate bombs', () => {
  it('refuses a 1 MB APK whose resources.arsc inflates to 1 GiB, naming the entry, without the memory', async () => {
    const A = await customer(h);
    const bomb = apkWith({ raw: gibDeflated, method: 8, size: GiB });
    expect(bomb.length).toBeLessThan(2 * MB);
    const { result: res, rss, arrayBuffers } = await growthDuring(() => createApp(A, bomb));
    expect(rss).toBeLessThan(100 * MB);
    expect(arrayBuffers).toBeLessThan(100 * MB);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body_.data.fields[0].field).toBe('file');
    expect(res.body_.msg).toContain('resources.arsc');
    expect(res.body_.msg).toContain(`${APK_ENTRY_MAX_BYTES.resources / MB} MB`);
    expect(await packagesOf(A.tenantId)).toEqual([]);
  }, 120_000);

  it('refuses an entry whose header declares 4 KB and that inflates to 1 GiB, stopping at the declared size', async () => {
    const A = await customer(h);
    const liar = apkWith({ raw: gibDeflated, method: 8, size: 4096 });
    const { result: res, rss, arrayBuffers } = await growthDuring(() => createApp(A, liar));
    expect(rss).toBeLessThan(100 * MB);
    expect(arrayBuffers).toBeLessThan(100 * MB);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body_.msg).toContain('resources.arsc');
    expect(res.body_.msg).toContain('4096');
    expect(await packagesOf(A.tenantId)).toEqual([]);
  }, 120_000);

  it('refuses a lying launcher icon the same way: no entry read escapes the limits', async () => {
    const A = await customer(h);
    const liar = apkWith({ name: 'res/mipmap-xxxhdpi-v4/ic_launcher.png', raw: gibDeflated, method: 8, size: 1000 });
    const { result: res, arrayBuffers } = await growthDuring(() => createApp(A, liar));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body_.msg).toContain('ic_launcher.png');
    expect(arrayBuffers).toBeLessThan(100 * MB);
  }, 120_000);

  it('refuses an entry compressed a thousandfold before inflating it', async () => {
    const A = await customer(h);
    const dense = await deflatedZeros(50 * MB);
    const res = await createApp(A, apkWith({ raw: dense, method: 8, size: 50 * MB }));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body_.msg).toMatch(/entry resources\.arsc of bomb\.apk is compressed \d+:1, beyond the 200:1 allowed/);
  }, 60_000);

  it('still takes an APK with an ordinary deflated resources table', async () => {
    const A = await customer(h);
    const table = Buffer.from('resource table '.repeat(20_000));
    const res = await createApp(A, apkWith({ raw: zlib.deflateRawSync(table), method: 8, size: table.length }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.identifier).toBe('com.example.bomb');
  });

  it(`reads at most ${ARCHIVE_PARSE_CONCURRENCY} APKs at once; the others wait their turn`, async () => {
    const tenants = await Promise.all([1, 2, 3].map(() => customer(h)));
    const bombs = tenants.flatMap((c, i) => [
      { c, bytes: apkWith({ raw: gibDeflated, method: 8, size: 64 * MB - 1 }, { versionName: `${i}.0` }) },
      { c, bytes: makeApk(spec({ versionName: `${i}.1`, versionCode: 2 }), signer) },
    ]);
    archiveSlots.peak = 0;
    // six parses at once, each allowed its 64 MB: at most two of them hold memory
    const { result, arrayBuffers } = await growthDuring(() => Promise.all(bombs.map((b) => createApp(b.c, b.bytes))));
    expect(arrayBuffers).toBeLessThan((ARCHIVE_PARSE_CONCURRENCY + 1) * 64 * MB);
    expect(result.map((r) => r.statusCode)).toEqual([400, 200, 400, 200, 400, 200]);
    expect(archiveSlots.peak).toBeGreaterThan(0);
    expect(archiveSlots.peak).toBeLessThanOrEqual(ARCHIVE_PARSE_CONCURRENCY);
  }, 120_000);

  it('a full queue of waiting parses is refused (429), and the queue drains', async () => {
    const slots = new Slots(1, 1);
    let release!: () => void;
    const first = slots.run(() => new Promise<string>((r) => (release = () => r('first'))));
    const second = slots.run(async () => 'second');
    const third = await slots.run(async () => 'third').catch((e: { code?: number; key?: string }) => e);
    expect(third).toMatchObject({ code: 429, key: 'archive.busy' });
    release();
    expect(await Promise.all([first, second])).toEqual(['first', 'second']);
    expect(await slots.run(async () => 'again')).toBe('again');
  });
});

describe('package upload tokens and staged uploads', () => {
  it('refuses a package upload token to a viewer without an edit permission (403), gives one to an editor', async () => {
    const A = await customer(h);
    const viewer = await subAccountWith(h, A.tenantId, [
      PERMISSIONS.applicationView,
      PERMISSIONS.upgradeView,
      PERMISSIONS.aiLibraryView,
    ]);
    const refused = await uploadToken(viewer);
    expect(refused.statusCode).toBe(403);
    expect(refused.body_.code).toBe(403);
    expect(refused.body_.msg).toContain('permission to edit firmware, applications or AI models');
    // the image bucket stays open to anyone signed in
    const image = await h.call({
      method: 'GET',
      url: '/apiAdmin/user/v1/user/getQnToken?bucket=permanentfile',
      token: viewer,
    });
    expect(image.statusCode).toBe(200);
    for (const p of [PERMISSIONS.applicationEdit, PERMISSIONS.upgradeEdit, PERMISSIONS.aiLibraryEdit]) {
      const editor = await subAccountWith(h, A.tenantId, [p]);
      expect((await uploadToken(editor)).statusCode, p).toBe(200);
    }
  });

  it('checks the permission at every chunk: taken away, the next request with the old token is refused', async () => {
    const A = await customer(h);
    const editor = await subAccountWith(h, A.tenantId, [PERMISSIONS.applicationEdit]);
    const token = (await uploadToken(editor)).body_.data.token as string;
    const s = await start(token, 'a.apk', 20);
    expect(s.statusCode).toBe(200);
    const id = s.body_.data.uploadId as string;
    expect((await put(token, id, Buffer.alloc(10), 0, 20)).statusCode).toBe(200);
    await h.db
      .updateTable('roles')
      .set({ permissions: [PERMISSIONS.applicationView] })
      .where('tenant_id', '=', A.tenantId)
      .where('code', 'like', 'sub_%')
      .execute();
    expect((await put(token, id, Buffer.alloc(10), 10, 20)).statusCode).toBe(403);
    expect((await start(token, 'b.apk', 20)).statusCode).toBe(403);
  });

  it(`keeps at most ${PACKAGE_UPLOADS_MAX_UNFINISHED} unfinished uploads per tenant (429), other tenants unaffected`, async () => {
    const [A, B] = [await customer(h), await customer(h)];
    const token = (await uploadToken(A.token)).body_.data.token as string;
    for (let i = 0; i < PACKAGE_UPLOADS_MAX_UNFINISHED; i++)
      expect((await start(token, `p${i}.bin`, 1000)).statusCode).toBe(200);
    const over = await start(token, 'one-more.bin', 1000);
    expect(over.statusCode).toBe(429);
    expect(over.body_.code).toBe(429);
    expect(over.body_.msg).toContain(`at most ${PACKAGE_UPLOADS_MAX_UNFINISHED} uploads`);
    // a sub-account of the same tenant shares the tenant's room
    const editor = await subAccountWith(h, A.tenantId, [PERMISSIONS.upgradeEdit]);
    const other = (await uploadToken(editor)).body_.data.token as string;
    expect((await start(other, 'fw.bin', 1000)).statusCode).toBe(429);
    const tokenB = (await uploadToken(B.token)).body_.data.token as string;
    expect((await start(tokenB, 'b.bin', 1000)).statusCode).toBe(200);
  });

  it(`keeps at most ${PACKAGE_UPLOADS_MAX_UNFINISHED_BYTES / GiB} GiB of unfinished uploads per tenant, at once too`, async () => {
    const A = await customer(h);
    const token = (await uploadToken(A.token)).body_.data.token as string;
    // ten starts of 2 GiB at the same moment: only as many as fit are taken
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => start(token, `big${i}.bin`, 2 * GiB)));
    const taken = all.filter((r) => r.statusCode === 200).length;
    expect(taken).toBe(Math.floor(PACKAGE_UPLOADS_MAX_UNFINISHED_BYTES / (2 * GiB)));
    expect(all.filter((r) => r.statusCode === 429).length).toBe(10 - taken);
    expect((await start(token, 'tiny.bin', 1)).statusCode).toBe(429);
  });

  it('a refused APK gives its place back', async () => {
    const A = await customer(h);
    for (let i = 0; i < PACKAGE_UPLOADS_MAX_UNFINISHED + 1; i++) {
      const res = await createApp(A, Buffer.from(`not an apk ${i}`), `junk${i}.apk`);
      expect(res.statusCode).toBe(400);
    }
  });
});

/** A real grey PNG of width × height pixels, all black: a few hundred KB however large it is. */
async function blackPng(width: number, height: number): Promise<Buffer> {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(8, 8); // bit depth
  ihdr.writeUInt8(0, 9); // greyscale
  // every row: filter byte 0, then zeros; deflated (zlib) in steps
  const d = zlib.createDeflate({ level: 9 });
  const out: Buffer[] = [];
  d.on('data', (c: Buffer) => out.push(c));
  const row = Buffer.alloc(width + 1);
  for (let y = 0; y < height; y++) if (!d.write(row)) await once(d, 'drain');
  d.end();
  await once(d, 'end');
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.concat(out)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('OCR images', () => {
  it(`refuses an image over ${OCR_MAX_PIXELS / 1e6} megapixels by its header, before recognising it`, async () => {
    const A = await customer(h);
    const png = await blackPng(8000, 8000);
    expect(png.length).toBeLessThan(MB);
    const t = await h.call({
      method: 'GET',
      url: '/apiAdmin/user/v1/user/getQnToken?bucket=attachment',
      token: A.token,
    });
    const up = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      ...multipart({ token: t.body_.data.token }, { name: 'huge.png', bytes: png }),
    });
    expect(up.statusCode, up.body).toBe(200);
    const res = await h.call({
      method: 'POST',
      url: '/apiAdmin/aiLibrary/ocr/jobs',
      token: A.token,
      payload: { objectKey: up.body_.data.key },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body_.data.fields[0].field).toBe('objectKey');
    expect(res.body_.msg).toContain('8000×8000 pixels');
    const jobs = await h.db.selectFrom('ocr_jobs').select('id').where('tenant_id', '=', A.tenantId).execute();
    expect(jobs).toEqual([]);
  });
});

describe('CSV imports', () => {
  const importCsv = async (rows: number) => {
    const staff = (await h.login('admin', ADMIN_PASSWORD)).token;
    const lines = Array.from({ length: rows }, (_, i) => `CSV${String(i).padStart(6, '0')},NO-SUCH-MODEL`);
    return h.call({
      method: 'POST',
      url: '/apiAdmin/system/deviceRegistry/import',
      token: staff,
      ...multipart({}, { name: 'd.csv', bytes: Buffer.from(['sn,model', ...lines].join('\n')) }),
    });
  };

  it(`stops reading a CSV one row past ${IMPORT_MAX_ROWS} rows and refuses it; ${IMPORT_MAX_ROWS} rows are read`, async () => {
    const over = await importCsv(IMPORT_MAX_ROWS + 1);
    expect(over.statusCode).toBe(400);
    expect(over.body_.msg).toContain(`at most ${IMPORT_MAX_ROWS} devices per file`);
    // exactly the limit is read through (its rows refused one by one for their unknown model)
    const full = await importCsv(IMPORT_MAX_ROWS);
    expect(full.body_.msg).not.toContain('devices per file');
  });
});
