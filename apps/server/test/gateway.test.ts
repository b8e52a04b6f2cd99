import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceCredential, staticDeviceCredential } from '@cpc/contracts/device-protocol';
import { buildApp } from '../src/app.ts';
import { createDb } from '../src/db/database.ts';
import type { AddressInfo } from 'node:net';
import { createFleet, type Fleet } from '../../device-sim/src/fleet.ts';
import { httpControl } from '../../device-sim/src/control.ts';
import { registerInDb } from '../../device-sim/src/register-db.ts';
import { makeSpecs, type DeviceSpec } from '../../device-sim/src/specs.ts';
import { FAULT_CHANCE, randomFault, type VirtualDevice } from '../../device-sim/src/device.ts';
import { createHarness, type Harness } from './harness.ts';
import { startMosquitto, type Mosquitto } from './mosquitto.ts';
import {
  customer,
  deviceRow,
  devicesOf,
  openEvents,
  taskRow,
  waitUntil,
  type Customer,
  type EventStream,
} from './device-helpers.ts';

/**
 * The device gateway end to end (DESIGN §6): real devices (the fleet simulator) over real MQTT, against the
 * embedded Aedes broker and against Debian's Mosquitto with the server on a shared subscription — with devices
 * in a password file (provisioned by hand), and with the dynamic-security plugin (provisioned by the server).
 */
const BROKERS = {
  aedes: { seed: 21, prefix: 'GWA' },
  mosquitto: { seed: 22, prefix: 'GWM' },
  'mosquitto-dynsec': { seed: 23, prefix: 'GWD' },
} as const;
describe.each(Object.keys(BROKERS) as Array<keyof typeof BROKERS>)('device gateway on %s', (broker) => {
  const { seed, prefix } = BROKERS[broker];
  const specs = makeSpecs(30, { seed, prefix });
  const mine = specs.slice(0, 27);
  const theirs = specs.slice(27);
  const credential = broker === 'aedes' ? 'timed' : 'static';
  const password = (s: DeviceSpec) =>
    credential === 'static' ? staticDeviceCredential(s.secret, s.sn) : deviceCredential(s.secret, s.sn);
  let h: Harness;
  let mosq: Mosquitto | undefined;
  let base: string;
  let url: string;
  let A: Customer;
  let B: Customer;
  let ids: Map<string, number>;
  const fleets: Fleet[] = [];
  const streams: EventStream[] = [];
  const raws: MqttClient[] = [];
  let next = 0;
  /** A spec of tenant A no other test has used. */
  const fresh = () => mine[next++];

  async function device(spec: DeviceSpec, heartbeatS = 30, stepMs = 100): Promise<VirtualDevice> {
    const f = await createFleet({
      url,
      specs: [spec],
      seed,
      heartbeatS,
      credential,
      start: false,
      rebootDelayMs: 300,
      workMs: 200,
      stepMs,
    });
    fleets.push(f);
    return f.devices[0];
  }
  async function events(token: string) {
    const s = await openEvents(h, base, token);
    streams.push(s);
    return s;
  }
  async function raw(spec: DeviceSpec, extra: mqtt.IClientOptions = {}): Promise<MqttClient> {
    const c = await mqtt.connectAsync(url, {
      clientId: spec.sn,
      username: spec.sn,
      password: password(spec),
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      ...extra,
    });
    raws.push(c);
    return c;
  }
  const command = (token: string, payload: Record<string, unknown>) =>
    h.call({ method: 'POST', url: '/apiAdmin/device/command', token, payload });
  // online, and the hello handled to its end: its resend of pending tasks would otherwise also send a command
  // given right after it (a second attempt, at-least-once, but not what a test counting attempts expects)
  const online = async (sn: string) => {
    const row = await waitUntil(`${sn} online`, async () =>
      (await deviceRow(h, sn)).status === 'online' ? deviceRow(h, sn) : null,
    );
    await h.app.gateway.settled(sn);
    return row;
  };
  const offline = (sn: string) => waitUntil(`${sn} offline`, async () => (await deviceRow(h, sn)).status === 'offline');
  const statusLog = (sn: string) =>
    h.db
      .selectFrom('device_status_log')
      .innerJoin('devices', 'devices.id', 'device_status_log.device_id')
      .select(['device_status_log.status', 'device_status_log.reason'])
      .where('devices.sn', '=', sn)
      .orderBy('device_status_log.id')
      .execute();
  /** A marker message after which everything the server sent the device earlier has arrived (one publisher, in order). */
  async function sentinel(d: VirtualDevice): Promise<string> {
    const id = randomUUID();
    d.ignoreCommands = true;
    await h.app.gateway.send(d.sn, 'command', {
      id,
      type: 'push_message',
      params: {},
      expireAt: new Date(Date.now() + 60_000).toISOString(),
      attempt: 1,
    });
    await waitUntil('the marker', () => d.received.some((m) => m.id === id));
    return id;
  }

  beforeAll(async () => {
    if (broker === 'mosquitto') {
      mosq = await startMosquitto({
        serverUsers: { 'cpc-server': 'Server-Passw0rd' },
        users: Object.fromEntries(specs.map((s) => [s.sn, staticDeviceCredential(s.secret, s.sn)])),
      });
    }
    if (broker === 'mosquitto-dynsec')
      mosq = await startMosquitto({ mode: 'dynsec', serverUsers: { 'cpc-server': 'Server-Passw0rd' } });
    h = await createHarness({
      SWEEP_INTERVAL_MS: '200',
      LAST_SEEN_FLUSH_MS: '100',
      TASK_ACK_TIMEOUT_S: '1',
      TASK_RESULT_TIMEOUT_S: '2',
      TASK_RETRY_BACKOFF_S: '0',
      ...(mosq ? { MQTT_URL: mosq.urlFor('cpc-server') } : {}),
      ...(broker === 'mosquitto-dynsec' ? { MQTT_DYNSEC: 'on' } : {}),
    });
    [A, B] = [await customer(h), await customer(h)];
    ids = new Map([...(await devicesOf(h, A.tenantId, mine)), ...(await devicesOf(h, B.tenantId, theirs))]);
    // with dynamic security the server itself puts every registered device on the broker, within a sweep
    if (broker === 'mosquitto-dynsec')
      await waitUntil(
        'the devices provisioned',
        async () =>
          (await h.db.selectFrom('devices').select('id').where('broker_synced_at', 'is', null).execute()).length === 0,
      );
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    url = mosq?.url ?? h.app.gateway.deviceUrl;
  });

  afterAll(async () => {
    streams.forEach((s) => s.close());
    raws.forEach((c) => c.end(true));
    await Promise.all(fleets.map((f) => f.stop()));
    await h?.close();
    await mosq?.stop();
  });

  it('refuses wrong credentials', async () => {
    const s = fresh();
    const other = fresh();
    const attempt = (opts: mqtt.IClientOptions) =>
      mqtt
        .connectAsync(url, {
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: 5000,
          clientId: s.sn,
          username: s.sn,
          ...opts,
        })
        .then(
          (c) => {
            c.end(true);
            return 'accepted';
          },
          () => 'refused',
        );
    expect(await attempt({ password: password(s) })).toBe('accepted');
    expect(await attempt({ password: 'not-the-password' })).toBe('refused');
    expect(await attempt({})).toBe('refused');
    // a valid credential of another device is no credential for this one
    expect(await attempt({ password: password(other) })).toBe('refused');
    expect(
      await attempt({
        username: 'NOSUCH-0001',
        clientId: 'NOSUCH-0001',
        password: deviceCredential(s.secret, 'NOSUCH-0001'),
      }),
    ).toBe('refused');
    if (broker === 'aedes') {
      // the timed credential: outside the clock window, or the static form, is refused
      expect(await attempt({ password: deviceCredential(s.secret, s.sn, Math.floor(Date.now() / 1000) - 3600) })).toBe(
        'refused',
      );
      expect(await attempt({ password: staticDeviceCredential(s.secret, s.sn) })).toBe('refused');
      expect(await attempt({ clientId: other.sn, password: password(s) })).toBe('refused');
      expect(h.app.gateway.stats().authFailures).toBeGreaterThanOrEqual(7);
    }
    expect((await deviceRow(h, s.sn)).status).toBe('offline');
  });

  it('keeps a device to its own topics: what it publishes or subscribes elsewhere never reaches the server or it', async () => {
    const me = fresh();
    const victim = fresh();
    const before = h.app.gateway.stats().received.hello ?? 0;
    const c = await raw(me);
    const outcome = await Promise.race([
      c
        .publishAsync(`cp/v1/${victim.sn}/up/hello`, JSON.stringify({ conn: 'forged', fw: 'forged' }), { qos: 1 })
        .then(() => 'acknowledged'),
      new Promise<string>((resolve) => c.once('close', () => resolve('disconnected'))),
    ]);
    // Aedes drops the connection; Mosquitto (MQTT 3.1.1) acknowledges and discards
    expect(outcome).toBe(broker === 'aedes' ? 'disconnected' : 'acknowledged');
    // a marker on the device's own topic: once it is handled, the forged message would have been too
    const events0 = h.app.gateway.stats().received.event ?? 0;
    const c2 = c.connected ? c : await raw(me);
    await c2.publishAsync(`cp/v1/${me.sn}/up/event`, JSON.stringify({ kind: 'marker' }), { qos: 1 });
    await waitUntil('the marker', () => (h.app.gateway.stats().received.event ?? 0) > events0);
    expect(h.app.gateway.stats().received.hello ?? 0).toBe(before);
    expect(await deviceRow(h, victim.sn)).toMatchObject({ status: 'offline', firmware: '', last_seen_at: null });

    // subscriptions outside its own down topics are refused (Aedes) or deliver nothing (Mosquitto's read ACL)
    const listener = await raw(me, { clientId: `${me.sn}` });
    const got: string[] = [];
    listener.on('message', (topic) => got.push(topic));
    const granted = await Promise.all(
      [`cp/v1/${victim.sn}/down/#`, 'cp/v1/+/down/#', `cp/v1/${me.sn}/down/#`].map((f) =>
        listener.subscribeAsync(f, { qos: 1 }).then(
          (g) => g[0].qos,
          () => 128,
        ),
      ),
    );
    if (broker === 'aedes') expect(granted).toEqual([128, 128, 1]);
    await h.app.gateway.send(victim.sn, 'config', { serverTime: 1 });
    await h.app.gateway.send(me.sn, 'config', { serverTime: 2 });
    await waitUntil('its own message', () => got.includes(`cp/v1/${me.sn}/down/config`));
    // (with Mosquitto the overlapping wildcard may bring its own message twice; never another device's)
    expect([...new Set(got)]).toEqual([`cp/v1/${me.sn}/down/config`]);
  });

  it('marks a device online on hello, records it, and tells only its tenant’s consoles', async () => {
    const s = fresh();
    const evA = await events(A.token);
    const evB = await events(B.token);
    const d = await device(s);
    await d.powerOn();
    const row = await online(s.sn);
    expect(row).toMatchObject({
      firmware: '1.4.2',
      imei: s.imei,
      iccid: s.iccid,
      heartbeat_s: 30,
      conn_id: expect.any(String),
    });
    expect(row.connected_at).toBeInstanceOf(Date);
    expect(row.battery).toEqual(expect.any(Number));
    expect(row.province).not.toBe('');
    expect(await statusLog(s.sn)).toEqual([{ status: 'online', reason: 'hello' }]);
    const ev = await evA.waitFor(
      'the online event',
      (e) => e.type === 'device' && e.data.sn === s.sn && e.data.status === 'online',
    );
    expect(ev.data).toMatchObject({
      id: ids.get(s.sn),
      paper: 'ok',
      province: row.province,
      connectedAt: expect.any(String),
    });

    // paper runs out: the database and the console follow
    d.runOutOfPaper();
    await waitUntil('paper out in the database', async () => (await deviceRow(h, s.sn)).paper === 'out');
    await evA.waitFor('the paper event', (e) => e.type === 'device' && e.data.sn === s.sn && e.data.paper === 'out');
    const telemetry = await h.db
      .selectFrom('device_telemetry')
      .select('paper')
      .where('device_id', '=', ids.get(s.sn)!)
      .execute();
    expect(telemetry.map((t) => t.paper)).toContain('out');

    // tenant B's console: once its own device's event is there, A's would have been too
    const b = await device(theirs[0]);
    await b.powerOn();
    await evB.waitFor("B's own device", (e) => e.type === 'device' && e.data.sn === theirs[0].sn);
    expect(evB.events.filter((e) => e.type === 'device' && e.data.sn === s.sn)).toEqual([]);
  });

  it('marks a device offline by its last will when it dies', async () => {
    const s = fresh();
    const ev = await events(A.token);
    const d = await device(s);
    await d.powerOn();
    await online(s.sn);
    d.kill();
    await offline(s.sn);
    const log = await statusLog(s.sn);
    expect(log.at(-1)!.status).toBe('offline');
    // Aedes also sees the socket close; whichever comes first writes the row, once
    expect(broker === 'aedes' ? ['lost', 'disconnect'] : ['lost']).toContain(log.at(-1)!.reason);
    expect(log.filter((l) => l.status === 'offline')).toHaveLength(1);
    expect((await deviceRow(h, s.sn)).connected_at).toBeNull();
    await ev.waitFor(
      'the offline event',
      (e) => e.type === 'device' && e.data.sn === s.sn && e.data.status === 'offline',
    );
  });

  it('marks a silent device offline after 2.5 heartbeat intervals, and back online when it talks again', async () => {
    const quietSpec = fresh();
    const chattySpec = fresh();
    const quiet = await device(quietSpec, 2);
    const chatty = await device(chattySpec, 2);
    await Promise.all([quiet.powerOn(), chatty.powerOn()]);
    expect((await online(quietSpec.sn)).heartbeat_s).toBe(2);
    await online(chattySpec.sn);
    quiet.silent = true;
    await offline(quietSpec.sn);
    expect((await statusLog(quietSpec.sn)).at(-1)).toEqual({ status: 'offline', reason: 'heartbeat timeout' });
    // the device still heartbeating at the same interval stayed online all along
    expect((await deviceRow(h, chattySpec.sn)).status).toBe('online');
    expect((await statusLog(chattySpec.sn)).map((l) => l.status)).toEqual(['online']);
    // heard again while the database says offline: the server asks for a hello, and it is online again
    quiet.silent = false;
    await online(quietSpec.sn);
  });

  it('delivers a command to an offline device when it comes back, and runs it once though it arrives twice', async () => {
    const s = fresh();
    // a reboot that takes a second: the repeat below arrives while the device is still connected
    const d = await device(s, 30, 1000);
    const res = await command(A.token, { deviceIds: [ids.get(s.sn)], type: 'reboot' });
    expect(res.statusCode).toBe(200);
    expect(res.body_.data.batchId).toBeNull();
    const [taskId] = res.body_.data.taskIds;
    expect((await taskRow(h, taskId)).state).toBe('queued');
    // the broker may deliver twice (QoS 1): the same message again, as soon as the first one is in
    d.once('command', (m) => void h.app.gateway.send(s.sn, 'command', m));
    await d.powerOn();
    await waitUntil('the task succeeded', async () => (await taskRow(h, taskId)).state === 'succeeded');
    await waitUntil('the repeat arrived', () => d.received.filter((m) => m.id === taskId).length >= 2);
    expect(d.executed.filter((e) => e.id === taskId)).toHaveLength(1);
    expect(await taskRow(h, taskId)).toMatchObject({ attempts: 1, progress: 100, error: '' });
    // the reboot itself: offline on purpose, then back with a hello
    await waitUntil(
      'back after the reboot',
      async () => (await statusLog(s.sn)).length >= 3 && (await deviceRow(h, s.sn)).status === 'online',
    );
    expect(await statusLog(s.sn)).toEqual([
      { status: 'online', reason: 'hello' },
      { status: 'offline', reason: 'reboot' },
      { status: 'online', reason: 'hello' },
    ]);
    await h.app.gateway.settled(s.sn);
    expect(d.executed.filter((e) => e.id === taskId)).toHaveLength(1);
    const list = await h.call({
      method: 'GET',
      url: `/apiAdmin/device/task/list?deviceId=${ids.get(s.sn)}`,
      token: A.token,
    });
    expect(list.body_.data.list[0]).toMatchObject({ id: taskId, state: 'succeeded', deviceSn: s.sn, type: 'reboot' });
  });

  it('times out a command nobody acknowledges, sends it again, then fails it', async () => {
    const s = fresh();
    const ev = await events(A.token);
    const d = await device(s);
    d.ignoreCommands = true;
    await d.powerOn();
    await online(s.sn);
    const res = await command(A.token, { deviceIds: [ids.get(s.sn)], type: 'reboot' });
    const [taskId] = res.body_.data.taskIds;
    await waitUntil('the task failed', async () => (await taskRow(h, taskId)).state === 'failed');
    const row = await taskRow(h, taskId);
    expect(row).toMatchObject({ attempts: 3, max_attempts: 3 });
    expect(row.error).toMatch(/no acknowledgement/);
    expect(d.received.filter((m) => m.id === taskId).map((m) => m.attempt)).toEqual([1, 2, 3]);
    await ev.waitFor('the failed event', (e) => e.type === 'task' && e.data.id === taskId && e.data.state === 'failed');
    const states = ev.events.flatMap((e) => (e.type === 'task' && e.data.id === taskId ? [e.data.state] : []));
    // a command for a device online now is stored already sent (one commit): it is never announced as queued
    expect(states).toEqual(['sent', 'timeout', 'sent', 'timeout', 'sent', 'failed']);
    // a late ack cannot bring it back
    d.ignoreCommands = false;
    await d.publishRaw('ack', JSON.stringify({ id: taskId, ok: true }));
    await h.app.gateway.settled(s.sn);
    expect((await taskRow(h, taskId)).state).toBe('failed');
  });

  it('expires a command whose device stays offline past its expiry; the device never gets it', async () => {
    const s = fresh();
    const d = await device(s);
    const res = await command(A.token, { deviceIds: [ids.get(s.sn)], type: 'reboot', expireInSec: 1 });
    const [taskId] = res.body_.data.taskIds;
    await waitUntil('expired', async () => (await taskRow(h, taskId)).state === 'expired');
    expect((await taskRow(h, taskId)).error).toMatch(/expired/);
    await d.powerOn();
    await online(s.sn);
    await h.app.gateway.settled(s.sn);
    const marker = await sentinel(d);
    expect(d.received.map((m) => m.id)).toEqual([marker]);
  });

  it('cancels a command before the device takes it; the device never gets it', async () => {
    const s = fresh();
    const d = await device(s);
    const res = await command(A.token, { deviceIds: [ids.get(s.sn)], type: 'shutdown' });
    const [taskId] = res.body_.data.taskIds;
    const cancel = await h.call({ method: 'POST', url: `/apiAdmin/device/task/${taskId}/cancel`, token: A.token });
    expect(cancel.body_).toMatchObject({ code: 200, data: { id: taskId, state: 'canceled' } });
    const again = await h.call({ method: 'POST', url: `/apiAdmin/device/task/${taskId}/cancel`, token: A.token });
    expect(again.statusCode).toBe(400);
    expect(again.body_.data.fields[0].field).toBe('id');
    await d.powerOn();
    await online(s.sn);
    await h.app.gateway.settled(s.sn);
    const marker = await sentinel(d);
    expect(d.received.map((m) => m.id)).toEqual([marker]);
    expect((await taskRow(h, taskId)).state).toBe('canceled');
  });

  it("never lets a device with valid credentials take another device's client id: the other stays connected and online", async () => {
    const victim = fresh();
    const me = fresh();
    const d = await device(victim);
    const offlineSeen: string[] = [];
    d.on('offline', () => offlineSeen.push('offline'));
    await d.powerOn();
    await online(victim.sn);
    const log0 = await statusLog(victim.sn);
    // my own valid credentials and the victim's serial number as client id (taking a client id over ends the
    // session that holds it, and fires its last will)
    const attempt = await mqtt
      .connectAsync(url, {
        clientId: victim.sn,
        username: me.sn,
        password: password(me),
        protocolVersion: 4,
        reconnectPeriod: 0,
        connectTimeout: 5000,
        will: {
          topic: `cp/v1/${me.sn}/up/offline`,
          payload: Buffer.from(JSON.stringify({ reason: 'lost' })),
          qos: 1,
          retain: false,
        },
      })
      .then(
        (c) => {
          raws.push(c);
          return c;
        },
        () => null,
      );
    // Aedes refuses a client id that is not the user name; Mosquitto's device listener makes the user name the id
    if (broker === 'aedes') expect(attempt).toBeNull();
    else expect(attempt).not.toBeNull();
    attempt?.stream.destroy();
    await new Promise((r) => setTimeout(r, 800));
    const events0 = h.app.gateway.stats().received.event ?? 0;
    await d.publishRaw('event', JSON.stringify({ kind: 'marker' }));
    await waitUntil('the marker', () => (h.app.gateway.stats().received.event ?? 0) > events0);
    await h.app.gateway.settled();
    expect(offlineSeen).toEqual([]);
    expect(d.online).toBe(true);
    expect((await deviceRow(h, victim.sn)).status).toBe('online');
    expect(await statusLog(victim.sn)).toEqual(log0);
  });

  it('ignores an offline message or a last will that does not name the current connection', async () => {
    const s = fresh();
    const d = await device(s);
    await d.powerOn();
    const { conn_id } = await online(s.sn);
    const stale = h.app.gateway.stats().staleOffline;
    await d.publishRaw('offline', JSON.stringify({ reason: 'lost' }));
    await d.publishRaw('offline', JSON.stringify({ conn: 'an-older-connection', reason: 'lost' }));
    await waitUntil('both ignored', () => h.app.gateway.stats().staleOffline >= stale + 2);
    expect((await deviceRow(h, s.sn)).status).toBe('online');
    // the one of the current connection counts
    await d.publishRaw('offline', JSON.stringify({ conn: conn_id, reason: 'lost' }));
    await offline(s.sn);
    expect((await statusLog(s.sn)).at(-1)).toEqual({ status: 'offline', reason: 'lost' });
  });

  it('sends a task the device took but never reported again on hello, without a new attempt; the device reports it again', async () => {
    const s = fresh();
    const d = await device(s);
    await d.powerOn();
    await online(s.sn);
    // the reboot's result is lost with the connection the reboot ends
    d.loseResults = 1;
    const [taskId] = (await command(A.token, { deviceIds: [ids.get(s.sn)], type: 'reboot' })).body_.data.taskIds;
    await waitUntil('the task taken', async () => ['delivered', 'running'].includes((await taskRow(h, taskId)).state));
    await waitUntil('the task succeeded', async () => (await taskRow(h, taskId)).state === 'succeeded');
    // the hello after the reboot brought it again as the same delivery, and the device answered with its result
    expect(d.received.filter((m) => m.id === taskId).map((m) => m.attempt)).toEqual([1, 1]);
    expect(await taskRow(h, taskId)).toMatchObject({ attempts: 1, error: '' });
    expect(d.executed.filter((e) => e.id === taskId)).toHaveLength(1);
  });

  it('times out a task taken but never reported while the device stays online, sends it again, then fails it', async () => {
    const s = fresh();
    const ev = await events(A.token);
    // a device that acknowledges every delivery and never says more
    const c = await raw(s);
    await c.subscribeAsync(`cp/v1/${s.sn}/down/#`, { qos: 1 });
    const deliveries: number[] = [];
    c.on('message', (_topic, payload) => {
      const m = JSON.parse(payload.toString()) as { id?: string; attempt?: number };
      if (!m.id) return;
      deliveries.push(m.attempt!);
      void c.publishAsync(`cp/v1/${s.sn}/up/ack`, JSON.stringify({ id: m.id, ok: true }), { qos: 1 });
    });
    await c.publishAsync(`cp/v1/${s.sn}/up/hello`, JSON.stringify({ conn: 'raw-1', fw: '1.0.0' }), { qos: 1 });
    await online(s.sn);
    const [taskId] = (await command(A.token, { deviceIds: [ids.get(s.sn)], type: 'reboot' })).body_.data.taskIds;
    await waitUntil('the task failed', async () => (await taskRow(h, taskId)).state === 'failed', 30_000);
    expect((await taskRow(h, taskId)).error).toBe('no result from the device after 3 attempts');
    expect(deliveries).toEqual([1, 2, 3]);
    await ev.waitFor('the failed event', (e) => e.type === 'task' && e.data.id === taskId && e.data.state === 'failed');
    const states = ev.events.flatMap((e) => (e.type === 'task' && e.data.id === taskId ? [e.data.state] : []));
    expect(states).toEqual([
      'sent',
      'delivered',
      'timeout',
      'sent',
      'delivered',
      'timeout',
      'sent',
      'delivered',
      'failed',
    ]);
    expect((await deviceRow(h, s.sn)).status).toBe('online');
  });

  it("reports a cover left open and an overheated head from the simulator's control, and their clearing", async () => {
    const s = fresh();
    const f = await createFleet({ url, specs: [s], seed, credential, start: false, randomFaults: false });
    fleets.push(f);
    await f.powerOn(s.sn);
    await online(s.sn);
    const control = await httpControl(f, 0);
    try {
      const port = (control.address() as AddressInfo).port;
      const act = async (action: string) =>
        expect((await fetch(`http://127.0.0.1:${port}/devices/${s.sn}/${action}`, { method: 'POST' })).status).toBe(
          200,
        );
      const paper = (p: string) => waitUntil(`paper ${p}`, async () => (await deviceRow(h, s.sn)).paper === p);
      await act('cover-open');
      await paper('cover-open');
      await act('cool-down'); // not what is wrong: nothing changes
      await act('cover-close');
      await paper('ok');
      await act('overheat');
      await paper('overheat');
      await act('cool-down');
      await paper('ok');
      const telemetry = await h.db
        .selectFrom('device_telemetry')
        .select('paper')
        .where('device_id', '=', ids.get(s.sn)!)
        .execute();
      expect(telemetry.map((t) => t.paper)).toEqual(expect.arrayContaining(['cover-open', 'overheat']));
    } finally {
      await new Promise((r) => control.close(r));
    }
  });

  // only dynamic security has the server put devices on the broker: the other brokers have no such test (not a skipped one)
  if (broker === 'mosquitto-dynsec')
    it('puts a device registered while the server runs on the broker: it connects, confined to its own topics', async () => {
      const [late] = makeSpecs(1, { seed: 99, prefix: 'GWDLATE' });
      await registerInDb(h.db, [late]);
      await waitUntil('provisioned', async () => (await deviceRow(h, late.sn)).broker_synced_at);
      const c = await raw(late);
      const granted = await Promise.all(
        [`cp/v1/${late.sn}/down/#`, 'cp/v1/+/down/#', `cp/v1/${mine[0].sn}/down/#`].map((f) =>
          c.subscribeAsync(f, { qos: 1 }).then(
            (g) => g[0].qos,
            () => 128,
          ),
        ),
      );
      expect(granted).toEqual([1, 128, 128]);
      // its client is pinned to its own client id, also on a listener that does not take the user name for it
      const serverListener = mosq!.urlFor('cpc-server').replace(/\/\/[^@]*@/, '//');
      const pinned = (clientId: string) =>
        mqtt
          .connectAsync(serverListener, {
            clientId,
            username: late.sn,
            password: password(late),
            protocolVersion: 4,
            reconnectPeriod: 0,
            connectTimeout: 5000,
          })
          .then(
            (x) => (x.end(true), 'accepted'),
            () => 'refused',
          );
      expect(await pinned(mine[0].sn)).toBe('refused');
      expect(await pinned(late.sn)).toBe('accepted');
    });

  it("keeps tenants apart: B can neither command nor see A's devices and tasks (404)", async () => {
    const s = fresh();
    const a = await command(A.token, { deviceIds: [ids.get(s.sn), ids.get(mine[0].sn)], type: 'reboot' });
    expect(a.statusCode).toBe(200);
    const { batchId, taskIds } = a.body_.data;
    expect(batchId).toEqual(expect.any(Number));
    const before = await h.db
      .selectFrom('device_tasks')
      .select(h.db.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    for (const deviceIds of [[ids.get(s.sn)], [ids.get(theirs[1].sn), ids.get(s.sn)]]) {
      const r = await command(B.token, { deviceIds, type: 'reboot' });
      expect(r.statusCode).toBe(404);
    }
    const after = await h.db
      .selectFrom('device_tasks')
      .select(h.db.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const calls = [
      { method: 'GET' as const, url: `/apiAdmin/device/task/list?deviceId=${ids.get(s.sn)}` },
      { method: 'GET' as const, url: `/apiAdmin/device/task/list?batchId=${batchId}` },
      { method: 'GET' as const, url: `/apiAdmin/device/task/batch/${batchId}` },
      { method: 'POST' as const, url: `/apiAdmin/device/task/${taskIds[0]}/cancel` },
    ];
    for (const c of calls) expect((await h.call({ ...c, token: B.token })).statusCode, c.url).toBe(404);
    const list = await h.call({ method: 'GET', url: '/apiAdmin/device/task/list', token: B.token });
    expect(list.body_.data.list.map((t: { id: string }) => t.id)).not.toContain(taskIds[0]);
    const batch = await h.call({ method: 'GET', url: `/apiAdmin/device/task/batch/${batchId}`, token: A.token });
    expect(batch.body_.data.total).toBe(2);
  });

  it('follows a device that moves and uses data: position, province and the SIM’s used data', async () => {
    const s = fresh();
    const d = await device(s);
    await d.powerOn();
    await online(s.sn);
    // from Beijing to Guangzhou, then 123.45 MB used on its SIM
    await d.publishRaw('location', JSON.stringify({ ts: Date.now(), lat: 23.129, lng: 113.264 }));
    await d.publishRaw('traffic', JSON.stringify({ ts: Date.now(), iccid: s.iccid, usedMb: 123.45 }));
    const row = await waitUntil('the new position', async () => {
      const r = await deviceRow(h, s.sn);
      return r.lat === 23.129 && r.lng === 113.264 ? r : null;
    });
    expect(row.province).toBe('广东');
    expect(row.located_at).toBeInstanceOf(Date);
    const sim = await waitUntil('the used data', async () => {
      const r = await h.db
        .selectFrom('sims')
        .select(['used_mb', 'device_id'])
        .where('iccid', '=', s.iccid)
        .executeTakeFirst();
      return r && Number(r.used_mb) === 123.45 ? r : null;
    });
    expect(sim.device_id).toBe(ids.get(s.sn));
  });

  it('drops and counts malformed messages, and carries on', async () => {
    const s = fresh();
    const d = await device(s);
    await d.powerOn();
    await online(s.sn);
    const dropped = h.app.gateway.stats().dropped;
    await d.publishRaw('status', '{not json');
    await d.publishRaw('status', JSON.stringify({ battery: 300 }));
    await d.publishRaw('ack', JSON.stringify({ id: 'not-a-task-id' }));
    await d.publishRaw('location', JSON.stringify({ lat: 'north' }));
    await d.publishRaw('status', JSON.stringify({ battery: 42, paper: 'ok', signal: 61 }));
    await waitUntil('the valid status', async () => (await deviceRow(h, s.sn)).battery === 42);
    expect(h.app.gateway.stats().dropped - dropped).toBe(4);
    expect((await deviceRow(h, s.sn)).status).toBe('online');
  });

  it('lets a sweep under way finish before the server closes, so its queries never meet a closed pool', async () => {
    const db2 = createDb(h.config.DATABASE_URL!, 3);
    const node2 = await buildApp(h.config, db2);
    await node2.ready();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    // another session holds the devices table, so the second node's presence sweep waits in PostgreSQL
    const holder = h.db.transaction().execute(async (trx) => {
      await sql`LOCK TABLE devices IN ACCESS EXCLUSIVE MODE`.execute(trx);
      locked();
      await held;
    });
    try {
      await lockTaken;
      let swept = false;
      const sweep = node2.gateway.sweep().then(() => (swept = true));
      let closed = false;
      const closing = node2.close().then(() => (closed = true));
      await new Promise((r) => setTimeout(r, 500));
      expect(closed).toBe(false);
      release();
      await closing;
      expect(swept).toBe(true);
      await sweep;
    } finally {
      release();
      await holder;
      await node2.close();
      await db2.destroy();
    }
  });

  it('fans live events out across server nodes through PostgreSQL', async () => {
    // a second server process on the same database (and, with Mosquitto, the same shared subscription)
    const db2 = createDb(h.config.DATABASE_URL!, 3);
    const node2 = await buildApp(h.config, db2);
    await node2.ready();
    try {
      const s = fresh();
      const ev = await events(A.token);
      const d = await createFleet({
        url: broker === 'aedes' ? node2.gateway.deviceUrl : url,
        specs: [s],
        seed,
        credential,
        start: false,
      });
      fleets.push(d);
      await d.devices[0].powerOn();
      // the console is on node 1; with Aedes the device talks to node 2 only
      await ev.waitFor(
        'the online event from the other node',
        (e) => e.type === 'device' && e.data.sn === s.sn && e.data.status === 'online',
      );
      if (broker === 'aedes') expect(node2.gateway.stats().received.hello).toBe(1);
      else {
        // the shared subscription hands each message to exactly one node
        const sum = () => (h.app.gateway.stats().received.event ?? 0) + (node2.gateway.stats().received.event ?? 0);
        const start = sum();
        for (let i = 0; i < 20; i++) await d.devices[0].publishRaw('event', JSON.stringify({ kind: 'tick' }));
        await waitUntil('20 events handled', () => sum() >= start + 20);
        await d.devices[0].publishRaw('event', JSON.stringify({ kind: 'marker' }));
        await waitUntil('the marker', () => sum() >= start + 21);
        expect(sum()).toBe(start + 21);
        expect(node2.gateway.stats().received.event ?? 0).toBeGreaterThan(0);
      }
    } finally {
      await node2.close();
      await db2.destroy();
    }
  });
});

describe('simulated printer faults', () => {
  it('draws at most one fault per interval, each with its own chance, paper out the commonest', () => {
    expect(randomFault(() => 0)).toBe('out');
    expect(randomFault(() => FAULT_CHANCE.out + 0.0001)).toBe('cover-open');
    expect(randomFault(() => FAULT_CHANCE.out + FAULT_CHANCE['cover-open'] + 0.0001)).toBe('overheat');
    expect(randomFault(() => 0.5)).toBeNull();
    let seed = 7;
    const rng = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const seen = new Map<string, number>();
    for (let i = 0; i < 200_000; i++) {
      const f = randomFault(rng);
      if (f) seen.set(f, (seen.get(f) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual(['cover-open', 'out', 'overheat']);
    expect(seen.get('out')!).toBeGreaterThan(seen.get('cover-open')!);
  });
});
