import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMsg, deviceCredential, downTopic, upTopic, type ConfigMsg } from '@cpc/contracts/device-protocol';
import { createFleet, type Fleet, type FleetOptions } from '../../device-sim/src/fleet.ts';
import { setSimPlans } from '../../device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../../device-sim/src/specs.ts';
import type { VirtualDevice } from '../../device-sim/src/device.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, deviceRow, devicesOf, waitUntil, type Customer } from './device-helpers.ts';
import { secondNode } from './second-node.ts';

/**
 * Data traffic on the wire (issue 13): the gateway answers a hello with the SIM's plan; a simulated device whose
 * SIM runs out says offline with reason `no-data`, keeps trying, and comes back once a top-up (the plan raised
 * and `down/config` with `sim`, as the order fulfilment does) gives it room; one without a plan never runs out.
 */
describe('SIM data on the device link', () => {
  const specs = makeSpecs(8, { seed: 31, prefix: 'SDT' });
  let h: Harness;
  let A: Customer;
  let url: string;
  let base: string;
  const fleets: Fleet[] = [];

  async function device(spec: DeviceSpec, opts: Partial<FleetOptions> = {}): Promise<VirtualDevice> {
    const f = await createFleet({
      url,
      specs: [spec],
      seed: 31,
      heartbeatS: 1,
      start: false,
      randomFaults: false,
      dataProfile: 'heavy',
      // heavy is at least 8 MB an hour by day: a simulated 2 hours a second uses a MB within a few heartbeats
      dataRateScale: 7200,
      dataRetryS: 1,
      ...opts,
    });
    fleets.push(f);
    return f.devices[0];
  }
  const statusLog = (sn: string) =>
    h.db
      .selectFrom('device_status_log')
      .innerJoin('devices', 'devices.id', 'device_status_log.device_id')
      .select(['device_status_log.status', 'device_status_log.reason'])
      .where('devices.sn', '=', sn)
      .orderBy('device_status_log.id')
      .execute();
  const simRow = (iccid: string) =>
    h.db.selectFrom('sims').selectAll().where('iccid', '=', iccid).executeTakeFirstOrThrow();

  beforeAll(async () => {
    h = await createHarness({ SWEEP_INTERVAL_MS: '200', LAST_SEEN_FLUSH_MS: '100' });
    A = await customer(h);
    await devicesOf(h, A.tenantId, specs);
    url = h.app.gateway.deviceUrl;
    // the sandbox gateway notifies the server's own origin
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await Promise.all(fleets.map((f) => f.stop()));
    await h?.close();
  });

  it('answers a hello that names a SIM with the plan the platform holds', async () => {
    const s = specs[0];
    const expires = new Date('2027-03-01T00:00:00Z');
    await setSimPlans(h.db, [s], () => ({ carrier: 'cmcc', planMb: 2048, expiresAt: expires }));
    const c = await mqtt.connectAsync(url, {
      clientId: s.sn,
      username: s.sn,
      password: deviceCredential(s.secret, s.sn),
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    try {
      const got: ConfigMsg[] = [];
      c.on('message', (topic, payload) => {
        if (topic === downTopic(s.sn, 'config')) got.push(configMsg.parse(JSON.parse(payload.toString())));
      });
      await c.subscribeAsync(`cp/v1/${s.sn}/down/#`, { qos: 1 });
      const hello = { ts: Date.now(), conn: randomUUID().slice(0, 12), fw: '1.4.2', iccid: s.iccid, usedMb: 12.5 };
      await c.publishAsync(
        upTopic(s.sn, 'hello'),
        JSON.stringify({ ...hello, txBytes: 2_000_000, rxBytes: 11_000_000 }),
        {
          qos: 1,
        },
      );
      const answer = await waitUntil('the plan in down/config', () => got.find((m) => m.sim));
      expect(answer.sim).toEqual({ iccid: s.iccid, planMb: 2048, expiresAt: expires.toISOString() });
      expect((await simRow(s.iccid)).used_mb).toBe('12.50');

      // a hello without an ICCID gets no plan
      got.length = 0;
      await c.publishAsync(upTopic(s.sn, 'hello'), JSON.stringify({ ...hello, conn: 'second', iccid: undefined }), {
        qos: 1,
      });
      await h.app.gateway.settled(s.sn);
      await h.app.gateway.send(s.sn, 'config', { serverTime: 1 });
      await waitUntil('the marker', () => got.some((m) => m.serverTime === 1));
      expect(got.filter((m) => m.sim)).toEqual([]);
    } finally {
      await c.endAsync();
    }
  });

  it('goes offline for lack of data when the SIM runs out, and comes back after a top-up', async () => {
    const s = specs[1];
    const d = await device(s);
    // 1 MB left of the plan, as the platform and the modem count it
    const used = d.usedMb;
    await setSimPlans(h.db, [s], () => ({ planMb: used + 1, usedMb: used, expiresAt: null }));
    await d.powerOn();
    // the answer to its hello told it the plan
    await waitUntil('the plan', () => d.sim.plan.planMb > 0);
    expect(d.sim.plan.planMb).toBeCloseTo(used + 1, 2);

    await waitUntil(
      'offline for lack of data',
      async () => (await deviceRow(h, s.sn)).status === 'offline' && d.noData,
    );
    expect(await statusLog(s.sn)).toContainEqual({ status: 'offline', reason: 'no-data' });
    // its last count reached the end of the plan: nothing left, the SIM is used up
    const sim = await waitUntil('the last count', async () => {
      const r = await simRow(s.iccid);
      return Number(r.used_mb) >= Number(r.plan_total_mb) ? r : null;
    });
    expect(sim.state).toBe('exhausted');
    expect(d.sim.rxBytes).toBeGreaterThanOrEqual(d.sim.txBytes * 3);
    expect(d.sim.rxBytes).toBeLessThanOrEqual(d.sim.txBytes * 5 + 5);

    // without a top-up, its tries (one a second) end offline again with no-data; it does no work meanwhile
    await new Promise((r) => setTimeout(r, 2500));
    expect(d.online).toBe(false);
    expect((await statusLog(s.sn)).filter((r) => r.reason === 'no-data').length).toBeGreaterThanOrEqual(2);

    // the top-up, as the order fulfilment makes it: the plan raised, and the device told (using data at the
    // real rate from now on: at the test's rate 100 MB would last seconds)
    d.sim.rateScale = 1;
    const plan = await h.db
      .updateTable('sims')
      .set({ plan_total_mb: sql`plan_total_mb + 100` })
      .where('iccid', '=', s.iccid)
      .returning(['plan_total_mb', 'expires_at'])
      .executeTakeFirstOrThrow();
    await h.app.gateway.send(s.sn, 'config', {
      sim: { iccid: s.iccid, planMb: Number(plan.plan_total_mb), expiresAt: null, orderNo: 'T-1' },
    });
    await d.waitOnline(8000);
    expect(d.noData).toBe(false);
    expect(d.sim.plan.planMb).toBeCloseTo(used + 101, 2);
    await waitUntil('online again', async () => (await deviceRow(h, s.sn)).status === 'online');

    // it stays online and works: a command is carried out
    await new Promise((r) => setTimeout(r, 2000));
    expect((await deviceRow(h, s.sn)).status).toBe('online');
    expect((await statusLog(s.sn)).at(-1)).toEqual({ status: 'online', reason: 'hello' });
    const id = randomUUID();
    await h.app.gateway.send(s.sn, 'command', {
      id,
      type: 'push_message',
      params: {},
      expireAt: new Date(Date.now() + 60_000).toISOString(),
      attempt: 1,
    });
    await waitUntil('the command carried out', () => d.executed.some((e) => e.id === id));
  });

  it('stops at once when the platform says the plan is used up, and an expired SIM stays offline', async () => {
    const s = specs[2];
    const d = await device(s, { dataRateScale: 1 });
    await setSimPlans(h.db, [s], () => ({ planMb: 5120, expiresAt: new Date(Date.now() + 86_400_000) }));
    await d.powerOn();
    await new Promise((r) => setTimeout(r, 1500));
    expect((await deviceRow(h, s.sn)).status).toBe('online');

    // the plan as the platform now knows it: expired yesterday
    const expiresAt = new Date(Date.now() - 86_400_000);
    await setSimPlans(h.db, [s], () => ({ expiresAt }));
    await h.app.gateway.send(s.sn, 'config', {
      sim: { iccid: s.iccid, planMb: 5120, expiresAt: expiresAt.toISOString() },
    });
    await waitUntil('offline for lack of data', async () => (await deviceRow(h, s.sn)).status === 'offline');
    expect((await statusLog(s.sn)).at(-1)).toEqual({ status: 'offline', reason: 'no-data' });
    // a renewal (a new expiry) brings it back at its next try
    await setSimPlans(h.db, [s], () => ({ expiresAt: new Date(Date.now() + 30 * 86_400_000) }));
    await d.waitOnline(8000);
    await waitUntil('online again', async () => (await deviceRow(h, s.sn)).status === 'online');
  });

  it('never runs out on a SIM without a plan', async () => {
    const s = specs[3];
    const d = await device(s);
    expect((await simRow(s.iccid)).plan_total_mb).toBe('0.00');
    const before = d.usedMb;
    await d.powerOn();
    await new Promise((r) => setTimeout(r, 4000));
    expect(d.usedMb).toBeGreaterThan(before + 1);
    expect(d.noData).toBe(false);
    expect((await deviceRow(h, s.sn)).status).toBe('online');
    expect((await statusLog(s.sn)).map((r) => r.reason)).not.toContain('no-data');
    // what it used reached the platform
    await waitUntil('the count', async () => Number((await simRow(s.iccid)).used_mb) > before + 1);
  });
  it('keeps a device online while its SIM roll-up waits: presence never waits for the counters', async () => {
    const s = specs[4];
    const d = await device(s);
    await d.powerOn();
    await waitUntil('online', async () => (await deviceRow(h, s.sn)).status === 'online');
    await waitUntil('counted', async () => Number((await simRow(s.iccid)).used_mb) > 0);
    // another node sweeps too (a device is offline after 2.5 heartbeats without a last-seen write, whichever node
    // it talks to); another transaction holds the SIM's row for 6 s (a fulfilment, the SIM sweep, a slow disk),
    // so the batched roll-up that holds this SIM's next report waits for it. The first batched roll-up wrote
    // last-seen times after the roll-up: they waited with it, and the other node took the device for silent.
    const other = await secondNode(h);
    const held = Date.now();
    let usedAtRelease = 0;
    try {
      await h.db.transaction().execute(async (trx) => {
        await sql`SELECT 1 FROM sims WHERE iccid = ${s.iccid} FOR UPDATE`.execute(trx);
        await new Promise((r) => setTimeout(r, 6000));
        const row = await deviceRow(h, s.sn);
        expect(row.status).toBe('online');
        expect(new Date(row.last_seen_at!).getTime()).toBeGreaterThan(held + 4000);
        usedAtRelease = d.usedMb;
      });
    } finally {
      await other.close();
    }
    expect((await statusLog(s.sn)).map((r) => r.status)).not.toContain('offline');
    // and the counters reach the SIM once it is free: nothing was lost meanwhile
    await waitUntil('the counters', async () => Number((await simRow(s.iccid)).used_mb) >= usedAtRelease - 0.01);
  });

  it('tells a device that was off when its top-up was paid its new plan at its next hello: it works again', async () => {
    const s = specs[5];
    const d = await device(s);
    const used = d.usedMb;
    await setSimPlans(h.db, [s], () => ({ carrier: 'cmcc', planMb: used + 1, usedMb: used, expiresAt: null }));
    await d.powerOn();
    await waitUntil(
      'offline for lack of data',
      async () => (await deviceRow(h, s.sn)).status === 'offline' && d.noData,
    );
    // its last count reaches the roll-up within a flush interval
    await waitUntil('used up', async () => (await simRow(s.iccid)).state === 'exhausted');
    // switched off: it hears nothing while the customer tops it up
    await d.stop();
    const staff = (await h.login('admin', ADMIN_PASSWORD)).token;
    const call = (url: string, token: string, payload: object) =>
      h.call({ method: 'POST', url: `/apiAdmin${url}`, token, payload });
    const pkg = await call('/order/package/create', staff, {
      // at the test's fast rate a heavy SIM uses up to 65 MB a second: this lasts the rest of the test
      name: 'Top-up 100 GB',
      dataMb: 100_000,
      validityDays: 30,
      priceFen: 500,
      onShelf: true,
    });
    expect(pkg.statusCode, pkg.body).toBe(200);
    const order = await call('/order/create', A.token, {
      clientRequestId: randomUUID(),
      lines: [{ iccid: s.iccid, packageId: pkg.body_.data.id }],
    });
    expect(order.statusCode, order.body).toBe(200);
    const pay = await fetch(`${base}/apiAdmin/order/pay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${A.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: order.body_.data.id }),
    });
    const cashier = new URL(((await pay.json()) as { data: { cashierUrl: string } }).data.cashierUrl);
    const paid = await fetch(`${base}/pay/sandbox/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ trade: cashier.searchParams.get('trade')!, action: 'pay', lang: 'en' }).toString(),
    });
    expect(paid.status).toBe(200);
    await waitUntil('fulfilled', async () => {
      const o = await h.db
        .selectFrom('orders')
        .select('state')
        .where('id', '=', order.body_.data.id)
        .executeTakeFirstOrThrow();
      return o.state === 'fulfilled';
    });
    const sim = await simRow(s.iccid);
    expect(Number(sim.plan_total_mb)).toBeCloseTo(used + 100_001, 2);
    expect(sim.state).toBe('active');
    // the fulfilment's down/config went nowhere: the device still counts its old plan
    expect(d.sim.plan.planMb).toBeCloseTo(used + 1, 2);

    // switched on: the answer to its hello carries the plan; it leaves no-data, works and uses data again
    d.sim.rateScale = 1;
    await d.powerOn(10_000);
    expect(d.noData).toBe(false);
    expect(d.sim.plan.planMb).toBeCloseTo(used + 100_001, 2);
    await waitUntil('online again', async () => (await deviceRow(h, s.sn)).status === 'online');
    const back = d.usedMb;
    d.sim.rateScale = 7200;
    await waitUntil('using data again', () => d.usedMb > back + 0.5);
    await waitUntil('its use counted', async () => Number((await simRow(s.iccid)).used_mb) > back);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await deviceRow(h, s.sn)).status).toBe('online');
    expect((await statusLog(s.sn)).at(-1)).toEqual({ status: 'online', reason: 'hello' });
  });
});
