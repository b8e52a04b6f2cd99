import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { OPEN_TASK_STATES } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, storedPackage, type Customer } from './device-helpers.ts';
import { secondNode } from './second-node.ts';

/**
 * Firmware releases (issue 15): waves with a canary, the throttle, soak and promote, the halt on failures, pause,
 * resume, cancel, retry, maintenance windows, refusals, tenant isolation and a restart in the middle.
 * Devices are driven through the task service as the gateway would (progress, result) and come back on the new
 * version (devices.firmware, what their hello writes).
 */
let h: Harness;
let A: Customer;
let B: Customer;
const VERSION = '2.0.0';

async function firmware(
  tenantId: number,
  opts: { models?: string[]; kind?: 'firmware' | 'app'; version?: string } = {},
) {
  const pkg = await storedPackage(h, tenantId, {
    kind: opts.kind ?? 'firmware',
    name: 'fw',
    identifier: 'CPSIM',
    versionName: opts.version ?? `${VERSION}-${randomBytes(2).toString('hex')}`,
    models: opts.models ?? ['CPSIM-58'],
    fileName: 'fw.bin',
  });
  return { id: pkg.id, version: pkg.versionName };
}

let seed = 100;
async function fleet(c: Customer, n: number): Promise<number[]> {
  const specs = makeSpecs(n, { seed: ++seed, prefix: `UPG${seed}` });
  return [...(await devicesOf(h, c.tenantId, specs)).values()];
}

const base = {
  name: 'r',
  canaryPercent: 10,
  soakMinutes: null as number | null,
  throttle: 5,
  window: null as { start: string; end: string } | null,
  failPercent: 20,
  failMinCount: 2,
  expireAt: new Date(Date.now() + 3600_000).toISOString(),
};

async function create(c: Customer, body: Record<string, unknown>) {
  return h.call({
    method: 'POST',
    url: '/apiAdmin/upgrade/release/create',
    token: c.token,
    payload: { ...base, ...body },
  });
}
async function act(c: Customer, action: string, id: number) {
  return h.call({ method: 'POST', url: `/apiAdmin/upgrade/release/${action}`, token: c.token, payload: { id } });
}
async function detail(c: Customer, id: number) {
  const res = await h.call({ method: 'GET', url: `/apiAdmin/upgrade/release/detail?id=${id}`, token: c.token });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data;
}
/** The release's devices that hold an unfinished task now. */
async function open(id: number) {
  return h.db
    .selectFrom('upgrade_devices as ud')
    .innerJoin('device_tasks as t', 't.id', 'ud.task_id')
    .select(['t.id', 'ud.device_id', 'ud.wave', 't.params'])
    .where('ud.release_id', '=', id)
    .where('t.state', 'in', OPEN_TASK_STATES)
    .execute();
}
/** A device works the task through and comes back on `version` (ok), or fails with `error`. */
async function device(t: { id: string; device_id: number }, ok: boolean, version: string, error = 'bad checksum') {
  const deviceId = Number(t.device_id);
  await h.db
    .updateTable('device_tasks')
    .set({ state: 'sent' })
    .where('id', '=', t.id)
    .where('state', '=', 'queued')
    .execute();
  await h.app.tasks.onProgress(deviceId, { id: t.id, progress: 30, stage: 'downloading' });
  if (ok) await h.db.updateTable('devices').set({ firmware: version }).where('id', '=', deviceId).execute();
  await h.app.tasks.onResult(deviceId, ok ? { id: t.id, ok: true, data: { version } } : { id: t.id, ok: false, error });
  await h.app.upgrades.settle();
}

beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
  B = await customer(h);
});
afterAll(() => h.close());

describe('waves, canary, throttle, soak', () => {
  it('runs the canary, soaks, promotes itself and never exceeds the throttle', async () => {
    const ids = await fleet(A, 20);
    const fw = await firmware(A.tenantId);
    const res = await create(A, { packageId: fw.id, targets: { models: ['CPSIM-58'] }, throttle: 3, soakMinutes: 1 });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.body_.data.id;
    expect(res.body_.data.total).toBe(20);
    let d = await detail(A, id);
    expect(d.waves[0].total).toBe(2); // 10 % of 20
    expect(d.waves[1].total).toBe(18);
    expect(d.state).toBe('running');
    // wave 1: the 2 canary devices at once (throttle 3), nothing of wave 2
    let tasks = await open(id);
    expect(tasks.map((t) => t.wave)).toEqual([1, 1]);
    expect(tasks[0].params).toMatchObject({
      packageId: fw.id,
      versionName: fw.version,
      kind: 'firmware',
      releaseId: id,
    });
    for (const t of tasks) await device(t, true, fw.version);
    d = await detail(A, id);
    expect(d.state).toBe('waiting');
    expect(d.counts.verified).toBe(2);
    expect(d.promoteAt).toBeTruthy();
    expect(await open(id)).toHaveLength(0);
    // the soak time runs out (a minute, moved back here): the periodic reconcile starts wave 2
    await h.db
      .updateTable('upgrade_releases')
      .set({ waiting_since: new Date(Date.now() - 61_000) })
      .where('id', '=', id)
      .execute();
    await h.app.upgrades.reconcileAll();
    d = await detail(A, id);
    expect(d.state).toBe('running');
    expect(d.wave).toBe(2);
    let max = 0;
    for (;;) {
      tasks = await open(id);
      if (!tasks.length) break;
      max = Math.max(max, tasks.length);
      expect(tasks.every((t) => t.wave === 2)).toBe(true);
      await device(tasks[0], true, fw.version);
    }
    expect(max).toBe(3);
    d = await detail(A, id);
    expect(d.state).toBe('completed');
    expect(d.counts.verified).toBe(20);
    expect(d.finishedAt).toBeTruthy();
    // the progress chart's timeline: from 0 at the start to every device verified
    expect(d.timeline[0]).toMatchObject({ verified: 0, failed: 0 });
    expect(d.timeline.at(-1)).toMatchObject({ verified: 20, failed: 0 });
    const devices = await h.db.selectFrom('devices').select('firmware').where('id', 'in', ids).execute();
    expect(devices.every((x) => x.firmware === fw.version)).toBe(true);
  });

  it('waits for a manual promote when there is no soak time', async () => {
    const ids = await fleet(A, 4);
    const fw = await firmware(A.tenantId);
    const id = (await create(A, { packageId: fw.id, targets: { deviceIds: ids }, canaryPercent: 25 })).body_.data.id;
    expect((await detail(A, id)).waves[0].total).toBeGreaterThanOrEqual(1);
    for (const t of await open(id)) await device(t, true, fw.version);
    await h.app.upgrades.reconcileAll();
    expect((await detail(A, id)).state).toBe('waiting');
    expect((await detail(A, id)).promoteAt).toBeNull();
    // promote: wave 2 starts
    const p = await act(A, 'promote', id);
    expect(p.statusCode, p.body).toBe(200);
    expect(p.body_.data.state).toBe('running');
    expect((await open(id)).every((t) => t.wave === 2)).toBe(true);
    expect((await open(id)).length).toBeGreaterThan(0);
    // a second promote is refused
    expect((await act(A, 'promote', id)).statusCode).toBe(400);
  });
});

describe('halt, retry, pause, resume, cancel', () => {
  it('halts itself when a wave fails past the threshold; one retry finishes it', async () => {
    const ids = await fleet(A, 10);
    const fw = await firmware(A.tenantId);
    const id = (
      await create(A, {
        packageId: fw.id,
        targets: { deviceIds: ids },
        canaryPercent: 0,
        throttle: 4,
        failPercent: 30,
        failMinCount: 2,
      })
    ).body_.data.id;
    const [t1, t2, t3] = await open(id);
    await device(t1, false, fw.version, 'bad checksum');
    expect((await detail(A, id)).state).toBe('running'); // 1 failure: under the minimum count
    await device(t2, false, fw.version, 'not enough storage');
    let d = await detail(A, id);
    expect(d.state).toBe('halted');
    expect(d.haltReason).toMatch(/2 of 2/);
    expect(d.reasons).toEqual(
      expect.arrayContaining([
        { reason: 'bad checksum', count: 1 },
        { reason: 'not enough storage', count: 1 },
      ]),
    );
    // halted: a device under way finishes, but no new device starts
    const before = (await open(id)).length;
    await device(t3, true, fw.version);
    expect((await open(id)).length).toBe(before - 1);
    // retry: new tasks for the 2 failed devices, then everything goes through
    const r = await act(A, 'retry', id);
    expect(r.statusCode, r.body).toBe(200);
    expect(r.body_.data.state).toBe('running');
    d = await detail(A, id);
    expect(d.counts.failed).toBe(0);
    for (;;) {
      const tasks = await open(id);
      if (!tasks.length) break;
      expect(tasks.length).toBeLessThanOrEqual(4);
      await device(tasks[0], true, fw.version);
    }
    d = await detail(A, id);
    expect(d.state).toBe('completed');
    expect(d.counts.verified).toBe(10);
    expect((await act(A, 'retry', id)).statusCode).toBe(400); // nothing failed any more
  });

  it('pause stops new starts, resume goes on, cancel cancels the open tasks', async () => {
    const ids = await fleet(A, 6);
    const fw = await firmware(A.tenantId);
    const id = (await create(A, { packageId: fw.id, targets: { deviceIds: ids }, canaryPercent: 0, throttle: 2 })).body_
      .data.id;
    const [t1] = await open(id);
    expect((await act(A, 'pause', id)).body_.data.state).toBe('paused');
    await device(t1, true, fw.version);
    expect(await open(id)).toHaveLength(1); // the paused release started nobody
    expect((await act(A, 'resume', id)).body_.data.state).toBe('running');
    expect(await open(id)).toHaveLength(2);
    const c = await act(A, 'cancel', id);
    expect(c.body_.data.state).toBe('canceled');
    expect(await open(id)).toHaveLength(0);
    const d = await detail(A, id);
    expect(d.counts.canceled).toBe(5);
    expect(d.counts.verified).toBe(1);
    expect((await act(A, 'resume', id)).statusCode).toBe(400);
    const log = await h.db
      .selectFrom('audit_log')
      .select('action')
      .where('resource_id', '=', String(id))
      .where('action', 'like', 'upgrade.%')
      .execute();
    expect(log.map((l) => l.action)).toEqual(
      expect.arrayContaining(['upgrade.create', 'upgrade.pause', 'upgrade.resume', 'upgrade.cancel']),
    );
  });

  it('sends nothing while the maintenance window is closed in the device’s zone', async () => {
    const ids = await fleet(A, 3);
    await h.db.updateTable('devices').set({ time_zone: 'Europe/London' }).where('id', 'in', ids).execute();
    const fw = await firmware(A.tenantId);
    const hh = (h: number) => String((((new Date().getUTCHours() + h) % 24) + 24) % 24).padStart(2, '0');
    // London is UTC or UTC+1: a window 3–5 hours ahead of UTC is closed now
    const closed = (
      await create(A, {
        packageId: fw.id,
        targets: { deviceIds: ids },
        canaryPercent: 0,
        window: { start: `${hh(3)}:00`, end: `${hh(5)}:00` },
      })
    ).body_.data.id;
    await h.app.upgrades.reconcileAll();
    expect(await open(closed)).toHaveLength(0);
    expect((await detail(A, closed)).counts.queued).toBe(3);
    await act(A, 'cancel', closed);
    const fw2 = await firmware(A.tenantId);
    const opened = (
      await create(A, {
        packageId: fw2.id,
        targets: { deviceIds: ids },
        canaryPercent: 0,
        window: { start: `${hh(-2)}:00`, end: `${hh(3)}:00` },
      })
    ).body_.data.id;
    expect(await open(opened)).toHaveLength(3);
  });
});

describe('refusals and isolation', () => {
  it('refuses wrong models, other tenants’ packages and devices, expired times and empty targets', async () => {
    const ids = await fleet(A, 3);
    const model = await h.db
      .insertInto('device_models')
      .values({ code: `OTHER-${randomBytes(2).toString('hex')}`, name: 'other', kind: 'printer' })
      .returning(['id', 'code'])
      .executeTakeFirstOrThrow();
    await h.db.updateTable('devices').set({ model_id: model.id }).where('id', '=', ids[0]).execute();
    const sn = (await h.db.selectFrom('devices').select('sn').where('id', '=', ids[0]).executeTakeFirstOrThrow()).sn;
    const fw = await firmware(A.tenantId);
    const wrong = await create(A, { packageId: fw.id, targets: { deviceIds: ids } });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body_.msg).toContain(sn);
    expect(wrong.body_.data.fields[0].field).toBe('targets.deviceIds');
    // by filter: the device that does not fit is left out and counted
    const prev = await h.call({
      method: 'POST',
      url: '/apiAdmin/upgrade/release/preview',
      token: A.token,
      payload: { packageId: fw.id, targets: { deviceIds: ids.slice(1) } },
    });
    expect(prev.body_.data).toEqual({ matched: 2, incompatible: 0, current: 0 });
    const groupless = await h.call({
      method: 'POST',
      url: '/apiAdmin/upgrade/release/preview',
      token: A.token,
      payload: { packageId: fw.id, targets: { models: [model.code, 'CPSIM-58'] } },
    });
    expect(groupless.body_.data.incompatible).toBe(1);

    const bFw = await firmware(B.tenantId);
    expect((await create(A, { packageId: bFw.id, targets: { deviceIds: ids.slice(1) } })).statusCode).toBe(404);
    const bIds = await fleet(B, 1);
    expect((await create(A, { packageId: fw.id, targets: { deviceIds: [ids[1], bIds[0]] } })).statusCode).toBe(404);
    const expired = await create(A, {
      packageId: fw.id,
      targets: { deviceIds: ids.slice(1) },
      expireAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect(expired.statusCode).toBe(400);
    expect(expired.body_.data.fields[0].field).toBe('expireAt');
    expect((await create(A, { packageId: fw.id, targets: {} })).statusCode).toBe(400);
    expect(
      (await create(A, { packageId: fw.id, targets: { deviceIds: ids.slice(1) }, canaryPercent: 60 })).statusCode,
    ).toBe(400);
    const app = await firmware(A.tenantId, { kind: 'app' });
    expect((await create(A, { packageId: app.id, targets: { deviceIds: ids.slice(1) } })).statusCode).toBe(400);
    expect((await create(A, { packageId: 999999, targets: { deviceIds: ids.slice(1) } })).statusCode).toBe(404);
    // nothing was made by any of those
    expect(
      await h.db.selectFrom('upgrade_devices').select('device_id').where('device_id', 'in', ids).execute(),
    ).toHaveLength(0);
  });

  it('another tenant sees none of a release, its devices or its history', async () => {
    const ids = await fleet(A, 2);
    const fw = await firmware(A.tenantId);
    const id = (await create(A, { packageId: fw.id, targets: { deviceIds: ids }, canaryPercent: 0 })).body_.data.id;
    for (const url of [
      `/apiAdmin/upgrade/release/detail?id=${id}`,
      `/apiAdmin/upgrade/release/devices?id=${id}`,
      `/apiAdmin/upgrade/history?deviceId=${ids[0]}`,
    ])
      expect((await h.call({ method: 'GET', url, token: B.token })).statusCode).toBe(404);
    for (const a of ['pause', 'cancel', 'retry', 'promote']) expect((await act(B, a, id)).statusCode).toBe(404);
    const list = await h.call({ method: 'GET', url: '/apiAdmin/upgrade/release/list', token: B.token });
    expect(list.body_.data.list.find((r: { id: number }) => r.id === id)).toBeUndefined();
    const fwList = await h.call({ method: 'GET', url: '/apiAdmin/package/list?kind=firmware', token: B.token });
    expect(fwList.body_.data.list.find((p: { id: number }) => p.id === fw.id)).toBeUndefined();
    const mine = await h.call({ method: 'GET', url: `/apiAdmin/upgrade/release/devices?id=${id}`, token: A.token });
    expect(mine.body_.data.total).toBe(2);
  });
});

describe('a restart in the middle of a roll-out', () => {
  it('a new node picks the roll-out up from the database and finishes it', async () => {
    const ids = await fleet(A, 6);
    const fw = await firmware(A.tenantId);
    const first = await secondNode(h);
    const res = await first.call({
      method: 'POST',
      url: '/apiAdmin/upgrade/release/create',
      token: A.token,
      payload: { ...base, packageId: fw.id, targets: { deviceIds: ids }, canaryPercent: 0, throttle: 2 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.body_.data.id;
    const [t1] = await open(id);
    // the node dies right after a device finished: nobody heard of it
    await first.close();
    await h.db.updateTable('devices').set({ firmware: fw.version }).where('id', '=', t1.device_id).execute();
    await h.db
      .updateTable('device_tasks')
      .set({ state: 'succeeded', progress: 100, finished_at: new Date() })
      .where('id', '=', t1.id)
      .execute();
    // the next node's periodic reconcile reads it back and goes on
    const next = await secondNode(h);
    try {
      await next.app.upgrades.reconcileAll();
      expect((await detail(A, id)).counts.verified).toBe(1);
      for (;;) {
        const tasks = await open(id);
        if (!tasks.length) break;
        expect(tasks.length).toBeLessThanOrEqual(2);
        const t = tasks[0];
        await h.db.updateTable('devices').set({ firmware: fw.version }).where('id', '=', t.device_id).execute();
        await h.db.updateTable('device_tasks').set({ state: 'sent' }).where('id', '=', t.id).execute();
        await next.app.tasks.onResult(Number(t.device_id), { id: t.id, ok: true });
        await next.app.upgrades.settle();
      }
      const d = await detail(A, id);
      expect(d.state).toBe('completed');
      expect(d.counts.verified).toBe(6);
    } finally {
      await next.close();
    }
  });
});
