import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_PERMISSIONS, type DataScope } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { bindInDb, registerInDb } from '../../device-sim/src/register-db.ts';
import { deviceFaultMessages } from '../src/modules/inbox/index.ts';
import { sweepSims } from '../src/modules/flow-rate/index.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, storedPackage, type Customer } from './device-helpers.ts';
import { createKey, nextOrigin, openCall } from './open-helpers.ts';

/**
 * The data-scope matrix: every read operation of both API documents (the console's and the open API's), called by
 * sub-accounts holding every tenant permission with the scopes `own`, `department` and `all`, never answers data
 * of a device outside the caller's scope — its serial, name, ICCID or id. The `all` account makes the same calls
 * as the control: a call only proves something when the control's answer does hold the device's data, so an
 * empty or refused answer is never mistaken for safety; and the scoped accounts must still read their own in-scope
 * device through the same operations (they are not simply refused everything).
 *
 * The operations are read from the published documents, so a new operation is covered the moment it exists:
 * every GET is a read; a POST/PUT/DELETE is either a side-effect-free read (READ_POSTS, with the body it is
 * called with) or a write (WRITES); an operation that is neither fails the first test until someone classifies it.
 * Parameters are filled from the schema: ids with the out-of-scope device's id and the ids of the rows linked to it
 * (its task, batch, print job, release, push, deployment, file request, work order, fence, profile), its serial,
 * ICCID; lists also without any filter.
 */

let h: Harness;
let A: Customer;

const post = async (url: string, token: string, payload: unknown) => {
  const res = await h.call({
    method: 'POST',
    url: `/apiAdmin${url}`,
    token,
    payload: payload as Record<string, unknown>,
  });
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.body_.data;
};

/** Writes: they change something, so the matrix does not call them (the scope of their targets is tested elsewhere). */
const WRITES = new Set([
  'post /apiAdmin/sms/send',
  'post /apiAdmin/register',
  'post /apiAdmin/user/v1/login',
  'post /apiAdmin/user/login',
  'get /apiAdmin/refreshToken',
  'get /apiAdmin/logout',
  'get /apiAdmin/expireToken',
  'post /apiAdmin/socialLogin',
  'post /apiAdmin/socialLogin/link',
  'post /apiAdmin/socialLogin/identities',
  'delete /apiAdmin/socialLogin/identities/{id}',
  'post /apiAdmin/user/v1/user/checkPassword',
  'post /apiAdmin/user/v1/user/changePassword',
  'post /apiAdmin/user/v1/user/updateProfile',
  'post /apiAdmin/user/v1/user/updateAvatar',
  'post /apiAdmin/user/v1/user/revokeSession',
  'post /apiAdmin/user/v1/user/authenticate',
  'post /apiAdmin/system/identity/approve',
  'post /apiAdmin/system/identity/reject',
  'post /apiAdmin/system/menu/add',
  'post /apiAdmin/system/menu/edit',
  'post /apiAdmin/system/menu/delete',
  'post /apiAdmin/system/menu/move',
  'post /apiAdmin/system/menu/rollback',
  'post /apiAdmin/system/clientError',
  'post /apiAdmin/notice/readAll',
  'post /apiAdmin/notice/manage/create',
  'post /apiAdmin/notice/manage/update',
  'post /apiAdmin/notice/manage/publish',
  'post /apiAdmin/notice/manage/withdraw',
  'post /apiAdmin/notice/manage/delete',
  'post /apiAdmin/aiLibrary/ocr/jobs',
  'post /apiAdmin/aiLibrary/ocr/jobs/{id}/print',
  'post /apiAdmin/message/read',
  'post /apiAdmin/message/readAll',
  'post /apiAdmin/message/delete',
  'post /apiAdmin/admin/admin/getQiniuToken',
  'post /apiAdmin/upload',
  'put /apiAdmin/device-files/upload/{id}',
  'post /apiAdmin/fileAcquisition/request',
  'post /apiAdmin/fileAcquisition/delete',
  'post /apiAdmin/upload/chunks',
  'put /apiAdmin/upload/chunks/{id}',
  'post /apiAdmin/package/create',
  'post /apiAdmin/package/{id}/delete',
  'post /apiAdmin/device/command',
  'post /apiAdmin/device/task/{id}/cancel',
  'post /apiAdmin/upgrade/release/create',
  'post /apiAdmin/upgrade/release/promote',
  'post /apiAdmin/upgrade/release/pause',
  'post /apiAdmin/upgrade/release/resume',
  'post /apiAdmin/upgrade/release/cancel',
  'post /apiAdmin/upgrade/release/retry',
  'post /apiAdmin/push/create',
  'post /apiAdmin/push/retry',
  'post /apiAdmin/push/cancel',
  'post /apiAdmin/application/deployment',
  'post /apiAdmin/application/deployment/{id}/cancel',
  'post /apiAdmin/application/deployment/{id}/retry',
  'put /apiAdmin/application/required',
  'post /apiAdmin/systemCustom/profile/create',
  'post /apiAdmin/systemCustom/profile/update',
  'post /apiAdmin/systemCustom/profile/delete',
  'post /apiAdmin/systemCustom/profile/publish',
  'post /apiAdmin/systemCustom/profile/assign',
  'post /apiAdmin/fence/create',
  'post /apiAdmin/fence/update',
  'post /apiAdmin/fence/delete',
  'post /apiAdmin/device/events/ticket',
  'post /apiAdmin/system/role/create',
  'post /apiAdmin/system/role/update',
  'post /apiAdmin/system/role/copy',
  'post /apiAdmin/system/role/delete',
  'post /apiAdmin/system/role/addMembers',
  'post /apiAdmin/system/role/removeMembers',
  'post /apiAdmin/system/subAccount/create',
  'post /apiAdmin/system/subAccount/update',
  'post /apiAdmin/system/subAccount/state',
  'post /apiAdmin/system/subAccount/resetPassword',
  'post /apiAdmin/system/subAccount/logout',
  'post /apiAdmin/system/subAccount/delete',
  'post /apiAdmin/system/user/create',
  'post /apiAdmin/system/user/update',
  'post /apiAdmin/system/user/state',
  'post /apiAdmin/system/user/resetPassword',
  'post /apiAdmin/system/user/logout',
  'post /apiAdmin/system/user/delete',
  'post /apiAdmin/system/department/add',
  'post /apiAdmin/system/department/edit',
  'post /apiAdmin/system/department/delete',
  'post /apiAdmin/device/bind',
  'post /apiAdmin/device/unbind',
  'post /apiAdmin/device/edit',
  'post /apiAdmin/device/move',
  'post /apiAdmin/device/group/add',
  'post /apiAdmin/device/group/edit',
  'post /apiAdmin/device/group/delete',
  'post /apiAdmin/system/deviceModel/add',
  'post /apiAdmin/system/deviceModel/edit',
  'post /apiAdmin/system/deviceModel/delete',
  'post /apiAdmin/system/deviceRegistry/register',
  'post /apiAdmin/system/deviceRegistry/bindKey',
  'post /apiAdmin/system/deviceRegistry/import',
  'post /apiAdmin/dashboard/target',
  'post /apiAdmin/order/create',
  'post /apiAdmin/order/pay',
  'post /apiAdmin/order/cancel',
  'post /apiAdmin/order/package/create',
  'post /apiAdmin/order/package/update',
  'post /apiAdmin/order/package/shelf',
  'post /apiAdmin/order/package/delete',
  'post /apiAdmin/order/refund',
  'post /apiAdmin/workOrder/read',
  'post /apiAdmin/workOrder/create',
  'post /apiAdmin/workOrder/update',
  'post /apiAdmin/workOrder/withdraw',
  'post /apiAdmin/workOrder/reopen',
  'post /apiAdmin/workOrder/close',
  'post /apiAdmin/workOrder/rate',
  'post /apiAdmin/workOrder/reply',
  'post /apiAdmin/workOrder/take',
  'post /apiAdmin/workOrder/assign',
  'post /apiAdmin/workOrder/resolve',
  'post /apiAdmin/workOrder/targets',
  'post /apiAdmin/workOrder/canned/create',
  'post /apiAdmin/workOrder/canned/update',
  'post /apiAdmin/workOrder/canned/delete',
  'post /apiAdmin/integration/key/create',
  'post /apiAdmin/integration/key/update',
  'post /apiAdmin/integration/key/state',
  'post /apiAdmin/integration/key/rotate',
  'post /apiAdmin/integration/key/delete',
  'post /apiAdmin/integration/job/{id}/cancel',
  'post /apiAdmin/integration/testPrint',
  'post /apiAdmin/integration/webhook/{id}/resend',
  'post /open/v1/print',
  'post /open/v1/print/{id}/cancel',
  'post /open/v1/devices/{sn}/clear',
  'post /open/v1/ai/ocr',
]);

/**
 * Reads the matrix cannot make through `inject`, each with the reason. The live event stream never ends (its
 * per-subscriber filtering is tested with real streams in live-events.test.ts).
 */
const NOT_CALLED: Record<string, string> = {
  'get /apiAdmin/device/events': 'a stream that stays open',
};

/** Side-effect-free POSTs (previews, quotes), with the body each is called with: targets the out-of-scope device. */
const READ_POSTS: Record<string, () => Record<string, unknown>> = {
  'post /apiAdmin/upgrade/release/preview': () => ({ packageId: fx.firmwareId, targets: { deviceIds: [out().id] } }),
  'post /apiAdmin/push/preview': () => ({ targets: { deviceIds: [out().id] } }),
  'post /apiAdmin/order/quote': () => ({ lines: [{ iccid: out().iccid, packageId: 1 }] }),
  'post /apiAdmin/integration/markup/preview': () => ({ content: 'scope', deviceId: out().id }),
};

interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: { type?: string; enum?: unknown[]; default?: unknown; maximum?: number; pattern?: string };
}
interface Operation {
  doc: 'console' | 'open';
  method: string;
  path: string;
  key: string;
  params: Param[];
}

interface Dev {
  id: number;
  sn: string;
  name: string;
  iccid: string;
}
interface Actor {
  name: DataScope;
  id: number;
  token: string;
  /**
   * Its app key for the open API. A key acts for the whole account, so only the `all` actor may make one: the
   * scoped actors' creation is refused (checked below) and the open API's operations are not theirs to call.
   */
  key?: { appId: string; secret: string };
}

/** What the fixture made; `out()` is the device outside the scope of the `own` and `department` actors. */
const fx = {
  devices: {} as Record<'north' | 'northEast' | 'south', Dev>,
  firmwareId: 0,
  appIdentifier: 'com.matrix.scope',
  /** Integer ids of rows about the out-of-scope device (and the device's own). */
  intIds: [] as number[],
  /** String ids of rows about it: its task, its print job. */
  strIds: [] as string[],
  batchId: 0,
  fenceId: 0,
  taskId: '',
  /** The South device's print jobs: through the main account's key and through the control's (the open API's reads). */
  printJobIds: [] as string[],
};
const out = () => fx.devices.south;
/** Where the South device stands, and a firmware only its history names: found in no other row. */
const SOUTH_AT = { lat: 31.98765, lng: 118.76543 };
const SOUTH_FIRMWARE = '1.4.2-dsmx';
const actors: Actor[] = [];

beforeAll(async () => {
  h = await createHarness();
  A = await customer(h);
  const dept = async (name: string, parentId: number | null = null) =>
    (await post('/system/department/add', A.token, { name, parentId })).id as number;
  const north = await dept('North');
  const northEast = await dept('North-East', north);
  const south = await dept('South');

  // three devices, one per department, each with its SIM; names and serials found nowhere else
  const specs = makeSpecs(3, { seed: 2828, prefix: 'DSMX' });
  const names = ['Matrix-N-Kiosk', 'Matrix-NE-Kiosk', 'Matrix-S-Kiosk'];
  await registerInDb(h.db, specs, { plan: () => ({ planMb: 100, usedMb: 95 }) });
  await bindInDb(
    h.db,
    A.tenantId,
    specs.map((s) => s.sn),
    { name: (sn) => names[specs.findIndex((s) => s.sn === sn)] },
  );
  const rows = await h.db
    .selectFrom('devices')
    .select(['id', 'sn', 'name', 'iccid'])
    .where(
      'sn',
      'in',
      specs.map((s) => s.sn),
    )
    .orderBy('sn')
    .execute();
  const [n, ne, s] = rows.map((r) => ({ id: Number(r.id), sn: r.sn, name: r.name, iccid: r.iccid! }));
  fx.devices = { north: n, northEast: ne, south: s };
  for (const [d, department] of [
    [n, north],
    [ne, northEast],
    [s, south],
  ] as const)
    await post('/device/edit', A.token, { id: d.id, departmentId: department });
  await h.db.updateTable('sims').set({ device_id: s.id }).where('iccid', '=', s.iccid).execute();

  // the actors: every tenant permission, one scope each; `own` sits in South but owns only North-East's device
  for (const [scope, departmentId] of [
    ['own', south],
    ['department', north],
    ['all', north],
  ] as const) {
    const code = `matrix_${scope}`;
    const role = await h.db
      .insertInto('roles')
      .values({ tenant_id: A.tenantId, code, name: code, permissions: CUSTOMER_PERMISSIONS, data_scope: scope })
      .returning('id')
      .executeTakeFirstOrThrow();
    const username = `dsm_${randomUUID().slice(0, 8)}`;
    const made = await post('/system/subAccount/create', A.token, {
      username,
      password: 'Sub0Passw0rd',
      confirmPassword: 'Sub0Passw0rd',
      roleIds: [role.id],
      departmentId,
    });
    const token = (await h.login(username, 'Sub0Passw0rd')).token;
    if (scope !== 'all') {
      const refused = await h.call({
        method: 'POST',
        url: '/apiAdmin/integration/key/create',
        token,
        payload: { name: `key of ${scope}` },
      });
      expect(refused.statusCode, refused.body).toBe(403);
    }
    actors.push({ name: scope, id: made.id, token, key: scope === 'all' ? await createKey(h, token) : undefined });
  }
  await h.db.updateTable('devices').set({ owner_id: actors[0].id }).where('id', '=', ne.id).execute();

  // device-linked rows on the in-scope (North-East) and the out-of-scope (South) device, made by the main account
  for (const d of [ne, s]) {
    const cmd = await post('/device/command', A.token, { deviceIds: [d.id], type: 'reboot' });
    if (d === s) [fx.taskId, fx.batchId] = [cmd.taskIds[0], cmd.batchId];
  }
  const mainKey = await createKey(h, A.token);
  for (const [key, d] of [
    [mainKey, ne],
    [mainKey, s],
    [actors[2].key!, s],
  ] as const) {
    const job = await openCall(h, key, {
      url: '/print',
      body: { deviceSn: d.sn, content: `receipt of ${d.name}`, originId: nextOrigin() },
    });
    expect(job.statusCode, job.body).toBe(200);
    if (d === s) fx.printJobIds.push(job.body_.data.id);
  }
  // a text-recognition job of the open API that printed its text on the South device
  const ocr = await h.db
    .insertInto('ocr_jobs')
    .values({
      tenant_id: A.tenantId,
      source: 'open',
      app_key_id: mainKey.id,
      image_key: 'matrix/receipt.png',
      mime: 'image/png',
      state: 'done',
      text: 'scope',
      print: JSON.stringify({ deviceSn: s.sn, copies: 1 }),
      print_job_id: fx.printJobIds[0],
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const fence = await post('/fence/create', A.token, {
    name: 'Matrix fence',
    shape: { type: 'circle', center: [116.4, 39.9], radiusM: 5000 },
    deviceIds: [ne.id, s.id],
  });
  fx.fenceId = fence.id;
  // where each device is: the South one at a place no other row names (its position is its data too)
  for (const [d, lat, lng] of [
    [ne, 39.9, 116.4],
    [s, SOUTH_AT.lat, SOUTH_AT.lng],
  ] as const) {
    await h.db
      .insertInto('fence_events')
      .values({ tenant_id: A.tenantId, fence_id: fence.id, device_id: d.id, kind: 'enter', lat, lng })
      .execute();
    await h.db.insertInto('device_positions').values({ device_id: d.id, lat, lng }).execute();
    await h.db
      .insertInto('device_status_log')
      .values({ tenant_id: A.tenantId, device_id: d.id, status: 'online', reason: 'hello' })
      .execute();
    await h.db
      .insertInto('device_telemetry')
      .values({ tenant_id: A.tenantId, device_id: d.id, battery: 80, signal: 20, lat, lng, paper: 'ok' })
      .execute();
    await h.db.updateTable('devices').set({ lat, lng, status: 'online' }).where('id', '=', d.id).execute();
  }

  const fileReq = await post('/fileAcquisition/request', A.token, { deviceIds: [s.id], preset: 'system_log' });
  const firmware = await storedPackage(h, A.tenantId, {
    kind: 'firmware',
    name: 'fw',
    identifier: 'CPSIM',
    versionName: '9.9.9',
    models: ['CPSIM-58'],
  });
  fx.firmwareId = firmware.id;
  const release = await post('/upgrade/release/create', A.token, {
    name: 'matrix release',
    packageId: firmware.id,
    targets: { deviceIds: [s.id] },
    canaryPercent: 0,
    soakMinutes: null,
    throttle: 5,
    window: null,
    failPercent: 20,
    failMinCount: 2,
    expireAt: new Date(Date.now() + 3600_000).toISOString(),
  });
  await h.db
    .insertInto('device_firmware_history')
    .values({
      tenant_id: A.tenantId,
      device_id: s.id,
      from_version: '1.4.1',
      to_version: SOUTH_FIRMWARE,
      source: 'hello',
    })
    .execute();
  const push = await post('/push/create', A.token, {
    kind: 'text',
    title: 'Matrix push',
    targets: { deviceIds: [s.id] },
    expireAt: new Date(Date.now() + 3600_000).toISOString(),
  });
  const app = await storedPackage(h, A.tenantId, {
    kind: 'app',
    name: 'matrix app',
    identifier: fx.appIdentifier,
    versionName: '1.0.0',
    versionCode: 1,
  });
  const deployment = await post('/application/deployment', A.token, {
    kind: 'app',
    action: 'install',
    packageId: app.id,
    deviceIds: [s.id],
  });
  for (const d of [ne, s])
    await h.app.deviceBus.emit('inventory', d.id, {
      ts: Date.now(),
      apps: [{ pkg: fx.appIdentifier, name: 'matrix app', versionCode: 1, versionName: '1.0.0' }],
      models: [],
      storageFreeMb: 1000,
    });
  const profile = await post('/systemCustom/profile/create', A.token, { name: 'Matrix profile' });
  await post('/systemCustom/profile/assign', A.token, { id: profile.id, deviceIds: [s.id] });
  // a work order about the South device, filed by the `all` account (in North) and one by the main account
  const allActor = actors[2];
  const woAll = await post('/workOrder/create', allActor.token, {
    type: 'device',
    title: 'Matrix device fault',
    deviceIds: [s.id],
  });
  const woMain = await post('/workOrder/create', A.token, { type: 'device', title: 'Matrix fault', deviceIds: [s.id] });
  // inbox: a fault message and a SIM alert about the South device
  await deviceFaultMessages(h.db, undefined, s.id, 'out');
  await sweepSims(h.db, { publish: () => {} });

  fx.intIds = [
    s.id,
    fx.batchId,
    fx.fenceId,
    fileReq.ids?.[0] ?? fileReq.id,
    release.id,
    push.id,
    deployment.id,
    profile.id,
    Number(ocr.id),
    woAll.id,
    woMain.id,
  ].filter((x): x is number => typeof x === 'number');
  fx.strIds = [fx.taskId, ...fx.printJobIds];
}, 120_000);
afterAll(() => h.close());

// --- the operations, from the documents ---------------------------------------------------------------------------

let operations: Operation[];
async function readOperations(): Promise<Operation[]> {
  const ops: Operation[] = [];
  for (const [doc, url] of [
    ['console', '/apiAdmin/docs/json'],
    ['open', '/open/v1/docs/json'],
  ] as const) {
    const d = (await h.call({ method: 'GET', url })).body_ as unknown as {
      paths: Record<string, Record<string, { parameters?: Param[] }>>;
    };
    for (const [path, item] of Object.entries(d.paths))
      for (const [method, op] of Object.entries(item))
        if (['get', 'post', 'put', 'patch', 'delete'].includes(method))
          ops.push({ doc, method, path, key: `${method} ${path}`, params: op.parameters ?? [] });
  }
  return ops;
}

const isRead = (op: Operation) => (op.method === 'get' && !WRITES.has(op.key)) || op.key in READ_POSTS;

// --- the calls each read operation is made with ------------------------------------------------------------------

/** The values a parameter is tried with, to reach the out-of-scope device's data ([] = left out). */
function probeValues(p: Param): Array<string | number> {
  const n = p.name;
  const integer = p.schema?.type === 'integer' || p.schema?.type === 'number';
  if (/^deviceIds?$/.test(n)) return [out().id];
  if (/^iccids?$/.test(n)) return [out().iccid];
  if (n === 'sn' || n === 'deviceSn') return [out().sn];
  if (n === 'keyword') return [out().sn];
  if (n === 'batchId') return [fx.batchId];
  if (n === 'fenceId') return [fx.fenceId];
  if (n === 'jobId') return fx.printJobIds;
  if (n === 'taskId') return [fx.taskId];
  if (n === 'identifier') return [fx.appIdentifier];
  if (n === 'id') return [...new Set<string | number>(integer ? fx.intIds : fx.strIds)];
  return [];
}

/** A value for a required parameter the probe does not fill. */
function requiredValue(p: Param): string | number {
  const s = p.schema ?? {};
  if (s.default !== undefined) return s.default as string | number;
  if (s.enum?.length) return s.enum[0] as string;
  if (s.type === 'integer' || s.type === 'number') return 1;
  return 'x';
}

interface Call {
  url: string;
  body?: Record<string, unknown>;
  /** What the call sends that could show up in an answer only because it was sent (an echo). */
  sent: string;
}

function callsOf(op: Operation): Call[] {
  const params = op.params.filter((p) => p.in === 'path' || p.in === 'query');
  const base = new Map<string, string | number>();
  for (const p of params) {
    if (p.name === 'pageSize') base.set(p.name, p.schema?.maximum ?? 100);
    else if (p.required) base.set(p.name, probeValues(p)[0] ?? requiredValue(p));
  }
  const variants: Array<Map<string, string | number>> = [base];
  for (const p of params)
    for (const v of probeValues(p)) {
      if (base.get(p.name) === v) continue;
      variants.push(new Map([...base, [p.name, v]]));
    }
  return variants.map((values) => {
    let path = op.path;
    const query = new URLSearchParams();
    for (const p of params) {
      const v = values.get(p.name);
      if (v === undefined) continue;
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(v)));
      else query.set(p.name, String(v));
    }
    const qs = query.toString();
    const body = READ_POSTS[op.key]?.();
    return { url: qs ? `${path}?${qs}` : path, body, sent: `${path}?${qs} ${JSON.stringify(body ?? {})}` };
  });
}

async function callAs(actor: Actor, op: Operation, c: Call) {
  const body = c.body;
  if (op.doc === 'open') {
    if (!actor.key) return null;
    return openCall(h, actor.key, { method: op.method.toUpperCase() as 'GET', url: c.url.slice('/open/v1'.length) });
  }
  return h.call({
    method: op.method.toUpperCase() as 'GET',
    url: c.url,
    token: actor.token,
    headers: { 'accept-language': 'en' },
    ...(body ? { payload: body } : {}),
  });
}

// --- what counts as the out-of-scope device's data -------------------------------------------------------------

/** Where a JSON answer names the device by id: a `deviceId(s)` field, or an object with its `id` and a `sn`. */
function idsOfDevice(node: unknown, id: number, key = ''): boolean {
  if (Array.isArray(node)) return node.some((x) => idsOfDevice(x, id, key));
  if (typeof node === 'number') return /^(deviceId|deviceIds|device_id)$/.test(key) && node === id;
  if (!node || typeof node !== 'object') return false;
  const o = node as Record<string, unknown>;
  if (o.id === id && ('sn' in o || /^devices?$/.test(key))) return true;
  return Object.entries(o).some(([k, v]) => idsOfDevice(v, id, k));
}

/**
 * The markers of the out-of-scope device an answer holds: its serial, name, ICCID, id, position, the ids of its task
 * and print job, its firmware history (a refused request's answer may echo what it was sent: that is no leak).
 */
function markersIn(res: { statusCode: number; body: string; body_: unknown }, sent: string): string[] {
  const d = out();
  const ok = res.statusCode < 300;
  const found: string[] = [];
  for (const [what, value] of [
    ['sn', d.sn],
    ['name', d.name],
    ['iccid', d.iccid],
    ['task id', fx.taskId],
    ...fx.printJobIds.map((id) => ['print job id', id] as const),
    ['position', String(SOUTH_AT.lat)],
    ['firmware history', SOUTH_FIRMWARE],
  ] as const)
    if (res.body.includes(value) && (ok || !sent.includes(value))) found.push(what);
  if (ok && res.body_ && idsOfDevice(res.body_, d.id)) found.push('id');
  return found;
}

// --- the matrix ----------------------------------------------------------------------------------------------------

describe('the data-scope matrix', () => {
  beforeAll(async () => {
    operations = await readOperations();
  });

  it('classifies every operation of both documents as a read or a write', () => {
    expect(operations.length).toBeGreaterThan(200);
    const unclassified = operations
      .filter((op) => op.method !== 'get' && !WRITES.has(op.key) && !(op.key in READ_POSTS))
      .map((op) => op.key);
    expect(unclassified, 'add each to WRITES or READ_POSTS').toEqual([]);
    // nothing listed that no longer exists
    const known = new Set(operations.map((op) => op.key));
    const stale = [...WRITES, ...Object.keys(READ_POSTS), ...Object.keys(NOT_CALLED)].filter((k) => !known.has(k));
    expect(stale).toEqual([]);
  });

  it("answers no scoped caller the out-of-scope device's serial, name, ICCID or id, on any read", async () => {
    const control = actors.find((a) => a.name === 'all')!;
    const scoped = actors.filter((a) => a.name !== 'all');
    const reads = operations.filter((op) => isRead(op) && !(op.key in NOT_CALLED));
    const leaks: string[] = [];
    const errors: string[] = [];
    /**
     * Per operation: calls made, calls whose control answer held the out-of-scope device's data, and per scoped
     * actor its leaks and the calls whose answer held its own in-scope device (North-East's: a scoped caller
     * still gets answers, it is not merely refused everything).
     */
    type Row = { calls: number; positive: number; leaks: Record<string, number>; inScope: Record<string, number> };
    const table = new Map<string, Row>();
    const inside = fx.devices.northEast;
    for (const op of reads) {
      const zero = () => Object.fromEntries(scoped.map((a) => [a.name, 0]));
      const row: Row = { calls: 0, positive: 0, leaks: zero(), inScope: zero() };
      table.set(op.key, row);
      for (const c of callsOf(op)) {
        row.calls++;
        const seen = (await callAs(control, op, c))!;
        if (seen.statusCode >= 500) errors.push(`all ${op.key} ${c.url}: ${seen.statusCode} ${seen.body}`);
        if (markersIn(seen, c.sent).length) row.positive++;
        for (const a of scoped) {
          const res = await callAs(a, op, c);
          if (!res) continue;
          if (res.statusCode >= 500) errors.push(`${a.name} ${op.key} ${c.url}: ${res.statusCode} ${res.body}`);
          const found = markersIn(res, c.sent);
          if (res.statusCode < 300 && (res.body.includes(inside.sn) || res.body.includes(inside.name)))
            row.inScope[a.name]++;
          if (found.length) {
            row.leaks[a.name]++;
            leaks.push(`${a.name}: ${op.method.toUpperCase()} ${c.url} → ${res.statusCode} with ${found.join(', ')}`);
          }
        }
      }
    }

    const lines = [...table].map(
      ([key, r]) =>
        `${key.padEnd(62)} ${String(r.calls).padStart(5)} ${String(r.positive).padStart(4)} ` +
        scoped.map((a) => `${String(r.leaks[a.name]).padStart(5)} ${String(r.inScope[a.name]).padStart(4)}`).join(' '),
    );
    const covered = [...table.values()].filter((r) => r.positive > 0).length;
    const seesOwn = (a: Actor) => [...table.values()].filter((r) => r.inScope[a.name] > 0).length;
    console.log(
      [
        `data-scope matrix: ${reads.length} read operations × ${actors.length} actors (${scoped.map((a) => a.name).join(', ')} + the control 'all'); ` +
          `${covered} operations leak-checked with a positive control, ` +
          `${[...table.values()].reduce((n, r) => n + r.calls, 0)} calls per actor; ` +
          `operations answering the in-scope device: ${scoped.map((a) => `${a.name} ${seesOwn(a)}`).join(', ')}`,
        `columns: calls, control saw the out-of-scope device, then per scoped actor: leaks, saw its in-scope device`,
        `${'operation'.padEnd(62)} calls ctl+ ${scoped.map((a) => `${a.name.slice(0, 4).padStart(5)}  in+`).join(' ')}`,
        ...lines,
      ].join('\n'),
    );

    expect(errors).toEqual([]);
    // the control proves the fixture reaches the device's data through the main lists and details
    expect(covered).toBeGreaterThanOrEqual(40);
    // …and the scoped callers still read their own device through the same operations
    for (const a of scoped) expect(seesOwn(a), a.name).toBeGreaterThanOrEqual(15);
    expect(leaks).toEqual([]);
  }, 120_000);
});
