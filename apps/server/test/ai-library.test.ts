import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppKeyWithSecret } from '@cpc/contracts/integration';
import { PERMISSIONS, type OcrJob } from '@cpc/contracts';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, multipart, type Harness } from './harness.ts';
import { customer, deviceRow, devicesOf, subAccountWith, waitUntil, type Customer } from './device-helpers.ts';
import { createKey, openCall, printRow } from './open-helpers.ts';
import { documentImage, photoImage } from './ocr-images.ts';

/**
 * Cloud OCR of the AI library (issue 15): real tesseract.js recognition of generated Chinese + English document
 * images (a clean scan and a photo-like one), the refusals (not an image by its bytes, too big, another tenant's
 * image or job, over the tenant limit), the durable queue (a dead node's job is taken again), the 7-day retention,
 * the open API, and the printed receipt on a simulated printer.
 */
let h: Harness;
let A: Customer;
let B: Customer;
let key: AppKeyWithSecret;
let fleet: Fleet;
const specs = makeSpecs(1, { seed: 77, prefix: 'OCR' });
let deviceId = 0;

beforeAll(async () => {
  h = await createHarness({
    OCR_WORKERS: '1',
    OCR_TENANT_LIMIT: '3',
    OCR_POLL_MS: '200',
    OPEN_RATE_LIMIT: '100000',
    SWEEP_INTERVAL_MS: '200',
    LAST_SEEN_FLUSH_MS: '100',
  });
  A = await customer(h);
  B = await customer(h);
  const ids = await devicesOf(h, A.tenantId, specs);
  deviceId = ids.get(specs[0].sn)!;
  key = await createKey(h, A.token);
  fleet = await createFleet({
    url: h.app.gateway.deviceUrl,
    specs,
    seed: 77,
    heartbeatS: 30,
    start: false,
    printLineMs: 2,
    randomFaults: false,
  });
  await fleet.devices[0].powerOn();
  await waitUntil('printer online', async () => (await deviceRow(h, specs[0].sn)).status === 'online');
  await h.app.gateway.settled(specs[0].sn);
}, 120_000);
afterAll(async () => {
  await fleet?.stop();
  await h?.close();
});

/** Uploads through the console's upload flow (attachment bucket: it takes webp and also non-images). */
async function upload(token: string, name: string, bytes: Buffer): Promise<string> {
  const t = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken?bucket=attachment', token });
  const res = await h.call({
    method: 'POST',
    url: '/apiAdmin/upload',
    ...multipart({ token: t.body_.data.token }, { name, bytes }),
  });
  if (res.statusCode !== 200) throw new Error(`upload: ${res.body}`);
  return res.body_.data.key;
}
const submit = (token: string, objectKey: string) =>
  h.call({ method: 'POST', url: '/apiAdmin/aiLibrary/ocr/jobs', token, payload: { objectKey } });
const getJob = (token: string, id: number) =>
  h.call({ method: 'GET', url: `/apiAdmin/aiLibrary/ocr/jobs/${id}`, token });
const finished = (token: string, id: number) =>
  waitUntil(
    `job ${id} finished`,
    async () => {
      const j = (await getJob(token, id)).body_.data as OcrJob;
      return j.state === 'done' || j.state === 'failed' ? j : null;
    },
    90_000,
  );
/** Tesseract may read a Chinese word with a stray space; the words are compared without spaces. */
const squash = (s: string) => s.replace(/\s+/g, '');

describe('cloud OCR in the console', () => {
  it('recognises Chinese and English in a photo of a document, with per-line confidence, and prints it', async () => {
    const objectKey = await upload(A.token, 'receipt-photo.jpg', await photoImage());
    const res = await submit(A.token, objectKey);
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toMatchObject({
      state: 'queued',
      source: 'console',
      mime: 'image/jpeg',
      fileName: 'receipt-photo.jpg',
    });
    const job = await finished(A.token, res.body_.data.id);
    expect(job.state).toBe('done');
    const text = squash(job.text);
    for (const word of ['云打印控制台', 'CloudPrintReceipt', '订单', 'Order12345']) expect(text).toContain(word);
    expect(job.lines.length).toBeGreaterThanOrEqual(3);
    for (const l of job.lines) expect(l.confidence).toBeGreaterThan(50);
    expect(job.language).toBe('chi_sim+eng');
    expect(job.durationMs).toBeGreaterThan(0);
    expect(new Date(job.expiresAt).getTime() - new Date(job.createdAt).getTime()).toBe(7 * 86_400_000);
    // the image is reachable through its signed link
    expect((await h.call({ method: 'GET', url: job.imageUrl })).statusCode).toBe(200);

    const listed = await h.call({ method: 'GET', url: '/apiAdmin/aiLibrary/ocr/jobs', token: A.token });
    expect(listed.body_.data.list.map((j: OcrJob) => j.id)).toContain(job.id);

    // printed as a receipt on the tenant's simulated printer
    const printed = await h.call({
      method: 'POST',
      url: `/apiAdmin/aiLibrary/ocr/jobs/${job.id}/print`,
      token: A.token,
      payload: { deviceId },
    });
    expect(printed.statusCode).toBe(200);
    const printJobId = printed.body_.data.printJobId as string;
    await waitUntil('receipt printed', async () => (await printRow(h, printJobId)).state === 'printed', 30_000);
    const paper = fleet.devices[0].printed.find((p) => p.id === printJobId)!;
    const lines = squash(paper.lines.join(''));
    expect(lines).toContain('文字识别');
    expect(lines).toContain('CloudPrintReceipt');
    expect(lines).toContain('Order12345');

    const log = await h.db
      .selectFrom('audit_log')
      .select(['action', 'resource_id'])
      .where('tenant_id', '=', A.tenantId)
      .where('action', 'in', ['aiLibrary.submit', 'aiLibrary.print'])
      .execute();
    expect(log.map((l) => l.action).sort()).toEqual(['aiLibrary.print', 'aiLibrary.submit']);
  }, 120_000);

  it('reads a clean webp scan too', async () => {
    const objectKey = await upload(A.token, 'scan.webp', await documentImage(['发票 Invoice 2026'], 'webp'));
    const job = await finished(A.token, (await submit(A.token, objectKey)).body_.data.id);
    expect(job.state).toBe('done');
    expect(squash(job.text)).toContain('发票');
    expect(squash(job.text)).toContain('Invoice2026');
  }, 120_000);

  it('refuses a file that is not an image by its bytes, named as one', async () => {
    const objectKey = await upload(A.token, 'notes.txt', Buffer.from('plain text, not a picture\n'));
    const res = await submit(A.token, objectKey);
    expect(res.statusCode).toBe(400);
    expect(res.body_.data.fields[0].field).toBe('objectKey');
    expect(res.body_.msg).toContain('jpg, png or webp');
  });

  it("answers 404 for another tenant's image and job, and a printer outside the tenant", async () => {
    const objectKey = await upload(A.token, 'a.png', await documentImage(['A']));
    expect((await submit(B.token, objectKey)).statusCode).toBe(404);
    expect((await submit(A.token, 'no/such/key.png')).statusCode).toBe(404);
    const mine = (
      await h.db.selectFrom('ocr_jobs').select('id').where('tenant_id', '=', A.tenantId).executeTakeFirstOrThrow()
    ).id;
    expect((await getJob(B.token, Number(mine))).statusCode).toBe(404);
    const print = await h.call({
      method: 'POST',
      url: `/apiAdmin/aiLibrary/ocr/jobs/${mine}/print`,
      token: B.token,
      payload: { deviceId },
    });
    expect(print.statusCode).toBe(404);
  });

  it('limits the jobs a tenant has queued or running (429 with the limit), and only that tenant', async () => {
    const C = await customer(h);
    await h.db
      .insertInto('ocr_jobs')
      .values(
        [0, 1, 2].map(() => ({
          tenant_id: C.tenantId,
          source: 'console' as const,
          image_key: 'gone.png',
          mime: 'image/png',
          state: 'running' as const,
          attempts: 1,
          lease_until: new Date(Date.now() + 3_600_000),
        })),
      )
      .execute();
    const objectKey = await upload(C.token, 'c.png', await documentImage(['C']));
    const res = await submit(C.token, objectKey);
    expect(res.statusCode).toBe(429);
    expect(res.body_.msg).toContain('at most 3');
    expect(await h.db.selectFrom('ocr_jobs').select('id').where('tenant_id', '=', C.tenantId).execute()).toHaveLength(
      3,
    );
    const status = await h.call({ method: 'GET', url: '/apiAdmin/aiLibrary/ocr/status', token: C.token });
    expect(status.body_.data).toEqual({ active: 3, limit: 3, workers: 1 });
    await h.db.deleteFrom('ocr_jobs').where('tenant_id', '=', C.tenantId).execute();
  });

  it('needs aiLibrary:edit to submit and aiLibrary:view to read', async () => {
    const viewer = await subAccountWith(h, A.tenantId, [PERMISSIONS.aiLibraryView]);
    const none = await subAccountWith(h, A.tenantId, []);
    expect((await submit(viewer, 'x.png')).statusCode).toBe(403);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/aiLibrary/ocr/jobs', token: viewer })).statusCode).toBe(200);
    expect((await h.call({ method: 'GET', url: '/apiAdmin/aiLibrary/ocr/jobs', token: none })).statusCode).toBe(403);
  });
});

describe('the durable queue and retention', () => {
  it('takes a job again when its node died while running it', async () => {
    const objectKey = await upload(A.token, 'again.png', await documentImage(['重试 Retry']));
    const { id } = await h.db
      .insertInto('ocr_jobs')
      .values({
        tenant_id: A.tenantId,
        source: 'console',
        image_key: objectKey,
        mime: 'image/png',
        state: 'running',
        attempts: 1,
        lease_until: new Date(Date.now() - 1000),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const job = await finished(A.token, Number(id));
    expect(job.state).toBe('done');
    expect(squash(job.text)).toContain('Retry');
  }, 120_000);

  it('deletes jobs 7 days old, with the images the open API stored', async () => {
    const sub = await openCall(h, key, {
      url: '/ai/ocr',
      body: { image: (await documentImage(['Old'])).toString('base64'), fileName: 'old.png' },
    });
    expect(sub.statusCode).toBe(200);
    const id = sub.body_.data.id as number;
    await waitUntil(
      'old job done',
      async () => (await openCall(h, key, { url: `/ai/ocr/${id}` })).body_.data.state === 'done',
      90_000,
    );
    const row = await h.db.selectFrom('ocr_jobs').select(['image_key']).where('id', '=', id).executeTakeFirstOrThrow();
    const file = h.app.storage.pathOf(row.image_key);
    expect(fs.existsSync(file)).toBe(true);
    const fresh = await h.db.selectFrom('ocr_jobs').select('id').where('tenant_id', '=', A.tenantId).execute();
    await h.db
      .updateTable('ocr_jobs')
      .set({ created_at: new Date(Date.now() - 8 * 86_400_000), expires_at: new Date(Date.now() - 86_400_000) })
      .where('id', '=', id)
      .execute();
    const swept = await h.app.ocr.sweep();
    expect(swept.deleted).toBe(1);
    expect(fs.existsSync(file)).toBe(false);
    expect((await openCall(h, key, { url: `/ai/ocr/${id}` })).statusCode).toBe(404);
    const left = await h.db.selectFrom('ocr_jobs').select('id').where('tenant_id', '=', A.tenantId).execute();
    expect(left).toHaveLength(fresh.length - 1);
  }, 120_000);
});

describe('cloud OCR through the open API', () => {
  it('recognises a base64 photo and prints the text on the named printer once done', async () => {
    const res = await openCall(h, key, {
      url: '/ai/ocr',
      body: {
        image: (await photoImage(['收据 测试', 'Thank you 888'])).toString('base64'),
        fileName: 'photo.jpg',
        print: { deviceSn: specs[0].sn },
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data.state).toBe('queued');
    const id = res.body_.data.id as number;
    const done = await waitUntil(
      'open job printed',
      async () => {
        const j = (await openCall(h, key, { url: `/ai/ocr/${id}` })).body_.data;
        return j.state === 'done' && j.printJobId ? j : null;
      },
      90_000,
    );
    expect(squash(done.text)).toContain('收据');
    expect(squash(done.text)).toContain('Thankyou888');
    await waitUntil('printed', async () => (await printRow(h, done.printJobId)).state === 'printed', 30_000);
    const paper = fleet.devices[0].printed.find((p) => p.id === done.printJobId)!;
    expect(squash(paper.lines.join(''))).toContain('Thankyou888');
  }, 120_000);

  it('refuses bad images, unknown printers and jobs of other keys', async () => {
    const text = await openCall(h, key, { url: '/ai/ocr', body: { image: Buffer.from('hello').toString('base64') } });
    expect(text.statusCode).toBe(400);
    expect(text.body_.data.fields[0].field).toBe('image');
    const notB64 = await openCall(h, key, { url: '/ai/ocr', body: { image: '***not base64***' } });
    expect(notB64.statusCode).toBe(400);
    const big = Buffer.concat([await documentImage(['big']), Buffer.alloc(10 * 1024 * 1024)]);
    const tooBig = await openCall(h, key, { url: '/ai/ocr', body: { image: big.toString('base64') } });
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.body_.msg).toContain('10 MB');
    const noPrinter = await openCall(h, key, {
      url: '/ai/ocr',
      body: { image: (await documentImage(['x'])).toString('base64'), print: { deviceSn: 'NOPE-1' } },
    });
    expect(noPrinter.statusCode).toBe(404);
    const keyB = await createKey(h, B.token);
    const mine = (await h.db.selectFrom('ocr_jobs').select('id').where('source', '=', 'open').executeTakeFirstOrThrow())
      .id;
    expect((await openCall(h, keyB, { url: `/ai/ocr/${mine}` })).statusCode).toBe(404);
    // over the account's limit of jobs queued or running: 429 with its reason and a Retry-After
    await h.db
      .insertInto('ocr_jobs')
      .values(
        [0, 1, 2].map(() => ({
          tenant_id: A.tenantId,
          source: 'open' as const,
          image_key: 'busy.png',
          mime: 'image/png',
          state: 'running' as const,
          attempts: 1,
          lease_until: new Date(Date.now() + 3_600_000),
        })),
      )
      .execute();
    const busy = await openCall(h, key, {
      url: '/ai/ocr',
      body: { image: (await documentImage(['y'])).toString('base64') },
    });
    await h.db.deleteFrom('ocr_jobs').where('image_key', '=', 'busy.png').execute();
    expect(busy.statusCode).toBe(429);
    expect(busy.body_.data).toMatchObject({ reason: 'ocr_limit', limit: 3 });
    expect(busy.headers['retry-after']).toBe('5');
    // and the open API's document lists the calls
    const doc = (await h.call({ method: 'GET', url: '/open/v1/docs/json' })).json() as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/open/v1/ai/ocr', '/open/v1/ai/ocr/{id}']));
  }, 60_000);
});
