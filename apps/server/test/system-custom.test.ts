import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import sharp from 'sharp';
import { verifyProfilePassword, type ProfilePasswordHash } from '@cpc/contracts/device-protocol';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, multipart, PNG_1x1, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, storedPackage, waitUntil, type Customer } from './device-helpers.ts';

/**
 * System customization (issue 16): media checked by their bytes, profile refusals, versions, write-only passwords
 * (never in an answer, the system log or the server log), resolution (device beats group, nearest group beats
 * farther, unassigning falls back), apply_profile tasks carried out by simulated devices over MQTT (online now,
 * offline on reconnect, a failure with its reason), drift reported by a device and cleared, tenant isolation.
 */
let h: Harness;
let A: Customer;
let B: Customer;
const specs = makeSpecs(4, { seed: 161, prefix: 'SCA' });
const failSpec = makeSpecs(1, { seed: 162, prefix: 'SCF' });
const bSpec = makeSpecs(1, { seed: 163, prefix: 'SCB' });
let ids: number[] = [];
let failId: number;
let bDevice: number;
let top: number;
let shop: number;
let bGroup: number;
const fleets: Fleet[] = [];
/** Every answer body the tests received, and every line the server logged. */
const answers: string[] = [];
const logLines: string[] = [];
const KIOSK_PASSWORD = 'Kiosk-Exit-8841';
const UNLOCK_PASSWORD = 'Unlock-Apps-5521';

const group = async (tenantId: number, name: string, parentId: number | null) =>
  Number(
    (
      await h.db
        .insertInto('device_groups')
        .values({ tenant_id: tenantId, name, parent_id: parentId })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id,
  );

beforeAll(async () => {
  h = await createHarness({ SWEEP_INTERVAL_MS: '200', LAST_SEEN_FLUSH_MS: '100', LOG_LEVEL: 'trace' });
  // everything the server logs from now on is kept (and searched for the passwords)
  const stream = (h.app.log as unknown as Record<symbol, { write: (s: string) => boolean }>)[pino.symbols.streamSym];
  stream.write = (s: string) => {
    logLines.push(s);
    return true;
  };
  A = await customer(h);
  B = await customer(h);
  const m = await devicesOf(h, A.tenantId, specs);
  ids = specs.map((s) => m.get(s.sn)!);
  failId = (await devicesOf(h, A.tenantId, failSpec)).get(failSpec[0].sn)!;
  bDevice = (await devicesOf(h, B.tenantId, bSpec)).get(bSpec[0].sn)!;
  top = await group(A.tenantId, 'all shops', null);
  shop = await group(A.tenantId, 'shop 1', top);
  bGroup = await group(B.tenantId, 'b stores', null);
  // d0, d1 in "shop 1" (child of "all shops"), d2 in "all shops", d3 in no group
  await h.db.updateTable('devices').set({ group_id: shop }).where('id', 'in', [ids[0], ids[1]]).execute();
  await h.db.updateTable('devices').set({ group_id: top }).where('id', '=', ids[2]).execute();
  for (const [identifier, name] of [
    ['com.shop.pos', 'Shop POS'],
    ['com.shop.kiosk', 'Shop Kiosk'],
  ])
    await storedPackage(h, A.tenantId, { kind: 'app', name, identifier, versionName: '1.0.0', versionCode: 100 });
  await storedPackage(h, B.tenantId, {
    kind: 'app',
    name: 'Other',
    identifier: 'com.other.app',
    versionName: '1.0.0',
  });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const common = { url: h.app.gateway.deviceUrl, heartbeatS: 30, randomFaults: false, start: false, workMs: 50 };
  fleets.push(await createFleet({ ...common, specs, seed: 161 }));
  fleets.push(await createFleet({ ...common, specs: failSpec, seed: 162, profile: { requireInstalledApps: true } }));
  // three of A's devices on now; the fourth stays off (offline delivery)
  for (const d of fleets[0].devices.slice(0, 3)) await d.powerOn();
  await fleets[1].devices[0].powerOn();
});
afterAll(async () => {
  await Promise.all(fleets.map((f) => f.stop()));
  await h?.close();
});

const callAs = async (token: string, method: 'GET' | 'POST', url: string, payload?: unknown) => {
  const res = await h.call({
    method,
    url: `/apiAdmin${url}`,
    token,
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
  });
  answers.push(res.body);
  return res;
};
const call = (method: 'GET' | 'POST', url: string, payload?: unknown) => callAs(A.token, method, url, payload);

async function upload(name: string, bytes: Buffer, token = A.token) {
  const t = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken?bucket=custom', token });
  expect(t.statusCode, t.body).toBe(200);
  expect(t.body_.data.accept).toContain('video/mp4');
  return h.call({
    method: 'POST',
    url: '/apiAdmin/upload',
    ...multipart({ token: t.body_.data.token }, { name, bytes }),
  });
}
async function uploaded(name: string, bytes: Buffer): Promise<string> {
  const res = await upload(name, bytes);
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data.key;
}

/** A zip of these entries (stored, no compression). */
function zip(entries: Array<[string, Buffer]>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const n = Buffer.from(name);
    const l = Buffer.alloc(30);
    l.writeUInt32LE(0x04034b50, 0);
    l.writeUInt16LE(20, 4);
    l.writeUInt32LE(data.length, 18);
    l.writeUInt32LE(data.length, 22);
    l.writeUInt16LE(n.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt32LE(data.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(n.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(l, n, data);
    centrals.push(c, n);
    offset += 30 + n.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const e = Buffer.alloc(22);
  e.writeUInt32LE(0x06054b50, 0);
  e.writeUInt16LE(entries.length, 8);
  e.writeUInt16LE(entries.length, 10);
  e.writeUInt32LE(cd.length, 12);
  e.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, e]);
}
const MP4 = Buffer.concat([
  Buffer.from('000000206674797069736f6d0000020069736f6d69736f32617663316d703431', 'hex'),
  randomBytes(2000),
]);
const png = (w: number, h_: number, color = '#0a6') =>
  sharp({ create: { width: w, height: h_, channels: 3, background: color } })
    .png()
    .toBuffer();
const jpeg = (w: number, h_: number) =>
  sharp({ create: { width: w, height: h_, channels: 3, background: '#a60' } })
    .jpeg()
    .toBuffer();

let wallpaperKey: string;
let framesKey: string;
let videoKey: string;
let tinyKey: string;

describe('media of the custom bucket, checked by their bytes', () => {
  it('takes images, video and zips of frames', async () => {
    wallpaperKey = await uploaded('wall.png', await png(480, 320));
    framesKey = await uploaded(
      'boot.zip',
      zip([
        ['frames/', Buffer.alloc(0)],
        ['frames/001.png', await png(64, 64)],
        ['frames/002.jpg', await jpeg(64, 64)],
      ]),
    );
    videoKey = await uploaded('boot.mp4', MP4);
    tinyKey = await uploaded('tiny.png', PNG_1x1);
  });

  it('refuses a file that is not what it claims', async () => {
    const cases: Array<[string, Buffer, string]> = [
      ['photo.png', await jpeg(10, 10), 'systemCustom.fileType'],
      ['boot.mp4', Buffer.from('just some text, not a video at all'), 'systemCustom.fileType'],
      ['app.exe', MP4, 'systemCustom.fileType'],
      ['boot.zip', zip([['readme.txt', Buffer.from('hello')]]), 'systemCustom.zipEntry'],
      ['boot.zip', zip([['001.png', await jpeg(8, 8)]]), 'systemCustom.zipEntry'],
      ['boot.zip', zip([['empty/', Buffer.alloc(0)]]), 'systemCustom.zipEmpty'],
    ];
    for (const [name, bytes, key] of cases) {
      const res = await upload(name, bytes);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(400);
      expect(res.body_.data.fields[0]).toMatchObject({ field: 'file', key });
    }
  });
});

const kiosk = { enabled: true, pkg: 'com.shop.kiosk', exitPassword: KIOSK_PASSWORD };
const fullProfile = () => ({
  name: 'Brand A',
  description: 'shops',
  bootAnimation: { key: framesKey, fps: 12, loop: true },
  desktop: {
    columns: 4,
    rows: 5,
    iconSize: 'large',
    apps: ['com.shop.pos', 'com.shop.kiosk'],
    hiddenSystemIcons: ['settings'],
  },
  wallpaper: { key: wallpaperKey, fit: 'fill' },
  defaultStartApp: { pkg: 'com.shop.pos', delaySec: 5 },
  topScreen: kiosk,
  appLock: { mode: 'block', packages: ['com.android.settings'], unlockPassword: UNLOCK_PASSWORD },
});

describe('refusals', () => {
  it('refuses media that does not fit its part, apps the customer does not own, a missing password', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ wallpaper: { key: videoKey } }, 'wallpaper.key', 'systemCustom.notWallpaper'],
      [{ wallpaper: { key: tinyKey } }, 'wallpaper.key', 'systemCustom.wallpaperPixels'],
      [{ bootAnimation: { key: tinyKey } }, 'bootAnimation.key', 'systemCustom.notAnimation'],
      [{ defaultStartApp: { pkg: 'com.other.app' } }, 'defaultStartApp.pkg', 'systemCustom.unknownApp'],
      [
        { topScreen: { enabled: true, pkg: 'com.shop.kiosk' } },
        'topScreen.exitPassword',
        'systemCustom.passwordRequired',
      ],
      [
        { topScreen: { enabled: true, pkg: 'com.nobody.app', exitPassword: 'abcdef' } },
        'topScreen.pkg',
        'systemCustom.unknownApp',
      ],
      [
        { desktop: { columns: 4, rows: 4, apps: ['com.shop.pos', 'com.other.app'] } },
        'desktop.apps.1',
        'systemCustom.unknownApp',
      ],
      [
        { appLock: { mode: 'allow', packages: ['com.shop.pos'] } },
        'appLock.unlockPassword',
        'systemCustom.passwordRequired',
      ],
    ];
    for (const [part, field, key] of cases) {
      const res = await call('POST', '/systemCustom/profile/create', { name: 'bad', ...part });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body_.data.fields[0]).toMatchObject({ field, key });
    }
    // the refusal names the app
    const named = await call('POST', '/systemCustom/profile/create', {
      name: 'bad',
      defaultStartApp: { pkg: 'com.other.app' },
    });
    expect(named.body_.msg).toContain('com.other.app');
    // bad input: a package name, a key of another tenant's upload
    const badName = await call('POST', '/systemCustom/profile/create', { name: 'bad', defaultStartApp: { pkg: 'no' } });
    expect(badName.statusCode).toBe(400);
    const t = await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/getQnToken?bucket=custom', token: B.token });
    const bUpload = await h.call({
      method: 'POST',
      url: '/apiAdmin/upload',
      ...multipart({ token: t.body_.data.token }, { name: 'b.png', bytes: await png(480, 320) }),
    });
    const foreign = await call('POST', '/systemCustom/profile/create', {
      name: 'bad',
      wallpaper: { key: bUpload.body_.data.key },
    });
    expect(foreign.statusCode).toBe(404);
    // nothing was made
    const list = await call('GET', '/systemCustom/profile/list');
    expect(list.body_.data.total).toBe(0);
  });
});

let brand: number;

describe('versions and write-only passwords', () => {
  it('drafts, publishes, edits into a new draft; published versions never change', async () => {
    const res = await call('POST', '/systemCustom/profile/create', fullProfile());
    expect(res.statusCode, res.body).toBe(200);
    brand = res.body_.data.id;
    let d = (await call('GET', `/systemCustom/profile/detail?id=${brand}`)).body_.data;
    expect(d.version).toBeNull();
    expect(d.draft.state).toBe('draft');
    expect(d.current).toBeNull();
    expect(d.parts).toEqual(['bootAnimation', 'desktop', 'wallpaper', 'defaultStartApp', 'topScreen', 'appLock']);
    expect(d.draft.settings.bootAnimation).toMatchObject({ format: 'frames', frames: 2, fps: 12 });
    expect(d.draft.settings.wallpaper).toMatchObject({ width: 480, height: 320, fit: 'fill', mime: 'image/png' });
    expect(d.draft.settings.topScreen).toEqual({ enabled: true, pkg: 'com.shop.kiosk', passwordSet: true });
    expect(d.draft.settings.appLock).toMatchObject({ passwordSet: true });

    const p1 = await call('POST', '/systemCustom/profile/publish', { id: brand });
    expect(p1.body_.data).toMatchObject({ version: 1, queued: 0 });
    // nothing left to publish
    const again = await call('POST', '/systemCustom/profile/publish', { id: brand });
    expect(again.statusCode).toBe(409);

    // an edit without the password keeps it; the published version stays as it was
    const up = await call('POST', '/systemCustom/profile/update', {
      id: brand,
      wallpaper: { key: wallpaperKey, fit: 'center' },
      topScreen: { enabled: true, pkg: 'com.shop.kiosk' },
    });
    expect(up.statusCode, up.body).toBe(200);
    d = (await call('GET', `/systemCustom/profile/detail?id=${brand}`)).body_.data;
    expect(d.hasDraft).toBe(true);
    expect(d.current.version).toBe(1);
    expect(d.current.settings.wallpaper.fit).toBe('fill');
    expect(d.draft.settings.wallpaper.fit).toBe('center');
    expect(d.draft.settings.topScreen.passwordSet).toBe(true);
    const v1 = await h.db
      .selectFrom('custom_profile_versions')
      .selectAll()
      .where('profile_id', '=', brand)
      .orderBy('version')
      .execute();
    expect(v1.map((v) => v.version)).toEqual([1, null]);
    expect(v1[1].kiosk_password).toEqual(v1[0].kiosk_password);
    expect(v1[1].hash).not.toBe(v1[0].hash);

    const p2 = await call('POST', '/systemCustom/profile/publish', { id: brand });
    expect(p2.body_.data.version).toBe(2);
    d = (await call('GET', `/systemCustom/profile/detail?id=${brand}`)).body_.data;
    expect(d.history.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(d.history[1].settings.wallpaper.fit).toBe('fill');
    expect(d.draft).toBeNull();

    // a new name alone makes no new version; publishing nothing is refused before anything changes
    const renamed = await call('POST', '/systemCustom/profile/update', { id: brand, name: 'Brand A (renamed)' });
    expect(renamed.statusCode).toBe(200);
    const nothing = await call('POST', '/systemCustom/profile/update', { id: brand, name: 'x', publish: true });
    expect(nothing.statusCode).toBe(409);
    d = (await call('GET', `/systemCustom/profile/detail?id=${brand}`)).body_.data;
    expect(d).toMatchObject({ name: 'Brand A (renamed)', hasDraft: false, version: 2 });
    await call('POST', '/systemCustom/profile/update', { id: brand, name: 'Brand A' });
  });

  it('stores the passwords as salted scrypt hashes a device can check', async () => {
    const v = await h.db
      .selectFrom('custom_profile_versions')
      .selectAll()
      .where('profile_id', '=', brand)
      .where('version', '=', 2)
      .executeTakeFirstOrThrow();
    const k = v.kiosk_password as unknown as ProfilePasswordHash;
    expect(k.alg).toBe('scrypt');
    expect(verifyProfilePassword(KIOSK_PASSWORD, k)).toBe(true);
    expect(verifyProfilePassword('wrong', k)).toBe(false);
    expect(verifyProfilePassword(UNLOCK_PASSWORD, v.applock_password as unknown as ProfilePasswordHash)).toBe(true);
    expect(JSON.stringify(v.settings)).not.toContain(KIOSK_PASSWORD);
  });
});

const deviceView = async (deviceId: number, token = A.token) =>
  (await callAs(token, 'GET', `/systemCustom/device?deviceId=${deviceId}`)).body_.data;
const create = async (name: string, extra: Record<string, unknown> = {}) => {
  const res = await call('POST', '/systemCustom/profile/create', {
    name,
    desktop: { columns: 3, rows: 3, apps: ['com.shop.pos'] },
    publish: true,
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data.id as number;
};
const assign = async (id: number, targets: { deviceIds?: number[]; groupIds?: number[] }, unassign = false) => {
  const res = await call('POST', '/systemCustom/profile/assign', { id, ...targets, unassign });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data as { queued: number; affected: number };
};
const sim = (i: number) => fleets[0].get(specs[i].sn);
const applied = (deviceId: number, profileId: number) =>
  waitUntil(
    `device ${deviceId} applies profile ${profileId}`,
    async () => {
      const v = await deviceView(deviceId);
      return v.profile?.id === profileId && v.state === 'applied' && v.appliedVersionId === v.desiredVersionId && v;
    },
    30_000,
  );

let shopProfile: number;
let deviceProfile: number;

describe('resolution and apply tasks with simulated devices', () => {
  it('group assignment: every device of the group and its sub-groups applies it; the offline one on reconnect', async () => {
    const a = h.app.server.address() as { port: number };
    const base = `http://127.0.0.1:${a.port}`;
    const [evA, evB] = [await openEvents(h, base, A.token), await openEvents(h, base, B.token)];
    const r = await assign(brand, { groupIds: [top] });
    // d0, d1 (shop 1 under all shops) and d2; d3 is in no group
    expect(r).toEqual({ queued: 3, affected: 3 });
    for (const i of [0, 1, 2]) {
      const v = await applied(ids[i], brand);
      expect(v).toMatchObject({ source: 'group', groupId: top, desiredVersion: 2, drift: false });
    }
    // the devices run exactly the published configuration, media downloaded and checked
    const version = await h.db
      .selectFrom('custom_profile_versions')
      .select(['hash', 'settings'])
      .where('profile_id', '=', brand)
      .where('version', '=', 2)
      .executeTakeFirstOrThrow();
    for (const i of [0, 1, 2]) {
      expect(sim(i).customization.report().hash).toBe(version.hash);
      expect(sim(i).customization.effective.topScreen).toMatchObject({ enabled: true, pkg: 'com.shop.kiosk' });
      expect(sim(i).customization.media.size).toBe(2);
    }
    // the consoles of the tenant hear of it live, another tenant's do not
    await evA.waitFor('a systemCustom event', (e) => e.type === 'systemCustom' && e.data.deviceIds.includes(ids[0]));
    expect(evB.events.filter((e) => e.type === 'systemCustom')).toEqual([]);
    evA.close();
    evB.close();
    const list = (await call('GET', `/systemCustom/profile/devices?id=${brand}`)).body_.data;
    expect(list.total).toBe(3);
    expect(list.list.every((x: { state: string }) => x.state === 'applied')).toBe(true);

    // the device in no group is moved into "shop 1" while off: resolved by the periodic reconcile, queued
    await h.db.updateTable('devices').set({ group_id: shop }).where('id', '=', ids[3]).execute();
    await h.app.systemCustom.reconcileAll();
    expect(await deviceView(ids[3])).toMatchObject({ state: 'queued', source: 'group', groupId: top });
    await sim(3).powerOn();
    await applied(ids[3], brand);
  });

  it('device beats group, the nearest group beats farther; unassigning falls back', async () => {
    shopProfile = await create('Shop 1 only');
    deviceProfile = await create('Counter 0');
    expect((await assign(shopProfile, { groupIds: [shop] })).queued).toBe(3); // d0, d1, d3
    expect((await assign(deviceProfile, { deviceIds: [ids[0]] })).queued).toBe(1);
    const d0 = await applied(ids[0], deviceProfile);
    expect(d0.source).toBe('device');
    expect(d0.candidates.map((c: { profileId: number }) => c.profileId)).toEqual([deviceProfile, shopProfile, brand]);
    expect(d0.rule).toBe('device-beats-group, nearest-group-beats-farther');
    expect(await applied(ids[1], shopProfile)).toMatchObject({ source: 'group', groupId: shop, groupName: 'shop 1' });
    expect(await applied(ids[2], brand)).toMatchObject({ source: 'group', groupId: top });
    await applied(ids[3], shopProfile);

    // the device's own goes: back to its nearest group's
    await assign(deviceProfile, { deviceIds: [ids[0]] }, true);
    expect((await applied(ids[0], shopProfile)).source).toBe('group');
    // the nearest group's goes: the farther one's
    await assign(shopProfile, { groupIds: [shop] }, true);
    for (const i of [0, 1, 3]) await applied(ids[i], brand);
    expect((await call('GET', `/systemCustom/profile/devices?id=${shopProfile}`)).body_.data.total).toBe(0);
  });

  it('a new version goes to every device the profile governs; an app not installed fails with its reason', async () => {
    const pub = await call('POST', '/systemCustom/profile/update', {
      id: brand,
      defaultStartApp: { pkg: 'com.shop.kiosk', delaySec: 0 },
      publish: true,
    });
    expect(pub.statusCode, pub.body).toBe(200);
    for (const i of [0, 1, 2, 3]) expect((await applied(ids[i], brand)).desiredVersion).toBe(3);
    expect(sim(0).customization.effective.defaultStartApp).toEqual({ pkg: 'com.shop.kiosk', delaySec: 0 });

    // this device checks that the apps it must start are installed: they are not
    await assign(brand, { deviceIds: [failId] });
    const failed = await waitUntil('apply fails', async () => {
      const v = await deviceView(failId);
      return v.state === 'failed' && v;
    });
    expect(failed.reason).toBe('app com.shop.kiosk is not installed');
    expect(failed.appliedVersionId).toBeNull();
    const list = (await call('GET', `/systemCustom/profile/devices?id=${brand}&state=failed`)).body_.data;
    expect(list.list.map((x: { deviceId: number; reason: string }) => [x.deviceId, x.reason])).toEqual([
      [failId, 'app com.shop.kiosk is not installed'],
    ]);
  });

  it('drift: a device changed on the spot is seen, and cleared when it applies again', async () => {
    const part = await sim(1).driftProfile();
    expect(part).toBe('wallpaper');
    const drifted = await waitUntil('drift seen', async () => {
      const v = await deviceView(ids[1]);
      return v.drift && v;
    });
    expect(drifted.driftFields).toEqual(['wallpaper']);
    expect(drifted.state).toBe('applied');
    const item = (await call('GET', `/systemCustom/profile/list`)).body_.data.list.find(
      (x: { id: number }) => x.id === brand,
    );
    expect(item.drifted).toBe(1);
    const devices = (await call('GET', `/systemCustom/profile/devices?id=${brand}&drift=true`)).body_.data;
    expect(devices.list.map((x: { deviceId: number }) => x.deviceId)).toEqual([ids[1]]);
    // a new version puts it right
    await call('POST', '/systemCustom/profile/update', { id: brand, desktop: { columns: 5, rows: 5 }, publish: true });
    const back = await waitUntil('drift cleared', async () => {
      const v = await deviceView(ids[1]);
      return v.desiredVersion === 4 && v.state === 'applied' && !v.drift && v.reportedAt && v;
    });
    expect(back.driftFields).toEqual([]);
    expect(sim(1).customization.report().hash).toBe(
      (
        await h.db
          .selectFrom('custom_profile_versions')
          .select('hash')
          .where('profile_id', '=', brand)
          .where('version', '=', 4)
          .executeTakeFirstOrThrow()
      ).hash,
    );
  });

  it('a deleted profile: its devices fall back, or go back to the system defaults', async () => {
    const temp = await create('Temporary');
    await assign(temp, { deviceIds: [ids[2], failId] });
    await applied(ids[2], temp);
    const del = await call('POST', '/systemCustom/profile/delete', { id: temp });
    expect(del.statusCode).toBe(200);
    // d2 falls back to its group's; the other had only its own: it is sent an empty configuration
    await applied(ids[2], brand);
    const reset = await waitUntil('defaults applied', async () => {
      const v = await deviceView(failId);
      return v.profile === null && v.state === 'applied' && v;
    });
    expect(reset).toMatchObject({ desiredVersionId: null, drift: false, settings: null });
    const failSim = fleets[1].devices[0].customization;
    expect(failSim.versionId).toBeNull();
    expect(failSim.effective).toEqual({});
  });
});

describe('tenant isolation', () => {
  it("another tenant's profiles, devices and groups are not found", async () => {
    const asB = (method: 'GET' | 'POST', url: string, payload?: unknown) => callAs(B.token, method, url, payload);
    expect((await asB('GET', `/systemCustom/profile/detail?id=${brand}`)).statusCode).toBe(404);
    expect((await asB('GET', `/systemCustom/profile/devices?id=${brand}`)).statusCode).toBe(404);
    expect((await asB('POST', '/systemCustom/profile/update', { id: brand, name: 'x' })).statusCode).toBe(404);
    expect((await asB('POST', '/systemCustom/profile/publish', { id: brand })).statusCode).toBe(404);
    expect((await asB('POST', '/systemCustom/profile/delete', { id: brand })).statusCode).toBe(404);
    expect((await asB('POST', '/systemCustom/profile/assign', { id: brand, deviceIds: [bDevice] })).statusCode).toBe(
      404,
    );
    expect((await asB('GET', `/systemCustom/device?deviceId=${ids[0]}`)).statusCode).toBe(404);
    expect((await asB('GET', '/systemCustom/profile/list')).body_.data.total).toBe(0);
    expect((await asB('GET', '/systemCustom/apps')).body_.data.map((a: { pkg: string }) => a.pkg)).toEqual([
      'com.other.app',
    ]);
    // A cannot reach B's device or group either
    expect((await call('POST', '/systemCustom/profile/assign', { id: brand, deviceIds: [bDevice] })).statusCode).toBe(
      404,
    );
    expect((await call('POST', '/systemCustom/profile/assign', { id: brand, groupIds: [bGroup] })).statusCode).toBe(
      404,
    );
    // and the profile is still A's, unchanged
    expect((await call('GET', `/systemCustom/profile/detail?id=${brand}`)).body_.data.name).toBe('Brand A');
  });
});

describe('the passwords never leave the server in clear', () => {
  it('in no answer, no system-log entry and no server log line', async () => {
    expect(answers.length).toBeGreaterThan(40);
    const hashes = await h.db
      .selectFrom('custom_profile_versions')
      .select(['kiosk_password', 'applock_password'])
      .execute();
    const secrets = [
      KIOSK_PASSWORD,
      UNLOCK_PASSWORD,
      ...hashes.flatMap((v) =>
        [v.kiosk_password, v.applock_password].filter(Boolean).map((x) => (x as unknown as ProfilePasswordHash).hash),
      ),
    ];
    for (const s of secrets) for (const a of answers) expect(a).not.toContain(s);
    const log = await h.db.selectFrom('audit_log').selectAll().where('tenant_id', '=', A.tenantId).execute();
    const actions = log.map((l) => l.action);
    expect(actions).toEqual(
      expect.arrayContaining(['systemCustom.create', 'systemCustom.publish', 'systemCustom.assign']),
    );
    const text = JSON.stringify(log);
    expect(text).not.toContain(KIOSK_PASSWORD);
    expect(text).not.toContain(UNLOCK_PASSWORD);
    // the change is recorded, masked
    const created = log.find((l) => l.action === 'systemCustom.create' && JSON.stringify(l).includes('Brand A'));
    expect(JSON.stringify(created)).toContain('topScreen.exitPassword');
    expect(logLines.length).toBeGreaterThan(40);
    const logged = logLines.join('\n');
    expect(logged).not.toContain(KIOSK_PASSWORD);
    expect(logged).not.toContain(UNLOCK_PASSWORD);
  });
});
