import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceCredential, staticDeviceCredential, type BrokerHookResult } from '@cpc/contracts/device-protocol';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { registerInDb } from '../../device-sim/src/register-db.ts';
import { createHarness, type Harness } from './harness.ts';
import { startMosquitto, type Mosquitto } from './mosquitto.ts';

/**
 * The external broker's HTTP hooks (EMQX's HTTP authenticator and authorizer, mosquitto-go-auth's HTTP backend):
 * the server checks a device's timed credential and confines it to its own topics, for the broker.
 */
const SECRET = 'hook-secret-0123456789abcdefghij';
let h: Harness;
let mosq: Mosquitto;
const [dev, other] = makeSpecs(2, { seed: 41, prefix: 'HOOK' });

beforeAll(async () => {
  // the server's own broker user comes from MQTT_URL: a real broker it connects to
  mosq = await startMosquitto({ serverUsers: { 'cpc-server': 'Server-Passw0rd' } });
  h = await createHarness({
    MQTT_URL: mosq.urlFor('cpc-server'),
    MQTT_AUTH_HOOK_SECRET: SECRET,
    MQTT_AUTH_WINDOW_S: '600',
  });
  await registerInDb(h.db, [dev, other]);
});
afterAll(async () => {
  await h?.close();
  await mosq?.stop();
});

const hook = (path: 'auth' | 'acl', payload: Record<string, unknown>, secret: string | null = SECRET) =>
  h.call({
    method: 'POST',
    url: `/mqtt/v1/${path}`,
    payload,
    headers: secret === null ? {} : { authorization: `Bearer ${secret}` },
  });
const now = () => Math.floor(Date.now() / 1000);
/** The hooks answer the broker's own shape, not the console's envelope. */
const decision = (res: { json(): unknown }) => res.json() as BrokerHookResult;

describe('POST /mqtt/v1/auth', () => {
  it.each<[string, () => Record<string, unknown>, 'allow' | 'deny', boolean?]>([
    [
      'a timed credential',
      () => ({ clientid: dev.sn, username: dev.sn, password: deviceCredential(dev.secret, dev.sn) }),
      'allow',
      false,
    ],
    [
      'a timed credential 9 minutes off the clock',
      () => ({ clientid: dev.sn, username: dev.sn, password: deviceCredential(dev.secret, dev.sn, now() - 540) }),
      'allow',
      false,
    ],
    [
      'a timed credential 11 minutes old',
      () => ({ clientid: dev.sn, username: dev.sn, password: deviceCredential(dev.secret, dev.sn, now() - 660) }),
      'deny',
    ],
    [
      'the static credential (a password file holds it; seen on the wire it would last for ever)',
      () => ({ clientid: dev.sn, username: dev.sn, password: staticDeviceCredential(dev.secret, dev.sn) }),
      'deny',
    ],
    [
      "another device's client id",
      () => ({ clientid: other.sn, username: dev.sn, password: deviceCredential(dev.secret, dev.sn) }),
      'deny',
    ],
    [
      "another device's credential",
      () => ({ clientid: dev.sn, username: dev.sn, password: deviceCredential(other.secret, other.sn) }),
      'deny',
    ],
    ['a wrong password', () => ({ clientid: dev.sn, username: dev.sn, password: 'not-the-password' }), 'deny'],
    ['no password', () => ({ clientid: dev.sn, username: dev.sn }), 'deny'],
    [
      'an unknown serial number',
      () => ({
        clientid: 'NOSUCH-0001',
        username: 'NOSUCH-0001',
        password: deviceCredential(dev.secret, 'NOSUCH-0001'),
      }),
      'deny',
    ],
    [
      'a user name that cannot be a serial number',
      () => ({ clientid: 'a/b\u0000', username: 'a/b\u0000', password: 'x' }),
      'deny',
    ],
    [
      "the server nodes' user from MQTT_URL, any client id",
      () => ({ clientid: 'cpc-server-node-7', username: 'cpc-server', password: 'Server-Passw0rd' }),
      'allow',
      true,
    ],
    [
      "the server nodes' user with a wrong password",
      () => ({ clientid: 'cpc-server-node-7', username: 'cpc-server', password: 'guess' }),
      'deny',
    ],
  ])('%s → %s', async (_name, body, result, superuser) => {
    const res = await hook('auth', body());
    expect(res.statusCode).toBe(200);
    expect(decision(res)).toMatchObject({ result, ok: result === 'allow' });
    if (superuser !== undefined) expect(decision(res).is_superuser).toBe(superuser);
  });
});

describe('POST /mqtt/v1/acl', () => {
  const up = `cp/v1/${dev.sn}/up/hello`;
  const down = `cp/v1/${dev.sn}/down/command`;
  it.each<[string, Record<string, unknown>, 'allow' | 'deny']>([
    // EMQX's form: action publish / subscribe
    ['publish to its own up topic', { action: 'publish', topic: up }, 'allow'],
    ['publish retained', { action: 'publish', topic: up, retain: 'true' }, 'deny'],
    ["publish to another device's up topic", { action: 'publish', topic: `cp/v1/${other.sn}/up/hello` }, 'deny'],
    ['publish to its own down topic', { action: 'publish', topic: down }, 'deny'],
    ['publish outside the protocol', { action: 'publish', topic: 'anything/else' }, 'deny'],
    ['subscribe to its own down topics', { action: 'subscribe', topic: `cp/v1/${dev.sn}/down/#` }, 'allow'],
    ['subscribe to one kind of its own', { action: 'subscribe', topic: `cp/v1/${dev.sn}/down/print` }, 'allow'],
    ["subscribe to every device's down topics", { action: 'subscribe', topic: 'cp/v1/+/down/#' }, 'deny'],
    ['subscribe to everything', { action: 'subscribe', topic: '#' }, 'deny'],
    ["subscribe to another device's", { action: 'subscribe', topic: `cp/v1/${other.sn}/down/#` }, 'deny'],
    // mosquitto-go-auth's form: acc 1 read, 2 write, 4 subscribe
    ['go-auth: write its own up topic', { acc: 2, topic: up }, 'allow'],
    ['go-auth: read its own down topic', { acc: '1', topic: down }, 'allow'],
    ["go-auth: read another device's down topic", { acc: 1, topic: `cp/v1/${other.sn}/down/command` }, 'deny'],
    ['go-auth: subscribe to a wildcard over devices', { acc: 4, topic: 'cp/v1/#' }, 'deny'],
    ['go-auth: read and write', { acc: 3, topic: up }, 'deny'],
  ])('a device: %s → %s', async (_name, body, result) => {
    const res = await hook('acl', { clientid: dev.sn, username: dev.sn, ...body });
    expect(res.statusCode).toBe(200);
    expect(decision(res)).toMatchObject({ result, ok: result === 'allow' });
  });

  it('ties a device to its client id, and lets the server nodes use every device topic', async () => {
    expect(
      decision(
        await hook('acl', {
          clientid: other.sn,
          username: dev.sn,
          action: 'publish',
          topic: `cp/v1/${dev.sn}/up/hello`,
        }),
      ).result,
    ).toBe('deny');
    for (const topic of [`cp/v1/${dev.sn}/down/command`, '$share/cpc/cp/v1/+/up/#']) {
      expect(
        decision(
          await hook('acl', {
            clientid: 'cpc-server-node-1',
            username: 'cpc-server',
            action: topic.startsWith('$share') ? 'subscribe' : 'publish',
            topic,
          }),
        ).result,
      ).toBe('allow');
    }
  });
});

describe('the hooks themselves', () => {
  it('answer only the broker holding the shared secret (401), and refuse malformed bodies naming the field (400)', async () => {
    const body = { clientid: dev.sn, username: dev.sn, password: deviceCredential(dev.secret, dev.sn) };
    for (const secret of [null, 'wrong-secret', `${SECRET}x`]) {
      const res = await hook('auth', body, secret);
      expect(res.statusCode, String(secret)).toBe(401);
      expect(res.body_.code).toBe(401);
    }
    // mosquitto-go-auth cannot send an Authorization header: its User-Agent carries the secret instead
    const agent = (ua: string) =>
      h.call({ method: 'POST', url: '/mqtt/v1/auth', payload: body, headers: { 'user-agent': ua } });
    expect(decision(await agent(`cpc-broker-hook/${SECRET}`))).toMatchObject({ result: 'allow', ok: true });
    expect((await agent('cpc-broker-hook/wrong')).statusCode).toBe(401);
    expect((await agent(`mosquitto-go-auth-2.1 ${SECRET}`)).statusCode).toBe(401);
    const noTopic = await hook('acl', { clientid: dev.sn, username: dev.sn, action: 'publish' });
    expect(noTopic.statusCode).toBe(400);
    expect(noTopic.body_.data.fields.map((f: { field: string }) => f.field)).toContain('topic');
    const noAction = await hook('acl', { clientid: dev.sn, username: dev.sn, topic: 'cp/v1/x/up/hello' });
    expect(noAction.statusCode).toBe(400);
    expect(noAction.body_.data.fields.map((f: { field: string }) => f.field)).toContain('action');
    const wrongType = await hook('auth', { clientid: 42, username: dev.sn, password: 'x' });
    expect(wrongType.statusCode).toBe(400);
  });

  it('do not exist without MQTT_AUTH_HOOK_SECRET', async () => {
    const plain = await createHarness();
    try {
      const res = await plain.call({
        method: 'POST',
        url: '/mqtt/v1/auth',
        payload: { clientid: dev.sn, username: dev.sn, password: 'x' },
        headers: { authorization: `Bearer ${SECRET}` },
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('refuses a secret shorter than 24 characters at start, naming the variable', async () => {
    const { loadConfig } = await import('../src/config.ts');
    expect(() => loadConfig({ MQTT_AUTH_HOOK_SECRET: 'short' })).toThrow(
      /MQTT_AUTH_HOOK_SECRET: must be at least 24 characters/,
    );
    expect(() => loadConfig({ MQTT_DYNSEC: 'on' })).toThrow(
      /MQTT_DYNSEC: "on" provisions devices on an external broker and needs MQTT_URL/,
    );
    // a bad escape in the broker's credentials is named at start, not a URIError when the first device connects
    expect(() => loadConfig({ MQTT_URL: 'mqtt://cpc:pass%zz@127.0.0.1:1883' })).toThrow(
      /MQTT_URL: the user name and password must be URL-encoded/,
    );
    expect(loadConfig({ MQTT_URL: 'mqtt://cpc:p%40ss@127.0.0.1:1883' }).MQTT_URL).toBe(
      'mqtt://cpc:p%40ss@127.0.0.1:1883',
    );
  });
});
