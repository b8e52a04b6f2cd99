import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, storedPackage, waitUntil, type Customer } from './device-helpers.ts';

/**
 * End to end with the simulator (issue 15): an app installed on a group of simulated devices — which download it
 * over HTTP, check its SHA-256, install it and report their inventory — then uninstalled; the console's inventories
 * agree with the devices' own at each step. A device offline at the start gets it when it returns; a device whose
 * download arrives corrupted fails with "bad checksum" and a retry sends it again.
 */
let h: Harness;
let A: Customer;
const specs = makeSpecs(4, { seed: 153, prefix: 'APS' });
const badSpec = makeSpecs(1, { seed: 154, prefix: 'APX' });
let ids: Map<string, number>;
let badId: number;
let group: number;
let packageId: number;
const fleets: Fleet[] = [];
const bytes = randomBytes(400_000);

beforeAll(async () => {
  h = await createHarness({ SWEEP_INTERVAL_MS: '200', LAST_SEEN_FLUSH_MS: '100' });
  A = await customer(h);
  ids = await devicesOf(h, A.tenantId, specs);
  badId = (await devicesOf(h, A.tenantId, badSpec)).get(badSpec[0].sn)!;
  group = Number(
    (
      await h.db
        .insertInto('device_groups')
        .values({ tenant_id: A.tenantId, name: 'stores', parent_id: null })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id,
  );
  await h.db
    .updateTable('devices')
    .set({ group_id: group })
    .where('id', 'in', [...ids.values()])
    .execute();
  packageId = (
    await storedPackage(h, A.tenantId, {
      kind: 'app',
      name: 'Shop POS',
      identifier: 'com.shop.pos',
      versionName: '2.0.0',
      versionCode: 200,
      bytes,
      fileName: 'pos.apk',
    })
  ).id;
  // the devices download from the listening server
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const url = h.app.gateway.deviceUrl;
  const common = { url, heartbeatS: 30, randomFaults: false, start: false, workMs: 100 } as const;
  fleets.push(
    await createFleet({ ...common, specs, seed: 153, software: { bytesPerSecond: 1_000_000, installMs: 50 } }),
  );
  fleets.push(await createFleet({ ...common, specs: badSpec, seed: 154, software: { badChecksumRate: 1 } }));
});
afterAll(async () => {
  await Promise.all(fleets.map((f) => f.stop()));
  await h?.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  h.call({ method, url: `/apiAdmin${url}`, token: A.token, ...(payload ? { payload } : {}) });
const detail = async (id: number) => (await call('GET', `/application/deployment/${id}`)).body_.data;
const inventoryOf = async (deviceId: number) =>
  (await call('GET', `/application/device/${deviceId}/inventory`)).body_.data as {
    reportedAt: string | null;
    apps: Array<{ pkg: string; versionName: string; versionCode: number }>;
  };

describe('install and uninstall on a group of simulated devices', () => {
  it('reports each device’s inventory after its hello', async () => {
    const [main] = fleets;
    // three on now; the fourth stays off until the install is under way
    for (const d of main.devices.slice(0, 3)) await d.powerOn();
    await fleets[1].devices[0].powerOn();
    for (const s of specs.slice(0, 3))
      await waitUntil(`${s.sn} inventory`, async () => (await inventoryOf(ids.get(s.sn)!)).reportedAt);
    const inv = await inventoryOf(ids.get(specs[0].sn)!);
    expect(inv.apps.map((a) => a.pkg)).toEqual([
      'com.android.settings',
      'com.android.systemui',
      'com.cloudprint.agent',
    ]);
  });

  it('installs: download, check, install; the offline device gets it when it returns', async () => {
    const res = await call('POST', '/application/deployment', {
      kind: 'app',
      action: 'install',
      packageId,
      groupIds: [group],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.devices).toBe(4);
    const id = res.body_.data.id as number;
    await waitUntil('3 installed', async () => (await detail(id)).counts.succeeded === 3, 30_000);
    let d = await detail(id);
    expect(d.counts.queued).toBe(1); // the one that is off waits
    expect(d.state).toBe('running');
    await fleets[0].devices[3].powerOn();
    await waitUntil('4 installed', async () => (await detail(id)).counts.succeeded === 4, 30_000);
    d = await detail(id);
    expect(d.state).toBe('done');
    expect(
      d.devices.every((x: { stage: string; progress: number }) => x.stage === 'installing' && x.progress === 100),
    ).toBe(true);
    // the console and the devices agree
    for (const s of specs) {
      const sim = fleets[0].get(s.sn).software.apps.get('com.shop.pos');
      expect(sim).toMatchObject({ versionName: '2.0.0', versionCode: 200 });
      await waitUntil(`${s.sn} reports it`, async () =>
        (await inventoryOf(ids.get(s.sn)!)).apps.some((a) => a.pkg === 'com.shop.pos' && a.versionName === '2.0.0'),
      );
    }
    const which = (await call('GET', '/application/installed?identifier=com.shop.pos&versionName=2.0.0')).body_.data;
    expect(which.total).toBe(4);
    expect(which.versions).toEqual([{ versionName: '2.0.0', versionCode: 200, devices: 4 }]);
  });

  it('a corrupted download fails with "bad checksum"; a retry sends it again', async () => {
    const res = await call('POST', '/application/deployment', {
      kind: 'app',
      action: 'install',
      packageId,
      deviceIds: [badId],
    });
    const id = res.body_.data.id as number;
    await waitUntil('failed', async () => (await detail(id)).counts.failed === 1, 30_000);
    expect((await detail(id)).devices[0].error).toContain('bad checksum');
    expect((await call('POST', `/application/deployment/${id}/retry`)).body_.data.tasks).toBe(1);
    await waitUntil('failed again', async () => (await detail(id)).counts.failed === 1, 30_000);
    const tasks = await h.db.selectFrom('device_tasks').select('state').where('device_id', '=', badId).execute();
    expect(tasks).toHaveLength(2);
  });

  it('deploys an AI model and removes it again; the device reports its models', async () => {
    const model = Number(
      (
        await h.db
          .insertInto('packages')
          .values({
            tenant_id: A.tenantId,
            kind: 'model',
            name: 'OCR lite',
            identifier: 'ocr-lite',
            version_name: '1.2',
            object_key: (
              await h.db
                .selectFrom('packages')
                .select('object_key')
                .where('id', '=', packageId)
                .executeTakeFirstOrThrow()
            ).object_key,
            size: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const device = ids.get(specs[0].sn)!;
    const models = async () => (await call('GET', `/application/device/${device}/inventory`)).body_.data.models;
    const deploy = await call('POST', '/application/deployment', {
      kind: 'model',
      action: 'install',
      packageId: model,
      deviceIds: [device],
    });
    expect(deploy.statusCode, deploy.body).toBe(200);
    await waitUntil('model deployed', async () => (await detail(deploy.body_.data.id)).counts.succeeded === 1, 30_000);
    await waitUntil('model reported', async () =>
      (await models()).some((m: { name: string }) => m.name === 'ocr-lite'),
    );
    expect(fleets[0].get(specs[0].sn).software.models.get('ocr-lite')).toMatchObject({ version: '1.2' });
    const remove = await call('POST', '/application/deployment', {
      kind: 'model',
      action: 'uninstall',
      identifier: 'ocr-lite',
      deviceIds: [device],
    });
    await waitUntil('model removed', async () => (await detail(remove.body_.data.id)).counts.succeeded === 1, 30_000);
    await waitUntil('model gone', async () => (await models()).length === 0);
  });

  it('uninstalls from the group: gone on the devices and in the console', async () => {
    const res = await call('POST', '/application/deployment', {
      kind: 'app',
      action: 'uninstall',
      identifier: 'com.shop.pos',
      groupIds: [group],
    });
    expect(res.body_.data).toMatchObject({ devices: 4, skipped: 0 });
    const id = res.body_.data.id as number;
    await waitUntil('4 removed', async () => (await detail(id)).counts.succeeded === 4, 30_000);
    for (const s of specs) {
      expect(fleets[0].get(s.sn).software.apps.has('com.shop.pos')).toBe(false);
      await waitUntil(`${s.sn} reports it gone`, async () =>
        (await inventoryOf(ids.get(s.sn)!)).apps.every((a) => a.pkg !== 'com.shop.pos'),
      );
    }
    expect((await call('GET', '/application/installed?identifier=com.shop.pos')).body_.data.total).toBe(0);
  });
});
