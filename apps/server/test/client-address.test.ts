import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { ADMIN_PASSWORD, createHarness, registerCustomer, type Harness } from './harness.ts';
import { createKey, openCall } from './open-helpers.ts';

/**
 * The client address (issue 10): X-Forwarded-For is believed only from the proxies of TRUSTED_PROXIES, for the
 * whole server: the login throttle, the session list, the audit log, the open API's allow-lists.
 */

const login = (
  h: Harness,
  username: string,
  password: string,
  remoteAddress: string,
  headers: Record<string, string> = {},
) =>
  h.call({ method: 'POST', url: '/apiAdmin/user/v1/login', payload: { username, password }, remoteAddress, headers });

const sessionIps = async (h: Harness, token: string): Promise<string[]> =>
  (await h.call({ method: 'GET', url: '/apiAdmin/user/v1/user/sessions', token })).body_.data.map(
    (s: { ip: string }) => s.ip,
  );

const lastLoginAudit = (h: Harness, subject: string) =>
  h.db
    .selectFrom('audit_log')
    .select(['ip', 'result'])
    .where('action', '=', 'login')
    .where('subject', '=', subject)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();

describe('without trusted proxies (the default): the TCP peer is the client', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(() => h.close());

  it('does not let a forged X-Forwarded-For out of the per-address login throttle', async () => {
    const c = await registerCustomer(h);
    const attacker = '198.51.100.66';
    for (let i = 0; i < h.config.LOGIN_MAX_FAILS_IP; i++) {
      // many accounts, so that only the address's count is reached
      expect(
        (await login(h, `nobody_${i}_here`, 'WrongPass1', attacker, { 'x-forwarded-for': `203.0.113.${i + 1}` }))
          .statusCode,
      ).toBe(401);
    }
    const forged = await login(h, c.username, c.password, attacker, { 'x-forwarded-for': '203.0.113.200' });
    expect(forged.statusCode).toBe(429);
    expect(
      (await login(h, c.username, c.password, attacker, { 'x-forwarded-for': '203.0.113.201, 203.0.113.202' }))
        .statusCode,
    ).toBe(429);
  });

  it('records the TCP peer, not a forged header, in the session list and the audit log', async () => {
    const c = await registerCustomer(h);
    const res = await login(h, c.username, c.password, '198.51.100.7', {
      'x-forwarded-for': '203.0.113.9',
      'x-real-ip': '203.0.113.9',
    });
    expect(res.statusCode).toBe(200);
    expect(await sessionIps(h, res.body_.data.token)).toContain('198.51.100.7');
    expect(await sessionIps(h, res.body_.data.token)).not.toContain('203.0.113.9');
    expect(await lastLoginAudit(h, c.username)).toEqual({ ip: '198.51.100.7', result: 'ok' });
    const wrong = await login(h, c.username, 'WrongPass1', '198.51.100.8', { 'x-forwarded-for': '203.0.113.9' });
    expect(wrong.statusCode).toBe(401);
    expect(await lastLoginAudit(h, c.username)).toEqual({ ip: '198.51.100.8', result: 'fail' });
  });

  it('does not take X-Forwarded-Proto from a client: the refresh cookie of a plain HTTP call is not Secure', async () => {
    const res = await login(h, 'admin', ADMIN_PASSWORD, '198.51.100.9', { 'x-forwarded-proto': 'https' });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['set-cookie'])).not.toMatch(/;\s*Secure/i);
  });

  it("takes the open API's allow-list on the TCP peer", async () => {
    const c = await registerCustomer(h);
    const k = await createKey(h, c.token, { ipAllowList: ['203.0.113.0/24'] });
    const refused = await openCall(h, k, {
      url: '/devices',
      remoteAddress: '198.51.100.10',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(refused.body_.data.reason).toBe('ip_not_allowed');
    expect((await openCall(h, k, { url: '/devices', remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
  });
});

describe('behind trusted proxies (TRUSTED_PROXIES)', () => {
  let h: Harness;
  // a load balancer's network and one more proxy in front of it
  const PROXIES = '10.0.0.0/8, 192.0.2.1';
  beforeAll(async () => {
    h = await createHarness({ TRUSTED_PROXIES: PROXIES, OPEN_LOG_FLUSH_MS: '50' });
  });
  afterAll(() => h.close());

  it('takes the client from X-Forwarded-For of a trusted proxy: session list and audit log', async () => {
    const c = await registerCustomer(h);
    const res = await login(h, c.username, c.password, '10.1.2.3', { 'x-forwarded-for': '203.0.113.9' });
    expect(res.statusCode).toBe(200);
    expect(await sessionIps(h, res.body_.data.token)).toContain('203.0.113.9');
    expect(await lastLoginAudit(h, c.username)).toEqual({ ip: '203.0.113.9', result: 'ok' });
  });

  it('takes the right-most address that is not a trusted proxy, through several hops', async () => {
    const c = await registerCustomer(h);
    // the client wrote 198.51.100.1 itself (forged); 203.0.113.9 is what the first trusted proxy saw
    const res = await login(h, c.username, c.password, '10.1.2.3', {
      'x-forwarded-for': '198.51.100.1, 203.0.113.9, 192.0.2.1, 10.9.8.7',
    });
    expect(res.statusCode).toBe(200);
    expect(await lastLoginAudit(h, c.username)).toEqual({ ip: '203.0.113.9', result: 'ok' });
    const ips = await sessionIps(h, res.body_.data.token);
    expect(ips).toContain('203.0.113.9');
    expect(ips).not.toContain('198.51.100.1');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const c = await registerCustomer(h);
    const res = await login(h, c.username, c.password, '198.51.100.30', { 'x-forwarded-for': '203.0.113.77' });
    expect(res.statusCode).toBe(200);
    expect(await lastLoginAudit(h, c.username)).toEqual({ ip: '198.51.100.30', result: 'ok' });
  });

  it('throttles the forwarded client, not the proxy: other clients behind it still sign in', async () => {
    const c = await registerCustomer(h);
    for (let i = 0; i < h.config.LOGIN_MAX_FAILS_IP; i++) {
      await login(h, `ghost_${i}_proxy`, 'WrongPass1', '10.0.0.2', { 'x-forwarded-for': '203.0.113.50' });
    }
    expect((await login(h, c.username, c.password, '10.0.0.2', { 'x-forwarded-for': '203.0.113.50' })).statusCode).toBe(
      429,
    );
    // the same client through another proxy of the list is the same client
    expect(
      (await login(h, c.username, c.password, '192.0.2.1', { 'x-forwarded-for': '203.0.113.50' })).statusCode,
    ).toBe(429);
    expect((await login(h, c.username, c.password, '10.0.0.2', { 'x-forwarded-for': '203.0.113.51' })).statusCode).toBe(
      200,
    );
  });

  it('believes X-Forwarded-Proto from a trusted proxy only', async () => {
    const proxied = await login(h, 'admin', ADMIN_PASSWORD, '10.0.0.3', {
      'x-forwarded-for': '203.0.113.60',
      'x-forwarded-proto': 'https',
    });
    expect(String(proxied.headers['set-cookie'])).toMatch(/;\s*Secure/i);
    const direct = await login(h, 'admin', ADMIN_PASSWORD, '198.51.100.31', { 'x-forwarded-proto': 'https' });
    expect(String(direct.headers['set-cookie'])).not.toMatch(/;\s*Secure/i);
  });

  it("uses the same client address for the open API's allow-list", async () => {
    const c = await registerCustomer(h);
    const k = await createKey(h, c.token, { ipAllowList: ['203.0.113.0/24'] });
    expect(
      (
        await openCall(h, k, {
          url: '/devices',
          remoteAddress: '10.0.0.4',
          headers: { 'x-forwarded-for': '203.0.113.9' },
        })
      ).statusCode,
    ).toBe(200);
    const outside = await openCall(h, k, {
      url: '/devices',
      remoteAddress: '10.0.0.4',
      headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.5' },
    });
    expect(outside.body_.data.reason).toBe('ip_not_allowed');
    expect(outside.body_.msg).toContain('198.51.100.5');
    // a client of the allow-list naming itself from outside the proxies is not believed
    const direct = await openCall(h, k, {
      url: '/devices',
      remoteAddress: '198.51.100.6',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(direct.body_.data.reason).toBe('ip_not_allowed');
    // the request log (written in batches) names the same client
    const logged = async () =>
      (
        await h.db
          .selectFrom('open_request_log')
          .select('ip')
          .where('app_key_id', '=', k.id)
          .orderBy('at')
          .orderBy('id')
          .execute()
      ).map((r) => r.ip);
    await expect.poll(logged, { timeout: 10_000 }).toEqual(['203.0.113.9', '198.51.100.5', '198.51.100.6']);
  });
});

describe('OPEN_TRUSTED_PROXIES (deprecated)', () => {
  it('is merged into TRUSTED_PROXIES, the one list of the server', () => {
    const c = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8', OPEN_TRUSTED_PROXIES: '192.0.2.1, 10.0.0.0/8' });
    expect(c.TRUSTED_PROXIES).toEqual(['10.0.0.0/8', '192.0.2.1']);
    expect(loadConfig({}).TRUSTED_PROXIES).toEqual([]);
    expect(() => loadConfig({ TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(
      /TRUSTED_PROXIES: must be IP addresses or CIDR blocks/,
    );
    expect(() => loadConfig({ TRUSTED_PROXIES: 'loadbalancer.local' })).toThrow(/TRUSTED_PROXIES/);
  });

  it('makes the console believe the proxy too', async () => {
    const h = await createHarness({ OPEN_TRUSTED_PROXIES: '10.0.0.0/8' });
    try {
      const c = await registerCustomer(h);
      expect(
        (await login(h, c.username, c.password, '10.0.0.9', { 'x-forwarded-for': '203.0.113.90' })).statusCode,
      ).toBe(200);
      expect(await lastLoginAudit(h, c.username)).toEqual({ ip: '203.0.113.90', result: 'ok' });
    } finally {
      await h.close();
    }
  });
});
