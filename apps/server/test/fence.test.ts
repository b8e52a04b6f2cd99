import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { FENCE_MAX_PER_TENANT, PERMISSIONS, type FenceCreateBody } from '@cpc/contracts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import {
  customer,
  devicesOf,
  openEvents,
  subAccountWith,
  waitUntil,
  type Customer,
  type EventStream,
} from './device-helpers.ts';
import { createKey, startReceiver, type Receiver } from './open-helpers.ts';

/**
 * Geofencing (issue 16): each refusal of a bad fence, the evaluation of location reports (inside, outside, on the
 * edge, dwell, schedules, an edit while devices are inside), the alerts (message centre, live event, signed
 * webhook), tenant isolation and the track. Location reports enter through the gateway's own handling of an MQTT
 * message (Presence, then the fence module), as a device's would.
 */
let h: Harness;
let A: Customer;
let B: Customer;
let base: string;
let receiver: Receiver;
let stream: EventStream;
const specsA = makeSpecs(8, { seed: 161, prefix: 'FNA' });
const specsB = makeSpecs(1, { seed: 162, prefix: 'FNB' });
let idsA: Map<string, number>;
let idsB: Map<string, number>;
let groupA: number;
let subGroupA: number;
let groupB: number;
const dev = (i: number) => idsA.get(specsA[i].sn)!;

// a square of about 1.9 km × 2.2 km in Shanghai
const SQUARE: [number, number][] = [
  [121.46, 31.22],
  [121.48, 31.22],
  [121.48, 31.24],
  [121.46, 31.24],
];
const INSIDE = { lng: 121.47, lat: 31.23 };
const OUTSIDE = { lng: 121.5, lat: 31.23 };
const ON_EDGE = { lng: 121.48, lat: 31.23 };

beforeAll(async () => {
  h = await createHarness({
    FENCE_DWELL_CHECK_MS: '200',
    WEBHOOK_BACKOFF_S: '1',
    JOB_QUEUE_POLL_MS: '500',
  });
  [A, B] = [await customer(h), await customer(h)];
  idsA = await devicesOf(h, A.tenantId, specsA);
  idsB = await devicesOf(h, B.tenantId, specsB);
  const group = async (tenantId: number, name: string, parent: number | null) =>
    Number(
      (
        await h.db
          .insertInto('device_groups')
          .values({ tenant_id: tenantId, name, parent_id: parent })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
  groupA = await group(A.tenantId, 'shops', null);
  subGroupA = await group(A.tenantId, 'shops east', groupA);
  groupB = await group(B.tenantId, 'b shops', null);
  // devices 6 and 7 are in the sub-group: a fence on the parent group reaches them
  await h.db
    .updateTable('devices')
    .set({ group_id: subGroupA })
    .where('id', 'in', [dev(6), dev(7)])
    .execute();
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  receiver = await startReceiver();
  const key = await createKey(h, A.token, { callbackUrl: receiver.url });
  receiver.secret = key.secret;
  stream = await openEvents(h, base, A.token);
});
afterAll(async () => {
  stream?.close();
  await receiver?.close();
  await h?.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: unknown, token = A.token) =>
  h.call({ method, url: `/apiAdmin${url}`, token, ...(payload !== undefined ? { payload: payload as object } : {}) });

/** A location report of a device as the gateway receives it over MQTT. */
async function report(deviceId: number, p: { lat: number; lng: number }) {
  const row = await h.db.selectFrom('devices').select('sn').where('id', '=', deviceId).executeTakeFirstOrThrow();
  const gw = h.app.gateway as unknown as { handle(sn: string, kind: string, payload: Buffer): Promise<void> };
  await gw.handle(row.sn, 'location', Buffer.from(JSON.stringify({ ts: Date.now(), ...p })));
}

async function createFence(body: Partial<FenceCreateBody>, token = A.token): Promise<number> {
  const res = await call(
    'POST',
    '/fence/create',
    { name: `f-${Math.random().toString(36).slice(2, 8)}`, shape: { type: 'polygon', ring: SQUARE }, ...body },
    token,
  );
  expect(res.statusCode, res.body).toBe(200);
  return res.body_.data.id as number;
}

const eventsOf = async (fenceId: number) =>
  (await call('GET', `/fence/events?fenceId=${fenceId}&pageSize=100`)).body_.data as {
    list: Array<{ kind: string; deviceId: number; lat: number; lng: number; fenceName: string }>;
    total: number;
  };
const sideOf = async (fenceId: number, deviceId: number) => {
  const list = (await call('GET', `/fence/devices?id=${fenceId}&pageSize=100`)).body_.data.list as Array<{
    deviceId: number;
    side: string;
  }>;
  return list.find((d) => d.deviceId === deviceId)?.side;
};

describe('refusals', () => {
  const refused = async (shape: unknown, field: RegExp, key?: string) => {
    const before = (await call('GET', '/fence/list')).body_.data.total;
    const res = await call('POST', '/fence/create', { name: 'bad', shape });
    expect(res.statusCode, res.body).toBe(400);
    const fields = res.body_.data.fields as Array<{ field: string; key?: string }>;
    expect(
      fields.some((f) => field.test(f.field)),
      res.body,
    ).toBe(true);
    if (key) expect(fields.map((f) => f.key)).toContain(key);
    expect((await call('GET', '/fence/list')).body_.data.total).toBe(before);
    return res;
  };

  it('refuses a self-intersecting polygon, naming shape.ring and where it crosses', async () => {
    const bowTie = [
      [121.46, 31.22],
      [121.48, 31.24],
      [121.48, 31.22],
      [121.46, 31.24],
    ];
    const res = await refused({ type: 'polygon', ring: bowTie }, /^shape\.ring$/, 'fence.selfIntersecting');
    expect(res.body_.msg).toMatch(/crosses itself/);
    // said in zh too
    const zh = await h.call({
      method: 'POST',
      url: '/apiAdmin/fence/create',
      token: A.token,
      headers: { 'accept-language': 'zh-CN' },
      payload: { name: 'bad', shape: { type: 'polygon', ring: bowTie } },
    });
    expect(zh.body_.msg).toContain('交叉');
  });

  it('refuses a circle with a radius of 0 or below', async () => {
    await refused({ type: 'circle', center: [121.47, 31.23], radiusM: 0 }, /^shape\.radiusM$/, 'fence.radiusPositive');
    await refused({ type: 'circle', center: [121.47, 31.23], radiusM: -50 }, /^shape\.radiusM$/);
    await refused({ type: 'circle', center: [121.47, 31.23], radiusM: 5 }, /^shape\.radiusM$/, 'fence.radiusRange');
  });

  it('refuses coordinates out of range', async () => {
    await refused({ type: 'circle', center: [121.47, 95], radiusM: 100 }, /^shape\.center/, 'fence.latRange');
    await refused({ type: 'circle', center: [181, 31], radiusM: 100 }, /^shape\.center/, 'fence.lngRange');
    await refused({ type: 'polygon', ring: [...SQUARE.slice(0, 3), [121.46, -91]] }, /^shape\.ring/, 'fence.latRange');
  });

  it('refuses too many vertices, too few distinct points and a flat ring', async () => {
    const many = Array.from({ length: 501 }, (_, i) => {
      const a = (2 * Math.PI * i) / 501;
      return [121.47 + 0.01 * Math.cos(a), 31.23 + 0.01 * Math.sin(a)];
    });
    await refused({ type: 'polygon', ring: many }, /^shape\.ring$/, 'fence.ringTooMany');
    await refused(
      { type: 'polygon', ring: [SQUARE[0], SQUARE[1], SQUARE[1], SQUARE[0]] },
      /^shape\.ring$/,
      'fence.ringTooFew',
    );
    await refused(
      {
        type: 'polygon',
        ring: [
          [121.46, 31.22],
          [121.47, 31.23],
          [121.48, 31.24],
        ],
      },
      /^shape\.ring$/,
      'fence.ringFlat',
    );
  });

  it('refuses another tenant’s device or group as a target (404 naming the field)', async () => {
    const d = await call('POST', '/fence/create', {
      name: 'x',
      shape: { type: 'polygon', ring: SQUARE },
      deviceIds: [dev(0), idsB.get(specsB[0].sn)!],
    });
    expect(d.statusCode).toBe(404);
    expect(d.body_.data.fields[0].field).toBe('deviceIds');
    const g = await call('POST', '/fence/create', {
      name: 'x',
      shape: { type: 'polygon', ring: SQUARE },
      groupIds: [groupB],
    });
    expect(g.statusCode).toBe(404);
    expect(g.body_.data.fields[0].field).toBe('groupIds');
  });

  it('refuses a bad schedule, dwell and the tenant’s 201st fence', async () => {
    const s = await call('POST', '/fence/create', {
      name: 'x',
      shape: { type: 'polygon', ring: SQUARE },
      schedule: { kind: 'weekly', days: [8], from: '25:00', to: '10:00' },
      dwellS: 4000,
    });
    expect(s.statusCode).toBe(400);
    const fields = (s.body_.data.fields as Array<{ field: string }>).map((f) => f.field);
    expect(fields).toEqual(expect.arrayContaining(['schedule.days.0', 'schedule.from', 'dwellS']));

    const C = await customer(h);
    await h.db
      .insertInto('fences')
      .values(
        Array.from({ length: FENCE_MAX_PER_TENANT }, (_, i) => ({
          tenant_id: C.tenantId,
          name: `bulk ${i}`,
          shape: JSON.stringify({ type: 'circle', center: [121.47, 31.23], radiusM: 100 }),
          min_lng: 121,
          min_lat: 31,
          max_lng: 122,
          max_lat: 32,
        })),
      )
      .execute();
    const over = await call(
      'POST',
      '/fence/create',
      { name: 'one more', shape: { type: 'polygon', ring: SQUARE } },
      C.token,
    );
    expect(over.statusCode).toBe(409);
    expect(over.body_.msg).toContain(String(FENCE_MAX_PER_TENANT));
  });
});

describe('evaluation', () => {
  it('inside, outside and on the edge (the edge counts as inside); a baseline raises nothing', async () => {
    await report(dev(0), INSIDE);
    await report(dev(1), OUTSIDE);
    await report(dev(2), ON_EDGE);
    const id = await createFence({ deviceIds: [dev(0), dev(1), dev(2)], dwellS: 0, alertOn: 'both' });
    // the devices' last positions give their sides at once
    expect(await sideOf(id, dev(0))).toBe('inside');
    expect(await sideOf(id, dev(1))).toBe('outside');
    expect(await sideOf(id, dev(2))).toBe('inside');
    const detail = (await call('GET', `/fence/detail?id=${id}`)).body_.data;
    expect(detail.counts).toEqual({ devices: 3, inside: 2, outside: 1, unknown: 0 });
    expect(detail.shape.ring).toHaveLength(5); // closed by the server
    expect(detail.activeNow).toBe(true);
    expect((await eventsOf(id)).total).toBe(0);

    // a circle: exactly on the radius is inside too
    const c = await createFence({
      shape: { type: 'circle', center: [INSIDE.lng, INSIDE.lat], radiusM: 1000 },
      deviceIds: [dev(0)],
      dwellS: 0,
    });
    expect(await sideOf(c, dev(0))).toBe('inside');

    // crossing: enter and leave are recorded where they happened
    await report(dev(1), INSIDE);
    await report(dev(0), OUTSIDE);
    const ev = await eventsOf(id);
    expect(ev.list.map((e) => [e.deviceId, e.kind]).sort()).toEqual(
      [
        [dev(0), 'leave'],
        [dev(1), 'enter'],
      ].sort(),
    );
    expect(ev.list.find((e) => e.deviceId === dev(0))).toMatchObject({ lat: OUTSIDE.lat, lng: OUTSIDE.lng });
  });

  it('a device in a sub-group of a targeted group is evaluated', async () => {
    await report(dev(6), INSIDE);
    const id = await createFence({ groupIds: [groupA], dwellS: 0, alertOn: 'leave' });
    expect(await sideOf(id, dev(6))).toBe('inside');
    await report(dev(6), OUTSIDE);
    expect((await eventsOf(id)).list).toMatchObject([{ kind: 'leave', deviceId: dev(6) }]);
    const mine = (await call('GET', `/fence/device?deviceId=${dev(6)}`)).body_.data.list as Array<{
      fenceId: number;
      side: string;
    }>;
    expect(mine.find((f) => f.fenceId === id)?.side).toBe('outside');
  });

  it('dwell: a jitter flap at the edge raises nothing; staying out does, even without another report', async () => {
    await report(dev(3), INSIDE);
    const id = await createFence({ deviceIds: [dev(3)], dwellS: 2 });
    // out and back within the dwell time: forgotten
    await report(dev(3), OUTSIDE);
    const pending = (await call('GET', `/fence/devices?id=${id}`)).body_.data.list[0];
    expect(pending.side).toBe('inside');
    expect(pending.pending.side).toBe('outside');
    await report(dev(3), INSIDE);
    await new Promise((r) => setTimeout(r, 2500));
    expect((await eventsOf(id)).total).toBe(0);
    expect(await sideOf(id, dev(3))).toBe('inside');
    // out and staying out: confirmed by the periodic check once 2 s passed, with where it crossed
    const crossedAt = Date.now();
    await report(dev(3), OUTSIDE);
    const ev = await waitUntil('the leave after the dwell', async () => (await eventsOf(id)).list[0], 10_000);
    expect(ev).toMatchObject({ kind: 'leave', lat: OUTSIDE.lat, lng: OUTSIDE.lng });
    expect(Date.now() - crossedAt).toBeGreaterThanOrEqual(1900);
    expect(await sideOf(id, dev(3))).toBe('outside');
  });

  it('outside its schedule a fence raises nothing', async () => {
    const today = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Shanghai', weekday: 'short' }).format(new Date());
    const iso = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(today) + 1;
    // every day but today (and not yesterday, whose overnight window could reach into today)
    const days = [1, 2, 3, 4, 5, 6, 7].filter((d) => d !== iso);
    await report(dev(4), INSIDE);
    const id = await createFence({
      deviceIds: [dev(4)],
      dwellS: 0,
      alertOn: 'both',
      schedule: { kind: 'weekly', days, from: '00:00', to: '23:59' },
    });
    const d = (await call('GET', `/fence/detail?id=${id}`)).body_.data;
    expect(d.activeNow).toBe(false);
    await report(dev(4), OUTSIDE);
    await report(dev(4), INSIDE);
    await report(dev(4), OUTSIDE);
    expect((await eventsOf(id)).total).toBe(0);
    expect(await sideOf(id, dev(4))).toBe('unknown');
    // the same fence always on: the next crossing counts
    const u = await call('POST', '/fence/update', { id, schedule: { kind: 'always' } });
    expect(u.statusCode, u.body).toBe(200);
    expect(await sideOf(id, dev(4))).toBe('outside');
    await report(dev(4), INSIDE);
    expect((await eventsOf(id)).list).toMatchObject([{ kind: 'enter' }]);
  });

  it('an edited fence: a device now outside the new shape leaves at once; alerts arrive', async () => {
    await report(dev(5), INSIDE);
    await report(dev(7), { lng: 121.465, lat: 31.225 });
    const name = 'Shop 5';
    const id = await createFence({ name, deviceIds: [dev(5), dev(7)], dwellS: 600, alertOn: 'leave' });
    expect(await sideOf(id, dev(5))).toBe('inside');
    const detail = (await call('GET', `/fence/detail?id=${id}`)).body_.data;
    // shrink the square to its south-west corner: dev(7) stays inside, dev(5) (the centre) is now outside
    const res = await call('POST', '/fence/update', {
      id,
      version: detail.version,
      shape: {
        type: 'polygon',
        ring: [
          [121.46, 31.22],
          [121.468, 31.22],
          [121.468, 31.228],
          [121.46, 31.228],
          [121.46, 31.22],
        ],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body_.data.version).toBe(detail.version + 1);
    expect(await sideOf(id, dev(5))).toBe('outside');
    expect(await sideOf(id, dev(7))).toBe('inside');
    expect((await eventsOf(id)).list).toMatchObject([{ kind: 'leave', deviceId: dev(5), fenceName: name }]);
    // a stale version is refused
    const stale = await call('POST', '/fence/update', { id, version: detail.version, name: 'x' });
    expect(stale.statusCode).toBe(409);

    // the live event on the map
    await stream.waitFor('the live leave', (e) => e.type === 'fence' && e.data.id === id && e.data.event === 'leave');
    // the message centre: the main account's message
    const msg = await waitUntil('the message', () =>
      h.db
        .selectFrom('messages')
        .selectAll()
        .where('tenant_id', '=', A.tenantId)
        .where('kind', '=', 'fence.alert')
        .where('body', 'like', `${name} ·%`)
        .executeTakeFirst(),
    );
    expect(msg.title).toBe('A device left a fence');
    expect(msg.link).toBe(`/fence/index?id=${id}`);
    const inbox = await h.call({
      method: 'GET',
      url: '/apiAdmin/message/getList?pageSize=50',
      token: A.token,
      headers: { 'accept-language': 'zh-CN' },
    });
    expect(JSON.stringify(inbox.body_.data)).toContain('设备离开围栏');
    // the signed webhook
    const cb = await waitUntil('the webhook', () =>
      receiver.calls.find((c) => (c.json as unknown as { fence?: { id: number } }).fence?.id === id),
    );
    expect(cb.signatureValid).toBe(true);
    expect(cb.headers['x-cpc-event']).toBe('fence.leave');
    expect(cb.json).toMatchObject({
      event: 'fence.leave',
      fence: { id, name },
      device: { id: dev(5), sn: specsA[5].sn },
      position: { lat: INSIDE.lat, lng: INSIDE.lng },
    });
    // the audit log has the change, before → after
    const log = await h.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('tenant_id', '=', A.tenantId)
      .where('action', '=', 'fence.update')
      .where('resource_id', '=', String(id))
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(log.details)).toContain('"shape"');
  });

  it('keeps a track: positions moved ≥ 10 m, oldest first', async () => {
    const d = dev(0);
    await h.db.deleteFrom('device_positions').where('device_id', '=', d).execute();
    await report(d, { lat: 31.23, lng: 121.47 });
    await report(d, { lat: 31.23002, lng: 121.47 }); // ~2 m: not stored
    await report(d, { lat: 31.231, lng: 121.47 }); // ~110 m
    await report(d, { lat: 31.232, lng: 121.471 });
    const t = (await call('GET', `/fence/track?deviceId=${d}&hours=24`)).body_.data;
    expect(t.positions.map((p: { lat: number }) => p.lat)).toEqual([31.23, 31.231, 31.232]);
    expect(t.last).toMatchObject({ lat: 31.232, lng: 121.471 });
    const times = t.positions.map((p: { at: string }) => Date.parse(p.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect((await call('GET', `/fence/track?deviceId=${d}&hours=999`)).statusCode).toBe(400);
  });
});

describe('tenants, permissions and settings', () => {
  it('another tenant sees none of it (404)', async () => {
    const id = await createFence({ deviceIds: [dev(0)] });
    const asB = (method: 'GET' | 'POST', url: string, payload?: unknown) => call(method, url, payload, B.token);
    expect((await asB('GET', `/fence/detail?id=${id}`)).statusCode).toBe(404);
    expect((await asB('GET', `/fence/devices?id=${id}`)).statusCode).toBe(404);
    expect((await asB('POST', '/fence/update', { id, name: 'mine' })).statusCode).toBe(404);
    expect((await asB('POST', '/fence/delete', { id })).statusCode).toBe(404);
    expect((await asB('GET', `/fence/track?deviceId=${dev(0)}`)).statusCode).toBe(404);
    expect((await asB('GET', `/fence/device?deviceId=${dev(0)}`)).statusCode).toBe(404);
    expect((await asB('GET', '/fence/list')).body_.data.total).toBe(0);
    expect((await asB('GET', `/fence/events?fenceId=${id}`)).body_.data.total).toBe(0);
    // still A's, unchanged
    expect((await call('GET', `/fence/detail?id=${id}`)).body_.data.name).not.toBe('mine');
  });

  it('needs fence:view to read and fence:edit to change', async () => {
    const none = await subAccountWith(h, A.tenantId, [PERMISSIONS.deviceView]);
    expect((await call('GET', '/fence/list', undefined, none)).statusCode).toBe(403);
    const viewer = await subAccountWith(h, A.tenantId, [PERMISSIONS.fenceView]);
    expect((await call('GET', '/fence/list', undefined, viewer)).statusCode).toBe(200);
    const res = await call('POST', '/fence/create', { name: 'v', shape: { type: 'polygon', ring: SQUARE } }, viewer);
    expect(res.statusCode).toBe(403);
  });

  it('deletes a fence: gone from the list, its events stay', async () => {
    await report(dev(1), INSIDE);
    const id = await createFence({ deviceIds: [dev(1)], dwellS: 0, alertOn: 'both' });
    await report(dev(1), OUTSIDE);
    expect((await eventsOf(id)).total).toBe(1);
    const del = await call('POST', '/fence/delete', { id });
    expect(del.body_.data.deleted).toBe(1);
    expect((await call('GET', `/fence/detail?id=${id}`)).statusCode).toBe(404);
    expect((await eventsOf(id)).total).toBe(1);
    const log = await h.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', '=', 'fence.delete')
      .where('resource_id', '=', String(id))
      .execute();
    expect(log).toHaveLength(1);
  });

  it('answers the map settings: no tile URL by default (the offline base layer), WGS-84', async () => {
    const m = (await call('GET', '/fence/map')).body_.data;
    expect(m).toMatchObject({ tileUrl: null, tileCrs: 'wgs84', subdomains: [] });
    expect(m.limits.maxVertices).toBe(500);
  });

  it('lists with a keyword and counts', async () => {
    await createFence({ name: 'Keyword Plaza', deviceIds: [dev(2)] });
    const l = (await call('GET', `/fence/list?keyword=${encodeURIComponent('plaza')}`)).body_.data;
    expect(l.total).toBe(1);
    expect(l.list[0]).toMatchObject({ name: 'Keyword Plaza', deviceIds: [dev(2)], counts: { devices: 1 } });
    const dup = await call('POST', '/fence/create', {
      name: 'Keyword Plaza',
      shape: { type: 'polygon', ring: SQUARE },
    });
    expect(dup.statusCode).toBe(400);
    expect(dup.body_.data.fields[0].field).toBe('name');
    const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM fences WHERE name = 'Keyword Plaza'`.execute(
      h.db,
    );
    expect(rows.rows[0].n).toBe(1);
  });
});
