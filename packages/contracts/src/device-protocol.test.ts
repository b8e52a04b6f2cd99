import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkDeviceCredential,
  deviceCredential,
  parseTopic,
  parseUp,
  staticDeviceCredential,
} from './device-protocol.ts';

describe('device credential', () => {
  const secret = 'a-device-secret-of-the-factory';
  const now = 1_767_225_600;
  const table: Array<[string, string, boolean]> = [
    ['fresh', deviceCredential(secret, 'SN-0001', now), true],
    ['9 minutes old', deviceCredential(secret, 'SN-0001', now - 540), true],
    ['11 minutes old', deviceCredential(secret, 'SN-0001', now - 660), false],
    ['11 minutes ahead', deviceCredential(secret, 'SN-0001', now + 660), false],
    ['the static form', staticDeviceCredential(secret, 'SN-0001'), false],
    ['another device', deviceCredential(secret, 'SN-0002', now), false],
    ['another secret', deviceCredential('another-secret-entirely', 'SN-0001', now), false],
    ['a changed timestamp', deviceCredential(secret, 'SN-0001', now).replace(String(now), String(now + 1)), false],
    ['not the format', 'password', false],
    ['empty', '', false],
  ];
  it.each(table)('%s → %s', (_name, password, ok) =>
    expect(checkDeviceCredential(secret, 'SN-0001', password, now)).toBe(ok),
  );

  it('is ts.hex(HMAC-SHA256(secret, sn:ts))', () => {
    expect(deviceCredential('k', 'SN-1', 1)).toBe(`1.${createHmac('sha256', 'k').update('SN-1:1').digest('hex')}`);
    expect(deviceCredential('k', 'SN-1', 1)).toMatch(/^1\.[0-9a-f]{64}$/);
    expect(staticDeviceCredential('k', 'SN-1')).toMatch(/^0\.[0-9a-f]{64}$/);
  });
});

describe('topics', () => {
  const table: Array<[string, ReturnType<typeof parseTopic>]> = [
    ['cp/v1/SN-0001/up/hello', { sn: 'SN-0001', dir: 'up', kind: 'hello' }],
    ['cp/v1/SN-0001/down/command', { sn: 'SN-0001', dir: 'down', kind: 'command' }],
    ['cp/v1/SN-0001/up/command', null],
    ['cp/v1/SN-0001/down/hello', null],
    ['cp/v1/SN-0001/up/hello/extra', null],
    ['cp/v2/SN-0001/up/hello', null],
    ['cp/v1/+/up/hello', null],
    ['cp/v1/$SYS/up/hello', null],
    ['', null],
  ];
  it.each(table)('%s', (topic, parsed) => expect(parseTopic(topic)).toEqual(parsed));
});

describe('up messages', () => {
  it('reads valid messages, ignores unknown fields, treats an empty heartbeat as {}', () => {
    expect(parseUp('status', '{"battery":50,"paper":"out","extra":1}')).toEqual({
      kind: 'status',
      msg: { battery: 50, paper: 'out' },
    });
    expect(parseUp('heartbeat', Buffer.alloc(0))).toEqual({ kind: 'heartbeat', msg: {} });
    // an ack without `kind` is about a task; print jobs say `kind: "print"`
    expect(parseUp('ack', '{"id":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"}')).toEqual({
      kind: 'ack',
      msg: { id: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', kind: 'task', ok: true },
    });
    expect(
      parseUp('result', '{"id":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f","kind":"print","ok":false,"error":"paper out"}'),
    ).toEqual({
      kind: 'result',
      msg: { id: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f', kind: 'print', ok: false, error: 'paper out' },
    });
  });
  const bad: Array<[string, string]> = [
    ['status', '{not json'],
    ['status', '{"battery":101}'],
    ['status', '{"paper":"wet"}'],
    ['ack', '{"id":"not-a-uuid"}'],
    ['progress', '{"id":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f","progress":-1}'],
    ['hello', '{"fw":"1.0"}'],
    ['location', '{"lat":91,"lng":0}'],
    ['bogus', '{}'],
    ['status', '[]'],
  ];
  it.each(bad)('drops %s %s', (kind, payload) => expect(parseUp(kind, payload)).toBeNull());
});
