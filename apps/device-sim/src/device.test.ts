import net from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downTopic, parseTopic } from '@cpc/contracts/device-protocol';
import { createFleet, type Fleet } from './fleet.ts';

/**
 * The simulated device's data life against a stand-in for the platform: an in-process Aedes broker and a client
 * that answers each hello with the SIM's plan it holds (`down/config` with `sim`), as the gateway does.
 */
describe('a simulated device out of data', () => {
  let broker: Aedes;
  let server: net.Server;
  let url: string;
  let platform: MqttClient;
  /** The plan the stand-in platform holds per ICCID; none: the SIM is unknown, the hello goes unanswered. */
  const plans = new Map<string, { planMb: number; expiresAt: string | null }>();
  const up: Array<{ sn: string; kind: string; body: Record<string, unknown> }> = [];
  const fleets: Fleet[] = [];

  beforeAll(async () => {
    broker = await Aedes.createBroker();
    server = net.createServer(broker.handle);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `mqtt://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    platform = await mqtt.connectAsync(url, { clientId: 'platform', protocolVersion: 4 });
    platform.on('message', (topic, payload) => {
      const t = parseTopic(topic);
      if (!t) return;
      const body = JSON.parse(payload.toString()) as Record<string, unknown>;
      up.push({ sn: t.sn, kind: t.kind, body });
      const plan = typeof body.iccid === 'string' ? plans.get(body.iccid) : undefined;
      if (t.kind === 'hello' && plan)
        void platform.publishAsync(downTopic(t.sn, 'config'), JSON.stringify({ sim: { iccid: body.iccid, ...plan } }), {
          qos: 1,
        });
    });
    await platform.subscribeAsync('cp/v1/+/up/#', { qos: 1 });
  });

  afterAll(async () => {
    await Promise.all(fleets.map((f) => f.stop()));
    await platform?.endAsync();
    await new Promise<void>((r) => broker.close(() => r()));
    await new Promise<void>((r) => server.close(() => r()));
  });

  async function one(seed: number) {
    const f = await createFleet({
      url,
      devices: 1,
      seed,
      heartbeatS: 1,
      randomFaults: false,
      dataProfile: 'heavy',
      dataRateScale: 7200,
      dataRetryS: 1,
      start: false,
    });
    fleets.push(f);
    return f.devices[0];
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const until = async (what: string, ok: () => boolean, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await sleep(20);
    }
  };

  it('reports its counters, runs out, says offline for no-data, retries, and works again after a top-up', async () => {
    const d = await one(41);
    plans.set(d.spec.iccid, { planMb: d.usedMb + 0.5, expiresAt: null });
    await d.powerOn();
    await until('its hello', () => up.some((m) => m.sn === d.sn && m.kind === 'hello'));
    const hello = up.find((m) => m.sn === d.sn && m.kind === 'hello')!;
    expect(hello.body).toMatchObject({ iccid: d.spec.iccid, usedMb: expect.any(Number) });
    expect(Number(hello.body.rxBytes)).toBeGreaterThan(Number(hello.body.txBytes) * 3 - 1);

    await until('out of data', () => d.noData && d.phase === 'off');
    const mine = () => up.filter((m) => m.sn === d.sn);
    const offline = mine().filter((m) => m.kind === 'offline');
    expect(offline[0].body.reason).toBe('no-data');
    // the last count before it went: the whole plan
    const traffic = mine().filter((m) => m.kind === 'traffic');
    expect(traffic.at(-1)!.body).toMatchObject({ usedMb: plans.get(d.spec.iccid)!.planMb, iccid: d.spec.iccid });
    expect(traffic.at(-1)!.body.txBytes).toEqual(expect.any(Number));

    // every second it tries: hello, the answer (still no room), offline again; it never comes online
    let cameOnline = false;
    d.on('online', () => (cameOnline = true));
    await sleep(2500);
    expect(mine().filter((m) => m.kind === 'hello').length).toBeGreaterThanOrEqual(3);
    expect(mine().filter((m) => m.kind === 'offline' && m.body.reason === 'no-data').length).toBeGreaterThanOrEqual(3);
    expect(cameOnline).toBe(false);
    // nothing out of data: no heartbeats while it tries
    const beats = mine().filter((m) => m.kind === 'heartbeat').length;
    await sleep(1200);
    expect(mine().filter((m) => m.kind === 'heartbeat').length).toBe(beats);

    // a top-up: the next try's answer has room (and from now on it uses data at the real rate)
    d.sim.rateScale = 1;
    plans.set(d.spec.iccid, { planMb: d.usedMb + 100, expiresAt: null });
    await d.waitOnline(5000);
    expect(d.noData).toBe(false);
    await sleep(1500);
    expect(d.online).toBe(true);
    expect(mine().filter((m) => m.kind === 'heartbeat').length).toBeGreaterThan(beats);
  });

  it('takes a plan sent while online at once, and never runs out without one', async () => {
    const d = await one(42);
    await d.powerOn(); // unknown SIM: no answer, no plan
    const before = d.usedMb;
    await sleep(2500);
    expect(d.usedMb).toBeGreaterThan(before);
    expect(d.online).toBe(true);
    // the platform tells it the plan is used up
    await platform.publishAsync(
      downTopic(d.sn, 'config'),
      JSON.stringify({ sim: { iccid: d.spec.iccid, planMb: 1, expiresAt: null } }),
      { qos: 1 },
    );
    await until('out of data', () => d.noData);
    // a plan for another SIM is not its own
    const other = await one(43);
    await other.powerOn();
    await platform.publishAsync(
      downTopic(other.sn, 'config'),
      JSON.stringify({ sim: { iccid: d.spec.iccid, planMb: 1, expiresAt: null } }),
      { qos: 1 },
    );
    await sleep(1500);
    expect(other.online).toBe(true);
    expect(other.sim.plan.planMb).toBe(0);
  });
});
