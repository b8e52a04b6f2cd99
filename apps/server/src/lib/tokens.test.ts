import { afterEach, describe, expect, it, vi } from 'vitest';
import { AccessTokens } from './tokens.ts';

const claims = { userId: 7, tenantId: 3, sessionId: 's-1' };
const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (e: { code?: number }) => e.code,
  );

describe('access tokens', () => {
  afterEach(() => vi.useRealTimers());

  it('accepts its own token again and again with the same claims, and refuses a forged one after it', async () => {
    const tokens = new AccessTokens('a-secret-of-enough-length-for-hs256', 60);
    const token = await tokens.sign(claims);
    expect(await tokens.verify(token)).toEqual(claims);
    expect(await tokens.verify(token)).toEqual(claims);
    // the same header and claims with another signature, and another key's token: never the remembered answer
    const [h, p, sig] = token.split('.');
    const forged = `${h}.${p}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(await statusOf(tokens.verify(forged))).toBe(401);
    const other = await new AccessTokens('another-secret-of-enough-length-000', 60).sign(claims);
    expect(await statusOf(tokens.verify(other))).toBe(401);
    expect(await statusOf(tokens.verify(`${h}.${p}`))).toBe(401);
  });

  it('answers 402 once a token it has accepted expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-27T10:00:00.000Z'));
    const tokens = new AccessTokens('a-secret-of-enough-length-for-hs256', 60);
    const token = await tokens.sign(claims);
    expect(await tokens.verify(token)).toEqual(claims);
    vi.setSystemTime(new Date('2026-11-27T10:00:59.900Z'));
    expect(await tokens.verify(token)).toEqual(claims);
    vi.setSystemTime(new Date('2026-11-27T10:01:00.000Z'));
    expect(await statusOf(tokens.verify(token))).toBe(402);
    expect(await statusOf(tokens.verify(token))).toBe(402);
  });

  it('keeps accepting tokens when more have been seen than it remembers', async () => {
    const tokens = new AccessTokens('a-secret-of-enough-length-for-hs256', 60);
    const first = await tokens.sign(claims);
    expect(await tokens.verify(first)).toEqual(claims);
    for (let i = 0; i < 2_050; i++) await tokens.verify(await tokens.sign({ ...claims, sessionId: `s-${i}` }));
    expect(await tokens.verify(first)).toEqual(claims);
  });
});
