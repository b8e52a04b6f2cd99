import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type DataScope, type LiveEvent } from '@cpc/contracts';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, waitUntil, type Customer, type EventStream } from './device-helpers.ts';

/**
 * The data scope of the live event stream, end to end with simulated devices over MQTT: a sub-account scoped to
 * its department and one scoped to what it bound hear only their devices' events, while the main account hears
 * all; a device moved into or out of a department, and a role taken away, change what an open stream hears at
 * once, without reopening it.
 */
let h: Harness;
let A: Customer;
let fleet: Fleet;
const specs = makeSpecs(3, { seed: 281, prefix: 'LSC' });
const [NORTH_SN, SOUTH_SN, OWN_SN] = specs.map((s) => s.sn);
let ids: Map<string, number>;
let base: string;
let north: number;
let south: number;
let deptRole: number;
const streams: EventStream[] = [];

const call = (method: 'GET' | 'POST', url: string, token: string, payload?: object) =>
  h.call({ method, url: `/apiAdmin${url}`, token, ...(payload ? { payload } : {}) });

const RIGHTS = [PERMISSIONS.deviceView, PERMISSIONS.deviceTask, PERMISSIONS.deviceReboot, PERMISSIONS.deviceEdit];

async function role(scope: DataScope): Promise<number> {
  const res = await call('POST', '/system/role/create', A.token, {
    name: `r_${randomUUID().slice(0, 8)}`,
    code: `r_${randomUUID().slice(0, 8)}`,
    permissions: RIGHTS,
    dataScope: scope,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data.id as number;
}

async function sub(roleId: number, departmentId: number | null) {
  const username = `ls_${randomUUID().slice(0, 8)}`;
  const res = await call('POST', '/system/subAccount/create', A.token, {
    username,
    password: 'Sub0Passw0rd',
    confirmPassword: 'Sub0Passw0rd',
    roleIds: [roleId],
    departmentId,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.body_.data.id as number, token: (await h.login(username, 'Sub0Passw0rd')).token };
}

async function open(token: string) {
  const s = await openEvents(h, base, token);
  streams.push(s);
  return s;
}

const deviceEvents = (s: EventStream, sn: string, after = 0) =>
  s.events.filter((e) => e.id > after && e.type === 'device' && e.data.sn === sn);
const last = (s: EventStream) => s.events.at(-1)?.id ?? 0;
/** Every serial an event of this stream named (device events by serial, task events by device id). */
const named = (s: EventStream, after = 0) => {
  const bySn = new Map([...ids].map(([sn, id]) => [id, sn]));
  return new Set(
    s.events
      .filter((e) => e.id > after)
      .flatMap((e: LiveEvent) =>
        e.type === 'device' ? [e.data.sn] : e.type === 'task' ? [bySn.get(e.data.deviceId) ?? '?'] : [],
      ),
  );
};
/** Waits for the fleet to report some more (every device reports its location every second). */
const reports = () => new Promise((r) => setTimeout(r, 2500));

beforeAll(async () => {
  h = await createHarness({ LAST_SEEN_FLUSH_MS: '100' });
  A = await customer(h);
  const dept = async (name: string) =>
    (await call('POST', '/system/department/add', A.token, { name, parentId: null })).body_.data.id as number;
  north = await dept('North');
  south = await dept('South');
  ids = await devicesOf(h, A.tenantId, specs);
  await call('POST', '/device/edit', A.token, { id: ids.get(NORTH_SN), departmentId: north });
  await call('POST', '/device/edit', A.token, { id: ids.get(SOUTH_SN), departmentId: south });
  deptRole = await role('department');
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  fleet = await createFleet({
    url: h.app.gateway.deviceUrl,
    specs,
    seed: 281,
    heartbeatS: 30,
    randomFaults: false,
    start: false,
    locationEveryS: 1,
    movement: { routeShare: 0, wanderShare: 0, jitterM: 20 },
  });
});
afterAll(async () => {
  for (const s of streams) s.close();
  await fleet?.stop();
  await h?.close();
});

describe('live events follow the data scope', () => {
  it("a department's and an owner's streams hear only their devices; the main account hears all", async () => {
    const inNorth = await sub(deptRole, north);
    const owner = await sub(await role('own'), null);
    await h.db.updateTable('devices').set({ owner_id: owner.id }).where('id', '=', ids.get(OWN_SN)!).execute();
    const [all, dept, own] = [await open(A.token), await open(inNorth.token), await open(owner.token)];
    await fleet.start();
    await waitUntil('the main account hears every device', () => specs.every((s) => deviceEvents(all, s.sn).length));
    // the main account reboots the device outside both scopes: its task events go to the main account only
    const reboot = await call('POST', '/device/command', A.token, { deviceIds: [ids.get(SOUTH_SN)], type: 'reboot' });
    expect(reboot.statusCode, reboot.body).toBe(200);
    await all.waitFor('the reboot task', (e) => e.type === 'task' && e.data.deviceId === ids.get(SOUTH_SN));
    await waitUntil('the scoped streams hear their own devices', () =>
      deviceEvents(dept, NORTH_SN).length && deviceEvents(own, OWN_SN).length ? true : undefined,
    );
    await reports();
    expect([...named(dept)]).toEqual([NORTH_SN]);
    expect([...named(own)]).toEqual([OWN_SN]);
    expect(named(all)).toEqual(new Set(specs.map((s) => s.sn)));
  });

  it('a device moved out of the department is not heard from the next report on; one moved in is', async () => {
    const inNorth = await sub(deptRole, north);
    const s = await open(inNorth.token);
    await waitUntil('the stream hears the north device', () => deviceEvents(s, NORTH_SN).length || undefined);
    // north ↔ south: the streams are not reopened
    await call('POST', '/device/edit', A.token, { id: ids.get(NORTH_SN), departmentId: south });
    await call('POST', '/device/edit', A.token, { id: ids.get(SOUTH_SN), departmentId: north });
    const moved = last(s);
    await waitUntil('the device moved in is heard', () => deviceEvents(s, SOUTH_SN, moved).length || undefined);
    const from = last(s);
    await reports();
    expect([...named(s, from)]).toEqual([SOUTH_SN]);
    // back as they were for the other tests
    await call('POST', '/device/edit', A.token, { id: ids.get(NORTH_SN), departmentId: north });
    await call('POST', '/device/edit', A.token, { id: ids.get(SOUTH_SN), departmentId: south });
  });

  it('a member taken off its role stops hearing the devices at once, not at the next keep-alive', async () => {
    const inNorth = await sub(deptRole, north);
    const s = await open(inNorth.token);
    await waitUntil('the stream hears the north device', () => deviceEvents(s, NORTH_SN).length || undefined);
    const removed = await call('POST', '/system/role/removeMembers', A.token, { id: deptRole, userIds: [inNorth.id] });
    expect(removed.statusCode, removed.body).toBe(200);
    await s.waitFor('word that its permissions changed', (e) => e.type === 'permissions');
    const from = last(s);
    await reports();
    expect(deviceEvents(s, NORTH_SN, from)).toEqual([]);
  });
});
