import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, openEvents, waitUntil, type Customer, type EventStream } from './device-helpers.ts';

/**
 * Geofencing end to end with the simulator over MQTT (issue 16): two simulated devices standing still with GPS
 * jitter report their location every second; a circle drawn around them holds both through the jitter (dwell
 * 2 s); one is moved away through the simulator's control and leaves the fence, live, while the other stays in.
 */
let h: Harness;
let A: Customer;
let fleet: Fleet;
let stream: EventStream;
const specs = makeSpecs(2, { seed: 163, prefix: 'FNS' });
let ids: Map<string, number>;

beforeAll(async () => {
  h = await createHarness({ FENCE_DWELL_CHECK_MS: '200', LAST_SEEN_FLUSH_MS: '100' });
  A = await customer(h);
  ids = await devicesOf(h, A.tenantId, specs);
  const base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  stream = await openEvents(h, base, A.token);
  fleet = await createFleet({
    url: h.app.gateway.deviceUrl,
    specs,
    seed: 163,
    heartbeatS: 30,
    randomFaults: false,
    start: false,
    locationEveryS: 1,
    movement: { routeShare: 0, wanderShare: 0, jitterM: 5 },
  });
});
afterAll(async () => {
  stream?.close();
  await fleet?.stop();
  await h?.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  h.call({ method, url: `/apiAdmin${url}`, token: A.token, ...(payload ? { payload } : {}) });

describe('a simulated device leaves its fence', () => {
  it('stays inside through the jitter, then leaves when moved, live', async () => {
    // both devices are put at the same shop, then the fence is drawn around it
    const shop = { lat: 31.2304, lng: 121.4737 };
    await fleet.start();
    for (const s of specs) await fleet.get(s.sn).moveTo(shop.lat + 0.0001, shop.lng);
    const [a, b] = specs.map((s) => ids.get(s.sn)!);
    await waitUntil('both located at the shop', async () => {
      const rows = await h.db.selectFrom('devices').select(['lat']).where('id', 'in', [a, b]).execute();
      return rows.every((r) => r.lat !== null && Math.abs(r.lat - shop.lat) < 0.001);
    });
    const res = await call('POST', '/fence/create', {
      name: 'Shop',
      shape: { type: 'circle', center: [shop.lng, shop.lat], radiusM: 200 },
      deviceIds: [a, b],
      dwellS: 2,
      alertOn: 'leave',
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.body_.data.id as number;
    const counts = async () => (await call('GET', `/fence/detail?id=${id}`)).body_.data.counts;
    expect(await counts()).toMatchObject({ devices: 2, inside: 2 });

    // a few seconds of jittery reports (every second, ±5 m): nothing happens
    await new Promise((r) => setTimeout(r, 3000));
    expect((await call('GET', `/fence/events?fenceId=${id}`)).body_.data.total).toBe(0);

    // the first device is taken 2 km away
    const movedAt = Date.now();
    await fleet.get(specs[0].sn).moveTo(shop.lat + 0.018, shop.lng);
    const live = await stream.waitFor(
      'the live leave',
      (e) => e.type === 'fence' && e.data.id === id && e.data.event === 'leave',
    );
    expect(live.data).toMatchObject({ deviceId: a });
    expect(Date.now() - movedAt).toBeGreaterThanOrEqual(1900); // after the dwell time
    const ev = (await call('GET', `/fence/events?fenceId=${id}`)).body_.data;
    expect(ev.list).toMatchObject([{ kind: 'leave', deviceId: a, deviceSn: specs[0].sn }]);
    expect(ev.list[0].lat).toBeCloseTo(shop.lat + 0.018, 3);
    await waitUntil('counts 1 in, 1 out', async () => {
      const c = await counts();
      return c.inside === 1 && c.outside === 1;
    });
    // its track holds the shop and the new place
    const track = (await call('GET', `/fence/track?deviceId=${a}`)).body_.data;
    expect(track.positions.length).toBeGreaterThanOrEqual(2);
    expect(track.positions.at(-1).lat).toBeCloseTo(shop.lat + 0.018, 3);
  });
});
