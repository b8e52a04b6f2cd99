import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { deviceDownloadUrl } from '../src/modules/package/index.ts';
import { enqueueTasks } from '../src/modules/task/index.ts';
import { continueDownload, startDownload } from '../../device-sim/src/download.ts';
import { TenantScope } from '../src/db/tenant-scope.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, storedPackage, taskRow, type Customer } from './device-helpers.ts';

/**
 * The link a device downloads a package by (issue 15): bound to one open task of a package, signed and expiring,
 * with Range requests so an interrupted download resumes where it stopped.
 */
let h: Harness;
let A: Customer;
let deviceId: number;
let packageId: number;
const bytes = randomBytes(300_000);
const sha256 = createHash('sha256').update(bytes).digest('hex');
const specs = makeSpecs(1, { seed: 77, prefix: 'DLT' });

beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
  deviceId = (await devicesOf(h, A.tenantId, specs)).get(specs[0].sn)!;
  packageId = (
    await storedPackage(h, A.tenantId, {
      kind: 'firmware',
      name: 'fw',
      identifier: 'CP58',
      versionName: '2.0.0',
      bytes,
      fileName: 'fw.bin',
    })
  ).id;
});
afterAll(() => h.close());

async function upgradeTask(expireAt = new Date(Date.now() + 3600_000)) {
  const [row] = await enqueueTasks(new TenantScope(h.db, A.tenantId), [
    { deviceId, type: 'upgrade', params: { packageId }, expireAt, createdBy: null },
  ]);
  // the device took it (sent): its link is alive while the task is open
  await h.db.updateTable('device_tasks').set({ state: 'sent' }).where('id', '=', row.id).execute();
  return { id: row.id, url: deviceDownloadUrl(h.app.storage, row.id, expireAt) };
}

describe('device download link', () => {
  it('serves the whole package, then the rest of it from an offset (resume)', async () => {
    const { url } = await upgradeTask();
    const whole = await h.call({ method: 'GET', url });
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(bytes)).toBe(true);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['x-content-sha256']).toBe(sha256);

    const rest = await h.call({ method: 'GET', url, headers: { range: 'bytes=100000-' } });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes 100000-${bytes.length - 1}/${bytes.length}`);
    expect(rest.rawPayload.equals(bytes.subarray(100_000))).toBe(true);

    const beyond = await h.call({ method: 'GET', url, headers: { range: `bytes=${bytes.length + 10}-` } });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.body_.code).toBe(416);
  });

  it('refuses a tampered, expired or finished link, and one of a task without a package', async () => {
    const { id, url } = await upgradeTask();
    const tampered = await h.call({
      method: 'GET',
      url: url.replace(/sig=(.)/, (_, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`),
    });
    expect(tampered.statusCode).toBe(403);
    const other = await h.call({ method: 'GET', url: url.replace(id, '00000000-0000-4000-8000-000000000000') });
    expect(other.statusCode).toBe(403);

    const expired = deviceDownloadUrl(h.app.storage, id, new Date(Date.now() - 1000));
    expect((await h.call({ method: 'GET', url: expired })).statusCode).toBe(403);

    await h.db.updateTable('device_tasks').set({ state: 'succeeded' }).where('id', '=', id).execute();
    const done = await h.call({ method: 'GET', url });
    expect(done.statusCode).toBe(404);
    expect(done.body_.msg).toMatch(/exist|不存在/);

    const [reboot] = await enqueueTasks(new TenantScope(h.db, A.tenantId), [
      { deviceId, type: 'reboot', params: { packageId }, expireAt: new Date(Date.now() + 60_000), createdBy: null },
    ]);
    await h.db.updateTable('device_tasks').set({ state: 'sent' }).where('id', '=', reboot.id).execute();
    expect(
      (await h.call({ method: 'GET', url: deviceDownloadUrl(h.app.storage, reboot.id, new Date(Date.now() + 60_000)) }))
        .statusCode,
    ).toBe(404);
  });

  it('a simulated device downloads at its speed, is cut off, and resumes from where it stopped', async () => {
    const address = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { url } = await upgradeTask();
    const part = startDownload(address + url);
    const cut = new AbortController();
    const seen: number[] = [];
    // 300 kB at 400 kB/s: cut after about a third
    setTimeout(() => cut.abort(new Error('power cut')), 250);
    await expect(
      continueDownload(part, address + url, {
        bytesPerSecond: 400_000,
        signal: cut.signal,
        onProgress: (p) => seen.push(p),
      }),
    ).rejects.toThrow();
    expect(part.received).toBeGreaterThan(0);
    expect(part.received).toBeLessThan(bytes.length);
    const before = part.received;
    const digest = await continueDownload(part, address + url, { bytesPerSecond: 0, onProgress: (p) => seen.push(p) });
    expect(digest).toBe(sha256);
    expect(part.received).toBe(bytes.length);
    expect(before).toBeGreaterThan(0);
    expect(seen.at(-1)).toBe(100);
  });

  it('a progress with a stage is kept on the task and told to listeners', async () => {
    const { id } = await upgradeTask();
    const heard: string[] = [];
    h.app.tasks.onChange((r) => r.id === id && heard.push(`${r.stage}:${r.progress}`));
    await h.app.tasks.onProgress(deviceId, { id, progress: 40, stage: 'downloading' });
    await h.app.tasks.onProgress(deviceId, { id, progress: 100, stage: 'downloading' });
    // a new stage starts its own percentage again
    await h.app.tasks.onProgress(deviceId, { id, progress: 0, stage: 'installing' });
    // a repeat changes nothing
    await h.app.tasks.onProgress(deviceId, { id, progress: 0, stage: 'installing' });
    // progress reports are written without a waiter, one after the other per device
    await h.app.tasks.settled(deviceId);
    expect(heard).toEqual(['downloading:40', 'downloading:100', 'installing:0']);
    const row = await taskRow(h, id);
    expect(row.stage).toBe('installing');
    expect(row.state).toBe('running');
  });
});
