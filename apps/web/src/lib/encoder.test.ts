import { describe, expect, it } from 'vitest';
import { decode, encode, isFresh } from './encoder';

const T = 1_700_000_000_000;

describe('encode / decode', () => {
  it.each([
    ['user', 'alice'],
    ['id', ''],
    ['url', 'https://example.com/a?b=1:2'],
    ['名字', '张三'],
    ['emoji', '🖨️ ok'],
    ['', 'no key'],
  ])('round-trips %s = %s', (key, value) => {
    const token = encode(key, value, T);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decode(token)).toEqual({ key, value, timestamp: T });
  });

  it('shifts every byte of key:value:timestamp by 3 before base64url', () => {
    // 'a:b:1' is 61 3a 62 3a 31; shifted 64 3d 65 3d 34 = 'd=e=4', base64 'ZD1lPTQ'
    expect(encode('a', 'b', 1)).toBe('ZD1lPTQ');
    expect(atob('ZD1lPTQ=')).toBe('d=e=4');
    // bytes near 255 wrap around
    expect(decode(encode('k', 'ÿ', 5))).toEqual({ key: 'k', value: 'ÿ', timestamp: 5 });
  });

  it('hides the plain text', () => {
    const token = encode('user', 'alice', T);
    expect(atob(token.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (token.length % 4)) % 4))).not.toContain(
      'alice',
    );
  });

  it.each([['a:b'], [':'], [-1], [1.5], [Number.NaN]])('refuses a bad key or timestamp (%s)', (bad) => {
    expect(() => (typeof bad === 'string' ? encode(bad, 'v', T) : encode('k', 'v', bad))).toThrow();
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/='],
    ['impossible length', 'abcde'],
    ['no separators', encodeShifted('plain')],
    ['one separator', encodeShifted('k:123')],
    ['timestamp not a number', encodeShifted('k:v:12a')],
    ['timestamp empty', encodeShifted('k:v:')],
    ['unshifted text', btoa('k:v:123').replace(/=+$/, '')],
  ])('decodes %s to null', (_name, token) => {
    expect(decode(token)).toBeNull();
  });
});

describe('isFresh', () => {
  const token = encode('sn', 'P1', T);
  it.each([
    ['made now', T, undefined, true],
    ['5 s old', T + 5_000, undefined, true],
    ['exactly 10 s old', T + 10_000, undefined, true],
    ['10.001 s old', T + 10_001, undefined, false],
    ['an hour old', T + 3_600_000, undefined, false],
    ['from the future', T - 1, undefined, false],
    ['with the expected key', T + 1_000, 'sn', true],
    ['with another key', T + 1_000, 'user', false],
  ] as const)('%s → %s', (_name, now, key, want) => {
    expect(isFresh(token, now, key)).toBe(want);
  });

  it('is false for garbage', () => expect(isFresh('garbage!', T)).toBe(false));
  it('takes another window when asked', () => expect(isFresh(token, T + 20_000, undefined, 30_000)).toBe(true));
});

/** Base64url of `plain` shifted by 3, to build malformed tokens. */
function encodeShifted(plain: string): string {
  const bytes = new TextEncoder().encode(plain).map((b) => (b + 3) & 0xff);
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
