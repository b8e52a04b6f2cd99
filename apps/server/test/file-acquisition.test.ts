import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { FileAcquisitionService, deviceUploadUrl } from '../src/modules/file-acquisition/index.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, deviceRow, openEvents, taskRow, waitUntil, type Customer } from './device-helpers.ts';

/**
 * File acquisition (issue 15): requests to devices for files, the device's chunked, resumable upload through a
 * signed link bound to its own request, the console's list, download and delete; every refusal; tenant isolation;
 * and end to end with the simulator, a device that is offline when asked and uploads once it is back.
 */
let h: Harness;
let A: Customer;
let B: Customer;
let base: string;
const specs = makeSpecs(6, { seed: 151, prefix: 'FAQ' });
const specsB = makeSpecs(1, { seed: 152, prefix: 'FAB' });
let ids: Map<string, number>;
let idB: number;
const fleets: Fleet[] = [];

beforeAll(async () => {
  h = await createHarness({ SWEEP_INTERVAL_MS: '200', LAST_SEEN_FLUSH_MS: '100' });
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  A = await customer(h);
  B = await customer(h);
  ids = await devicesOf(h, A.tenantId, specs);
  idB = (await devicesOf(h, B.tenantId, specsB)).get(specsB[0].sn)!;
});
afterAll(async () => {
  await Promise.all(fleets.map((f) => f.stop()));
  await h?.close();
});

const dev = (i: number) => ids.get(specs[i].sn)!;
const ask = (token: string, payload: Record<string, unknown>) =>
  h.call({ method: 'POST', url: '/apiAdmin/fileAcquisition/request', token, payload });
const list = (token: string, query = '') =>
  h.call({ method: 'GET', url: `/apiAdmin/fileAcquisition/list?pageSize=100${query}`, token });
const itemOf = async (token: string, id: number) =>
  (await list(token)).body_.data.list.find((i: { id: number }) => i.id === id);
const countRequests = async () =>
  Number(
    (
      await h.db
        .selectFrom('file_requests')
        .select((e) => e.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** A request for device i (offline: it waits), and its upload link as the device would get it. */
async function request(i: number, extra: Record<string, unknown> = {}) {
  const res = await ask(A.token, { deviceIds: [dev(i)], preset: 'print_log', ...extra });
  expect(res.statusCode).toBe(200);
  const item = res.body_.data[0];
  return { item, url: deviceUploadUrl(h.app.storage, item.id, new Date(item.expireAt)) };
}
const put = (url: string, range: string | undefined, body: Buffer, name = 'print.log') =>
  h.call({
    method: 'PUT',
    url: `${url}&name=${name}`,
    headers: { 'content-type': 'application/octet-stream', ...(range ? { 'content-range': range } : {}) },
    payload: body,
  });

/** The link with its signature's first character changed (to another one: the same would still be valid). */
const tampered = (url: string) => url.replace(/sig=(.)/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);

describe('asking for files', () => {
  it('refuses a path outside the allowed roots, naming the field, and creates nothing', async () => {
    const before = await countRequests();
    for (const path of [
      '/etc/passwd',
      '/data/log/../../etc/shadow',
      '/data/log/./x.log',
      'data/log/x.log',
      '/data/log/',
      '/data/log//x.log',
      '/data/log/[ab].log',
      '/data/log/{a,b}.log',
      '/data/logs/x.log',
      '/sdcard/Android/data/../files/x',
      '/sdcard/Android/data/not a pkg/files/x',
      '/data/log/a\\b.log',
    ]) {
      const res = await ask(A.token, { deviceIds: [dev(0)], path });
      expect(res.statusCode, path).toBe(400);
      expect(res.body_.data.fields[0].field, path).toBe('path');
    }
    const neither = await ask(A.token, { deviceIds: [dev(0)] });
    expect(neither.statusCode).toBe(400);
    expect(neither.body_.data.fields[0].field).toBe('preset');
    const both = await ask(A.token, { deviceIds: [dev(0)], preset: 'system_log', path: '/data/log/x.log' });
    expect(both.statusCode).toBe(400);
    const big = await ask(A.token, { deviceIds: [dev(0)], preset: 'system_log', maxBytes: 2 * 1024 ** 3 });
    expect(big.statusCode).toBe(400);
    expect(big.body_.data.fields[0].field).toBe('maxBytes');
    const long = await ask(A.token, { deviceIds: [dev(0)], preset: 'system_log', expireHours: 24 * 8 });
    expect(long.statusCode).toBe(400);
    expect(await countRequests()).toBe(before);
  });

  it('takes a path inside the roots; one request and one fetch_file task per device, waiting while offline', async () => {
    const res = await ask(A.token, {
      deviceIds: [dev(0), dev(1)],
      path: '/sdcard/Android/data/com.cpc.printer/files/logs/*.txt',
      maxBytes: 1000,
      expireHours: 24 * 7,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data).toHaveLength(2);
    for (const item of res.body_.data) {
      expect(item.state).toBe('waiting');
      const task = await taskRow(h, item.taskId);
      expect(task.type).toBe('fetch_file');
      expect(task.state).toBe('queued');
      expect(task.params).toMatchObject({ requestId: item.id, pattern: item.pattern, maxBytes: 1000 });
      expect(+new Date(task.expire_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    }
    const log = await h.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'fileAcquisition.request')
      .where('tenant_id', '=', A.tenantId)
      .execute();
    expect(log.length).toBeGreaterThanOrEqual(2);
  });

  it("keeps tenants apart: another tenant's device is 404, its requests invisible, not downloadable or deletable", async () => {
    const other = await ask(A.token, { deviceIds: [dev(0), idB], preset: 'system_log' });
    expect(other.statusCode).toBe(404);
    const { item } = await request(2);
    expect((await list(B.token)).body_.data.list).toHaveLength(0);
    const dl = await h.call({ method: 'GET', url: `/apiAdmin/fileAcquisition/download?id=${item.id}`, token: B.token });
    expect(dl.statusCode).toBe(404);
    const del = await h.call({
      method: 'POST',
      url: '/apiAdmin/fileAcquisition/delete',
      token: B.token,
      payload: { ids: [item.id] },
    });
    expect(del.statusCode).toBe(404);
    expect(await itemOf(A.token, item.id)).toBeTruthy();
  });
});

describe('data scope', () => {
  it("a sub-account whose role sees only its own devices asks and lists only those devices' files", async () => {
    const { PERMISSIONS } = await import('@cpc/contracts');
    const code = `fa_${Date.now().toString(36)}`;
    const role = await h.db
      .insertInto('roles')
      .values({
        tenant_id: A.tenantId,
        code,
        name: code,
        permissions: [PERMISSIONS.fileAcquisitionView, PERMISSIONS.fileAcquisitionEdit],
        data_scope: 'own',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const username = `fa_${Date.now().toString(36)}`;
    const made = await h.call({
      method: 'POST',
      url: '/apiAdmin/system/subAccount/create',
      token: A.token,
      payload: { username, password: 'Sub0Passw0rd', confirmPassword: 'Sub0Passw0rd', roleIds: [role.id] },
    });
    expect(made.statusCode, made.body).toBe(200);
    const token = (await h.login(username, 'Sub0Passw0rd')).token;
    await h.db.updateTable('devices').set({ owner_id: made.body_.data.id }).where('id', '=', dev(5)).execute();

    expect((await ask(token, { deviceIds: [dev(0)], preset: 'system_log' })).statusCode).toBe(404);
    const mine = await ask(token, { deviceIds: [dev(5)], preset: 'system_log' });
    expect(mine.statusCode).toBe(200);
    const seen = (await list(token)).body_.data.list.map((i: { deviceId: number }) => i.deviceId);
    expect(new Set(seen)).toEqual(new Set([dev(5)]));
    await h.db.updateTable('devices').set({ owner_id: null }).where('id', '=', dev(5)).execute();
  });
});

describe('the device upload link', () => {
  it('takes chunks in order, tells the offset, completes the file; the console downloads it', async () => {
    const { item, url } = await request(3);
    const bytes = Buffer.from('line one\nline two\n'.repeat(20));
    const head0 = await h.call({ method: 'HEAD', url });
    expect(head0.statusCode).toBe(200);
    expect(head0.headers['upload-offset']).toBe('0');

    expect((await put(url, undefined, bytes.subarray(0, 100))).statusCode).toBe(400);
    expect((await put(url, 'bytes 0-50/360', bytes.subarray(0, 100))).statusCode).toBe(400);
    const first = await put(url, `bytes 0-99/${bytes.length}`, bytes.subarray(0, 100));
    expect(first.statusCode).toBe(200);
    expect(first.body_.data).toEqual({ offset: 100, total: bytes.length, complete: false });
    expect((await itemOf(A.token, item.id)).state).toBe('uploading');
    expect((await itemOf(A.token, item.id)).progress).toBe(Math.floor(10000 / bytes.length));

    // the same chunk again (its answer was lost): refused with the offset the server has, nothing appended
    const again = await put(url, `bytes 0-99/${bytes.length}`, bytes.subarray(0, 100));
    expect(again.statusCode).toBe(409);
    expect(again.body_.data.offset).toBe(100);
    expect((await h.call({ method: 'HEAD', url })).headers['upload-offset']).toBe('100');
    // the size must not change half way
    expect((await put(url, `bytes 100-199/999`, bytes.subarray(100, 200))).statusCode).toBe(409);

    const last = await put(url, `bytes 100-${bytes.length - 1}/${bytes.length}`, bytes.subarray(100));
    expect(last.body_.data).toEqual({ offset: bytes.length, total: bytes.length, complete: true });
    const ready = await itemOf(A.token, item.id);
    expect(ready).toMatchObject({ state: 'ready', size: bytes.length, fileName: 'print.log' });
    expect(ready.completedAt).toBeTruthy();

    const dl = await h.call({ method: 'GET', url: `/apiAdmin/fileAcquisition/download?id=${item.id}`, token: A.token });
    expect(dl.statusCode).toBe(200);
    const file = await h.call({ method: 'GET', url: dl.body_.data.url });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(bytes)).toBe(true);
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename="print.log"/);
    // one character of the signature changed (to another one: a signature that starts with x stays tampered)
    const signed = dl.body_.data.url as string;
    const sigHead = /sig=(.)/.exec(signed)![1];
    const tampered = await h.call({
      method: 'GET',
      url: signed.replace(/sig=./, `sig=${sigHead === 'x' ? 'y' : 'x'}`),
    });
    expect(tampered.statusCode).toBe(403);

    // used: the link is dead, and changes nothing
    const reuse = await put(url, `bytes 0-9/10`, bytes.subarray(0, 10));
    expect(reuse.statusCode).toBe(409);
    expect(reuse.body_.msg).toMatch(/already complete|已完成/);
    expect((await h.call({ method: 'HEAD', url })).statusCode).toBe(409);
    expect((await itemOf(A.token, item.id)).size).toBe(bytes.length);
  });

  it("refuses a tampered or expired link, another request's link, and a file over the maximum", async () => {
    const { item, url } = await request(4, { maxBytes: 100 });
    const { item: other } = await request(4);
    const chunk = Buffer.alloc(10, 65);
    expect((await put(tampered(url), 'bytes 0-9/10', chunk)).statusCode).toBe(403);
    // this request's signature on another request's id
    const swapped = await put(url.replace(`/upload/${item.id}?`, `/upload/${other.id}?`), 'bytes 0-9/10', chunk);
    expect(swapped.statusCode).toBe(403);
    const expired = deviceUploadUrl(h.app.storage, item.id, new Date(Date.now() - 1000));
    const exp = await put(expired, 'bytes 0-9/10', chunk);
    expect(exp.statusCode).toBe(403);
    expect(exp.body_.msg).toMatch(/invalid or expired|无效或已过期/);

    expect((await h.call({ method: 'HEAD', url: tampered(url) })).statusCode).toBe(403);
    // a chunk over 8 MB is refused before it is read to the end
    const huge = Buffer.alloc(8 * 1024 * 1024 + 1);
    const tooBig = await put(url, `bytes 0-${huge.length - 1}/${huge.length}`, huge);
    expect(tooBig.statusCode).toBe(413);

    const over = await put(url, 'bytes 0-9/500', chunk);
    expect(over.statusCode).toBe(413);
    expect(over.body_.msg).toMatch(/500 bytes, over the 100/);
    expect((await h.call({ method: 'HEAD', url })).headers['upload-offset']).toBe('0');
    expect((await itemOf(A.token, item.id)).state).toBe('waiting');

    // the request's task expired (the device came back too late): nothing is taken
    await h.db
      .updateTable('device_tasks')
      .set({ expire_at: new Date(Date.now() - 1000) })
      .where('id', '=', other.taskId)
      .execute();
    const late = await put(
      deviceUploadUrl(h.app.storage, other.id, new Date(Date.now() + 60_000)),
      'bytes 0-9/10',
      chunk,
    );
    expect(late.statusCode).toBe(409);
    expect((await itemOf(A.token, other.id)).state).toBe('expired');
  });

  it('a deleted request cancels its task, removes its file and its link is dead', async () => {
    const { item, url } = await request(5);
    await put(url, 'bytes 0-4/5', Buffer.from('hello'));
    const path = h.app.storage.pathOf(
      (await h.db.selectFrom('file_requests').select('object_key').where('id', '=', item.id).executeTakeFirstOrThrow())
        .object_key!,
    );
    const del = await h.call({
      method: 'POST',
      url: '/apiAdmin/fileAcquisition/delete',
      token: A.token,
      payload: { ids: [item.id] },
    });
    expect(del.statusCode).toBe(200);
    expect(await itemOf(A.token, item.id)).toBeUndefined();
    const { existsSync } = await import('node:fs');
    expect(existsSync(path)).toBe(false);
    expect((await put(url, 'bytes 0-4/5', Buffer.from('hello'))).statusCode).toBe(404);

    const { item: open } = await request(5);
    await h.call({
      method: 'POST',
      url: '/apiAdmin/fileAcquisition/delete',
      token: A.token,
      payload: { ids: [open.id] },
    });
    expect((await taskRow(h, open.taskId)).state).toBe('canceled');
  });

  it('writes the system log of a download link handed out and of a deletion, naming the file and the device', async () => {
    const { item, url } = await request(5);
    await put(url, 'bytes 0-4/5', Buffer.from('hello'), 'spool.log');
    const entries = () =>
      h.db
        .selectFrom('audit_log')
        .select(['action', 'subject', 'tenant_id', 'result'])
        .where('resource', '=', 'file_request')
        .where('resource_id', '=', String(item.id))
        .where('action', 'in', ['fileAcquisition.download', 'fileAcquisition.delete'])
        .orderBy('id')
        .execute();
    expect(await entries()).toEqual([]);
    const dl = await h.call({ method: 'GET', url: `/apiAdmin/fileAcquisition/download?id=${item.id}`, token: A.token });
    expect(dl.statusCode).toBe(200);
    const del = await h.call({
      method: 'POST',
      url: '/apiAdmin/fileAcquisition/delete',
      token: A.token,
      payload: { ids: [item.id] },
    });
    expect(del.statusCode).toBe(200);
    expect(await entries()).toEqual([
      { action: 'fileAcquisition.download', subject: 'spool.log', tenant_id: A.tenantId, result: 'ok' },
      { action: 'fileAcquisition.delete', subject: specs[5].sn, tenant_id: A.tenantId, result: 'ok' },
    ]);
  });
});

describe('keeping files', () => {
  it('deletes requests and their files past the keeping time, and partial uploads of closed requests', async () => {
    const { existsSync } = await import('node:fs');
    const files = new FileAcquisitionService(h.db, h.app.storage, h.app.tasks, { publish: () => {} });
    const { item: old, url } = await request(0);
    await put(url, 'bytes 0-2/3', Buffer.from('old'));
    const key = (
      await h.db.selectFrom('file_requests').select('object_key').where('id', '=', old.id).executeTakeFirstOrThrow()
    ).object_key!;
    const { item: fresh } = await request(0);
    const { item: closed, url: closedUrl } = await request(0);
    await put(closedUrl, 'bytes 0-1/4', Buffer.from('ab'));
    expect(existsSync(files.partialOf(closed.id))).toBe(true);
    await h.db
      .updateTable('device_tasks')
      .set({ state: 'failed', error: 'gone' })
      .where('id', '=', closed.taskId)
      .execute();
    await h.db
      .updateTable('file_requests')
      .set({ created_at: new Date(Date.now() - 31 * 86_400_000) })
      .where('id', '=', old.id)
      .execute();

    expect(await files.sweep()).toBe(1);
    expect(await itemOf(A.token, old.id)).toBeUndefined();
    expect(existsSync(h.app.storage.pathOf(key))).toBe(false);
    expect(await h.db.selectFrom('objects').select('key').where('key', '=', key).executeTakeFirst()).toBeUndefined();
    expect(await itemOf(A.token, fresh.id)).toBeTruthy();
    expect(existsSync(files.partialOf(closed.id))).toBe(false);
    expect((await itemOf(A.token, closed.id)).state).toBe('failed');
  });
});

describe('with the simulator', () => {
  it('a log file acquired from an offline device after it reconnects, the upload interrupted and resumed', async () => {
    const spec = specs[1];
    const f = await createFleet({
      url: h.app.gateway.deviceUrl,
      specs: [spec],
      seed: 151,
      heartbeatS: 30,
      start: false,
      randomFaults: false,
    });
    fleets.push(f);
    const d = f.devices[0];
    d.uploadChunkBytes = 200;
    d.uploadInterruptions.left = 1;
    const events = await openEvents(h, base, A.token);
    try {
      // asked while the device is off: it waits
      const res = await ask(A.token, { deviceIds: [dev(1)], preset: 'system_log' });
      const item = res.body_.data[0];
      expect(item.state).toBe('waiting');
      expect((await deviceRow(h, spec.sn)).status).not.toBe('online');

      await d.powerOn();
      const ready = await waitUntil(
        'the file ready',
        async () => {
          const i = await itemOf(A.token, item.id);
          return i?.state === 'ready' ? i : null;
        },
        30_000,
      );
      expect(ready.fileName).toBe('system.log');
      await waitUntil('task succeeded', async () => (await taskRow(h, item.taskId)).state === 'succeeded');
      await events.waitFor(
        'ready event',
        (e) => e.type === 'fileAcquisition' && e.data.id === item.id && e.data.state === 'ready',
      );
      // the upload went in several chunks, one of them cut off and resumed after a HEAD
      expect(d.uploadInterruptions.left).toBe(0);
      const dl = await h.call({
        method: 'GET',
        url: `/apiAdmin/fileAcquisition/download?id=${item.id}`,
        token: A.token,
      });
      const file = await h.call({ method: 'GET', url: dl.body_.data.url });
      const text = file.rawPayload.toString('utf8');
      expect(ready.size).toBeGreaterThan(1000);
      expect(text).toContain(`mqtt connecting as ${spec.sn}`);
      expect(file.rawPayload.length).toBe(ready.size);

      // several files matching: one archive holding them
      const many = (await ask(A.token, { deviceIds: [dev(1)], path: '/data/log/*/*.log' })).body_.data[0];
      const archived = await waitUntil('archive ready', async () => {
        const i = await itemOf(A.token, many.id);
        return i?.state === 'ready' ? i : null;
      });
      expect(archived.fileName).toMatch(/\.tar\.gz$/);
      const url2 = (
        await h.call({ method: 'GET', url: `/apiAdmin/fileAcquisition/download?id=${many.id}`, token: A.token })
      ).body_.data.url;
      const tar = gunzipSync((await h.call({ method: 'GET', url: url2 })).rawPayload).toString('latin1');
      expect(tar).toContain('data/log/system/system.log');
      expect(tar).toContain('data/log/print/print.log');

      // nothing there: failed with the device's reason
      const none = (await ask(A.token, { deviceIds: [dev(1)], path: '/sdcard/Download/nothing-*.bin' })).body_.data[0];
      const failed = await waitUntil('failed', async () => {
        const i = await itemOf(A.token, none.id);
        return i?.state === 'failed' ? i : null;
      });
      expect(failed.error).toBe('no such file');
      expect((await list(A.token, '&state=failed')).body_.data.list.map((i: { id: number }) => i.id)).toContain(
        none.id,
      );
    } finally {
      events.close();
    }
  }, 60_000);
});
