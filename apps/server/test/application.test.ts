import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { PERMISSIONS } from '@cpc/contracts';
import type { InventoryMsg } from '@cpc/contracts/device-protocol';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ApplicationService } from '../src/modules/application/index.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, storedPackage, subAccountWith, type Customer } from './device-helpers.ts';

/**
 * Application management (issue 15): deployments of apps and models to devices and groups, the inventories devices
 * report, "which devices run version X", and the required-apps policy — on a real PostgreSQL.
 */
let h: Harness;
let A: Customer;
let B: Customer;
const specsA = makeSpecs(6, { seed: 151, prefix: 'APA' });
const specsB = makeSpecs(1, { seed: 152, prefix: 'APB' });
let devA: number[] = [];
let devB: number;
let groupParent: number;
let groupChild: number;
let groupB: number;
const pkgs: Record<string, number> = {};

async function addPackage(
  tenantId: number,
  kind: 'app' | 'model',
  identifier: string,
  versionName: string,
  code: number,
) {
  const pkg = await storedPackage(h, tenantId, {
    kind,
    name: `${identifier} app`,
    identifier,
    versionName,
    versionCode: code,
    bytes: randomBytes(2048),
    fileName: 'p.bin',
  });
  return pkg.id;
}

const inv = (apps: Array<[string, number, string]>, models: Array<[string, string]> = []): InventoryMsg => ({
  ts: Date.now(),
  apps: apps.map(([pkg, versionCode, versionName]) => ({ pkg, name: pkg, versionCode, versionName })),
  models: models.map(([name, version]) => ({ name, version, framework: 'onnx' })),
  storageFreeMb: 1000,
});
const report = (deviceId: number, msg: InventoryMsg) => h.app.deviceBus.emit('inventory', deviceId, msg);

const post = (token: string, url: string, payload: unknown) =>
  h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload: payload as Record<string, unknown> });
const get = (token: string, url: string) => h.call({ method: 'GET', url: `/apiAdmin${url}`, token });

beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
  B = await customer(h);
  const ids = await devicesOf(h, A.tenantId, specsA);
  devA = specsA.map((s) => ids.get(s.sn)!);
  devB = (await devicesOf(h, B.tenantId, specsB)).get(specsB[0].sn)!;
  const g = (tenantId: number, name: string, parent: number | null) =>
    h.db
      .insertInto('device_groups')
      .values({ tenant_id: tenantId, name, parent_id: parent })
      .returning('id')
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.id));
  groupParent = await g(A.tenantId, 'shops', null);
  groupChild = await g(A.tenantId, 'shops-north', groupParent);
  groupB = await g(B.tenantId, 'b', null);
  // devices 0,1 in the parent group, 2,3 in its sub-group; 4,5 in none
  await h.db.updateTable('devices').set({ group_id: groupParent }).where('id', 'in', devA.slice(0, 2)).execute();
  await h.db.updateTable('devices').set({ group_id: groupChild }).where('id', 'in', devA.slice(2, 4)).execute();
  pkgs.v1 = await addPackage(A.tenantId, 'app', 'com.shop.pos', '1.0.0', 100);
  pkgs.v2 = await addPackage(A.tenantId, 'app', 'com.shop.pos', '2.0.0', 200);
  pkgs.model = await addPackage(A.tenantId, 'model', 'ocr-lite', '1.2', 0);
  pkgs.other = await addPackage(B.tenantId, 'app', 'com.b.app', '1.0', 1);
  pkgs.req = await addPackage(A.tenantId, 'app', 'com.shop.kiosk', '3.1', 31);
});
afterAll(() => h.close());

describe('deployments', () => {
  let depId: number;
  it('installs on a group and its sub-groups: one task per device, counts per state', async () => {
    const res = await post(A.token, '/application/deployment', {
      kind: 'app',
      action: 'install',
      packageId: pkgs.v2,
      groupIds: [groupParent],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data).toMatchObject({ devices: 4, downgrades: 0, skipped: 0 });
    depId = res.body_.data.id;
    const tasks = await h.db.selectFrom('device_tasks').selectAll().where('tenant_id', '=', A.tenantId).execute();
    expect(tasks.map((t) => Number(t.device_id)).sort((a, b) => a - b)).toEqual(devA.slice(0, 4));
    expect(tasks.every((t) => t.type === 'install_app')).toBe(true);
    expect(tasks[0].params).toMatchObject({
      packageId: pkgs.v2,
      identifier: 'com.shop.pos',
      versionCode: 200,
      action: 'install',
    });
    // the device gets the url at delivery, never stored
    expect(tasks[0].params).not.toHaveProperty('url');

    const list = await get(A.token, '/application/deployment/list');
    expect(list.body_.data.total).toBe(1);
    expect(list.body_.data.list[0]).toMatchObject({ id: depId, state: 'running', total: 4, versionName: '2.0.0' });
    expect(list.body_.data.list[0].counts.queued).toBe(4); // the devices are offline: they get it on their hello

    const detail = await get(A.token, `/application/deployment/${depId}`);
    expect(detail.body_.data.devices).toHaveLength(4);
    expect(detail.body_.data.devices[0]).toMatchObject({ state: 'queued', online: false });
    const log = await h.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'application.install')
      .where('tenant_id', '=', A.tenantId)
      .executeTakeFirst();
    expect(log).toBeTruthy();
  });

  it('cancels the unfinished tasks, then retries the failed ones', async () => {
    // one device finished, one failed before the cancel
    const tasks = await h.db
      .selectFrom('device_tasks')
      .selectAll()
      .where('tenant_id', '=', A.tenantId)
      .orderBy('device_id')
      .execute();
    await h.db.updateTable('device_tasks').set({ state: 'succeeded' }).where('id', '=', tasks[0].id).execute();
    await h.db
      .updateTable('device_tasks')
      .set({ state: 'failed', error: 'not enough storage' })
      .where('id', '=', tasks[1].id)
      .execute();
    const cancel = await post(A.token, `/application/deployment/${depId}/cancel`, {});
    expect(cancel.body_.data).toEqual({ id: depId, tasks: 2 });
    const again = await post(A.token, `/application/deployment/${depId}/cancel`, {});
    expect(again.statusCode).toBe(400);
    let d = (await get(A.token, `/application/deployment/${depId}`)).body_.data;
    expect(d.state).toBe('canceled');
    expect(d.counts).toMatchObject({ succeeded: 1, failed: 1, canceled: 2 });

    const retry = await post(A.token, `/application/deployment/${depId}/retry`, {});
    expect(retry.body_.data).toEqual({ id: depId, tasks: 1 });
    d = (await get(A.token, `/application/deployment/${depId}`)).body_.data;
    expect(d.state).toBe('running');
    expect(d.devices).toHaveLength(4); // the latest task of each device
    expect(d.counts).toMatchObject({ succeeded: 1, failed: 0, queued: 1, canceled: 2 });
    expect((await post(A.token, `/application/deployment/999999/retry`, {})).statusCode).toBe(404);
  });

  it('refuses bad input: other tenant ids → 404, kind mismatch and no target → 400, nothing made', async () => {
    const before = await h.db
      .selectFrom('device_tasks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const cases: Array<[unknown, number, string?]> = [
      [{ kind: 'app', action: 'install', packageId: pkgs.other, deviceIds: [devA[0]] }, 404],
      [{ kind: 'app', action: 'install', packageId: pkgs.v1, deviceIds: [devB] }, 404],
      [{ kind: 'app', action: 'install', packageId: pkgs.v1, groupIds: [groupB] }, 404],
      [{ kind: 'model', action: 'install', packageId: pkgs.v1, deviceIds: [devA[0]] }, 400, 'packageId'],
      [{ kind: 'app', action: 'install', packageId: pkgs.v1 }, 400, 'deviceIds'],
      [{ kind: 'app', action: 'install', deviceIds: [devA[0]] }, 400, 'packageId'],
      [{ kind: 'app', action: 'uninstall', deviceIds: [devA[0]] }, 400, 'identifier'],
      [{ kind: 'app', action: 'install', packageId: 'x', deviceIds: [devA[0]] }, 400, 'packageId'],
      [{ kind: 'app', action: 'install', packageId: pkgs.v1, deviceIds: [devA[0]], extra: 1 }, 400],
    ];
    for (const [body, code, field] of cases) {
      const res = await post(A.token, '/application/deployment', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(code);
      if (field) expect(JSON.stringify(res.body_.data)).toContain(field);
    }
    const after = await h.db
      .selectFrom('device_tasks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('asks application:edit for apps and aiLibrary:edit for models', async () => {
    const aiOnly = await subAccountWith(h, A.tenantId, [PERMISSIONS.aiLibraryEdit, PERMISSIONS.aiLibraryView]);
    const app = await post(aiOnly, '/application/deployment', {
      kind: 'app',
      action: 'install',
      packageId: pkgs.v1,
      deviceIds: [devA[5]],
    });
    expect(app.statusCode).toBe(403);
    const viewer = await subAccountWith(h, A.tenantId, [PERMISSIONS.applicationView]);
    expect(
      (
        await post(viewer, '/application/deployment', {
          kind: 'app',
          action: 'install',
          packageId: pkgs.v1,
          deviceIds: [devA[5]],
        })
      ).statusCode,
    ).toBe(403);
    expect((await get(viewer, '/application/deployment/list')).statusCode).toBe(200);
    // the main account deploys a model: deploy_model tasks
    const model = await post(A.token, '/application/deployment', {
      kind: 'model',
      action: 'install',
      packageId: pkgs.model,
      deviceIds: [devA[5]],
    });
    expect(model.statusCode, model.body).toBe(200);
    const t = await h.db
      .selectFrom('device_tasks')
      .selectAll()
      .where('device_id', '=', devA[5])
      .executeTakeFirstOrThrow();
    expect(t.type).toBe('deploy_model');
    expect(t.params).toMatchObject({ kind: 'model', identifier: 'ocr-lite', action: 'install' });
  });

  it('lists the versions a deployment can install, of the tenant and kind', async () => {
    const apps = (await get(A.token, '/application/packages?kind=app')).body_.data;
    expect(apps.map((p: { versionName: string; identifier: string }) => `${p.identifier}@${p.versionName}`)).toEqual([
      'com.shop.kiosk@3.1',
      'com.shop.pos@2.0.0',
      'com.shop.pos@1.0.0',
    ]);
    expect((await get(A.token, '/application/packages?kind=model')).body_.data).toHaveLength(1);
    expect((await get(A.token, '/application/packages?kind=firmware')).statusCode).toBe(400);
  });

  it('keeps to the caller’s data scope: an "own" user reaches only the devices it bound', async () => {
    const token = await subAccountWith(h, A.tenantId, [PERMISSIONS.applicationView, PERMISSIONS.applicationEdit]);
    const sub = await h.db.selectFrom('users').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    await h.db
      .updateTable('roles')
      .set({ data_scope: 'own' })
      .where('code', 'like', 'sub_%')
      .where('tenant_id', '=', A.tenantId)
      .execute();
    // it owns devA[5] only
    await h.db.updateTable('devices').set({ owner_id: sub.id }).where('id', '=', devA[5]).execute();
    const list = (await get(token, '/application/deployment/list')).body_.data;
    // the model deployment reaches devA[5], but models need aiLibrary:view: nothing listed
    expect(list.total).toBe(0);
    expect(
      (
        await post(token, '/application/deployment', {
          kind: 'app',
          action: 'install',
          packageId: pkgs.v1,
          deviceIds: [devA[0]],
        })
      ).statusCode,
    ).toBe(404);
    // a group's devices outside the scope are left out: the group holds none of its devices
    const g = await post(token, '/application/deployment', {
      kind: 'app',
      action: 'install',
      packageId: pkgs.v1,
      groupIds: [groupParent],
    });
    expect(g.statusCode).toBe(400);
    const mine = await post(token, '/application/deployment', {
      kind: 'app',
      action: 'install',
      packageId: pkgs.v1,
      deviceIds: [devA[5]],
    });
    expect(mine.body_.data.devices).toBe(1);
    const seen = (await get(token, '/application/deployment/list')).body_.data;
    expect(seen.list.map((d: { id: number }) => d.id)).toEqual([mine.body_.data.id]);
    expect((await get(token, `/application/device/${devA[0]}/inventory`)).statusCode).toBe(404);
    await h.db.updateTable('devices').set({ owner_id: null }).where('id', '=', devA[5]).execute();
    await h.db
      .deleteFrom('device_tasks')
      .where(
        'batch_id',
        '=',
        (
          await h.db
            .selectFrom('app_deployments')
            .select('batch_id')
            .where('id', '=', mine.body_.data.id)
            .executeTakeFirstOrThrow()
        ).batch_id,
      )
      .execute();
  });

  it('another tenant sees none of it', async () => {
    const list = await get(B.token, '/application/deployment/list');
    expect(list.body_.data.total).toBe(0);
    const mine = (await get(A.token, '/application/deployment/list')).body_.data.list[0].id;
    expect((await get(B.token, `/application/deployment/${mine}`)).statusCode).toBe(404);
    expect((await post(B.token, `/application/deployment/${mine}/cancel`, {})).statusCode).toBe(404);
    expect((await get(B.token, `/application/device/${devA[0]}/inventory`)).statusCode).toBe(404);
  });
});

describe('inventory', () => {
  it('stores what a device reports, and writes only when it changed', async () => {
    await report(
      devA[4],
      inv(
        [
          ['com.shop.pos', 100, '1.0.0'],
          ['com.android.settings', 30, '11'],
        ],
        [['ocr-lite', '1.0']],
      ),
    );
    const first = await h.db
      .selectFrom('device_inventory')
      .selectAll()
      .where('device_id', '=', devA[4])
      .executeTakeFirstOrThrow();
    await new Promise((r) => setTimeout(r, 20));
    // the same lists in another order: nothing written
    await report(
      devA[4],
      inv(
        [
          ['com.android.settings', 30, '11'],
          ['com.shop.pos', 100, '1.0.0'],
        ],
        [['ocr-lite', '1.0']],
      ),
    );
    const same = await h.db
      .selectFrom('device_inventory')
      .selectAll()
      .where('device_id', '=', devA[4])
      .executeTakeFirstOrThrow();
    expect(same.reported_at).toEqual(first.reported_at);
    // an upgrade: the app row replaced
    await report(
      devA[4],
      inv([
        ['com.shop.pos', 200, '2.0.0'],
        ['com.android.settings', 30, '11'],
      ]),
    );
    const res = await get(A.token, `/application/device/${devA[4]}/inventory`);
    expect(res.body_.data.apps).toEqual([
      { pkg: 'com.android.settings', name: 'com.android.settings', versionCode: 30, versionName: '11' },
      { pkg: 'com.shop.pos', name: 'com.shop.pos', versionCode: 200, versionName: '2.0.0' },
    ]);
    expect(res.body_.data.models).toEqual([]);
    expect(res.body_.data.storageFreeMb).toBe(1000);
  });

  it('answers which devices run version X, with the version distribution', async () => {
    await report(devA[0], inv([['com.shop.pos', 100, '1.0.0']]));
    await report(devA[1], inv([['com.shop.pos', 100, '1.0.0']]));
    await report(devB, inv([['com.shop.pos', 100, '1.0.0']])); // another tenant's device: not counted
    const all = (await get(A.token, '/application/installed?identifier=com.shop.pos')).body_.data;
    expect(all.total).toBe(3);
    expect(all.versions).toEqual([
      { versionName: '1.0.0', versionCode: 100, devices: 2 },
      { versionName: '2.0.0', versionCode: 200, devices: 1 },
    ]);
    const v1 = (await get(A.token, '/application/installed?identifier=com.shop.pos&versionName=1.0.0')).body_.data;
    expect(v1.list.map((d: { deviceId: number }) => d.deviceId).sort()).toEqual([devA[0], devA[1]].sort());
    expect((await get(A.token, '/application/installed')).statusCode).toBe(400);
  });

  it('flags a downgrade and skips an uninstall where it is not installed', async () => {
    const down = await post(A.token, '/application/deployment', {
      kind: 'app',
      action: 'install',
      packageId: pkgs.v1,
      deviceIds: [devA[4]],
    });
    expect(down.body_.data).toMatchObject({ devices: 1, downgrades: 1 });
    const t = await h.db
      .selectFrom('device_tasks')
      .selectAll()
      .where('device_id', '=', devA[4])
      .where('type', '=', 'install_app')
      .executeTakeFirstOrThrow();
    expect(t.params).toMatchObject({ allowDowngrade: false });
    // devA[4] has com.android.settings; devA[0] reported without it; devA[5] never reported (gets the task)
    const un = await post(A.token, '/application/deployment', {
      kind: 'app',
      action: 'uninstall',
      identifier: 'com.android.settings',
      deviceIds: [devA[4], devA[0], devA[5]],
    });
    expect(un.body_.data).toMatchObject({ devices: 2, skipped: 1 });
    const none = await post(A.token, '/application/deployment', {
      kind: 'app',
      action: 'uninstall',
      identifier: 'com.none',
      deviceIds: [devA[0]],
    });
    expect(none.statusCode).toBe(400);
  });
});

describe('required apps', () => {
  it('installs a required app once on each reporting device that lacks it, not again while open or after 3 failures', async () => {
    const bad = await h.call({
      method: 'PUT',
      url: '/apiAdmin/application/required',
      token: A.token,
      payload: { apps: [{ identifier: 'com.b.app' }] },
    });
    expect(bad.statusCode).toBe(400); // another tenant's app is unknown here
    const put = await h.call({
      method: 'PUT',
      url: '/apiAdmin/application/required',
      token: A.token,
      payload: { apps: [{ identifier: 'com.shop.kiosk', minVersionCode: null }] },
    });
    expect(put.statusCode, put.body).toBe(200);
    // the three reporting devices of A (0, 1, 4) get it at once
    expect(put.body_.data.tasks).toBe(3);
    expect(put.body_.data.apps[0]).toMatchObject({
      identifier: 'com.shop.kiosk',
      latestVersionName: '3.1',
      missing: 3,
    });
    const kiosk = () =>
      h.db
        .selectFrom('device_tasks')
        .selectAll()
        .where('tenant_id', '=', A.tenantId)
        .where('type', '=', 'install_app')
        .where(sql<boolean>`params->>'identifier' = 'com.shop.kiosk'`)
        .execute();
    expect(await kiosk()).toHaveLength(3);
    // a newly reporting device (first hello after binding) gets it once; a second report changes nothing
    await report(devA[2], inv([['com.shop.pos', 200, '2.0.0']]));
    await report(devA[2], inv([['com.shop.pos', 200, '2.0.0']]));
    const mine = (await kiosk()).filter((t) => Number(t.device_id) === devA[2]);
    expect(mine).toHaveLength(1);
    expect(mine[0].params).toMatchObject({ policy: true, versionCode: 31 });
    // it fails three times: no fourth
    for (let i = 0; i < 3; i++) {
      await h.db
        .updateTable('device_tasks')
        .set({ state: 'failed' })
        .where('device_id', '=', devA[2])
        .where('type', '=', 'install_app')
        .where('state', '=', 'queued')
        .execute();
      await report(devA[2], inv([['com.shop.pos', 200, `2.0.${i}`]]));
    }
    expect((await kiosk()).filter((t) => Number(t.device_id) === devA[2])).toHaveLength(3);
    // a device that has it installed gets nothing
    await report(devA[3], inv([['com.shop.kiosk', 31, '3.1']]));
    expect((await kiosk()).filter((t) => Number(t.device_id) === devA[3])).toHaveLength(0);
    const list = (await get(A.token, '/application/deployment/list?state=running')).body_.data.list;
    expect(list.some((d: { source: string }) => d.source === 'policy')).toBe(true);
    expect((await get(B.token, '/application/required')).body_.data.apps).toEqual([]);

    // the periodic reconcile: a policy install that failed is sent again without waiting for a report
    await h.db
      .updateTable('device_tasks')
      .set({ state: 'failed' })
      .where('device_id', '=', devA[1])
      .where('type', '=', 'install_app')
      .where('state', '=', 'queued')
      .execute();
    const service = new ApplicationService(h.db, h.app.tasks, { publish: () => {} });
    expect(await service.reconcilePolicy()).toBe(1);
    expect(await service.reconcilePolicy()).toBe(0); // open again: nothing more
    expect((await kiosk()).filter((t) => Number(t.device_id) === devA[1])).toHaveLength(2);
  });
});
