import { describe, expect, it } from 'vitest';
import { safeRedirect } from './redirect';

describe('safeRedirect', () => {
  it.each([
    [null, '/'],
    [undefined, '/'],
    ['', '/'],
    ['/device', '/device'],
    ['/flowRate/flowRateLog?sim=1', '/flowRate/flowRateLog?sim=1'],
    ['/device?name=50%', '/device?name=50%'],
    ['%2Fdevice', '/'],
    ['https://evil.example', '/'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['/login', '/'],
    ['/login?redirect=/x', '/'],
    ['/register', '/'],
    ['/loginx', '/loginx'],
    ['/account/authenticate', '/account/authenticate'],
  ])('%j → %s', (raw, expected) => {
    expect(safeRedirect(raw)).toBe(expected);
  });
});
