import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { publicOrigin } from '../src/lib/public-origin.ts';
import { makeSpecs } from '../../device-sim/src/specs.ts';
import { ADMIN_PASSWORD, createHarness, type Harness } from './harness.ts';
import { customer, devicesOf, waitUntil, type Customer } from './device-helpers.ts';
import { startIdp, type TestIdp } from './oidc-idp.ts';

/**
 * Every absolute URL the server makes comes from configuration (PUBLIC_URL, else the address it listens on),
 * never from the request: a caller naming another host (Host, or X-Forwarded-Host through a trusted proxy)
 * gets the server's own cashier URL, its payment notification is posted to the server's own origin, and the
 * social-login redirect URI is the configured one.
 */

/** A listener standing for the host a caller forges: it counts what reaches it. */
async function forgedHost() {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.end('success');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A request over real HTTP with the headers given (Host included), its JSON answer. */
function send(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: any; text: string }> {
  const u = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method, path: u.pathname + u.search, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let json: any = null;
          try {
            json = JSON.parse(text);
          } catch {
            // the cashier's pages are HTML
          }
          resolve({ status: res.statusCode ?? 0, json, text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The trade a sandbox cashier URL carries (its signed body, decoded). */
const tradeOf = (cashierUrl: string) =>
  JSON.parse(Buffer.from(new URL(cashierUrl).searchParams.get('trade')!.split('.')[0], 'base64url').toString()) as {
    notifyUrl: string;
  };

describe.each([
  { name: 'without PUBLIC_URL (development): the address the server listens on', publicUrl: undefined },
  { name: 'with PUBLIC_URL', publicUrl: 'https://print.example.com' },
])('outbound URLs $name', ({ publicUrl }) => {
  let h: Harness;
  let idp: TestIdp;
  let base: string;
  let origin: string;
  let forged: Awaited<ReturnType<typeof forgedHost>>;
  let staff: string;
  let A: Customer;
  const specs = makeSpecs(2, { seed: publicUrl ? 2811 : 2812, prefix: publicUrl ? 'PUA' : 'PUB' });

  beforeAll(async () => {
    // the redirect URI the provider is told is only checked when a browser comes back; none does here
    idp = await startIdp(['http://127.0.0.1/callback']);
    forged = await forgedHost();
    h = await createHarness({
      ...(publicUrl ? { PUBLIC_URL: publicUrl } : {}),
      // the loopback proxy is believed: its X-Forwarded-Host and -Proto too
      TRUSTED_PROXIES: '127.0.0.1',
      OIDC_PROVIDERS: 'corp',
      OIDC_CORP_ISSUER: idp.issuer,
      OIDC_CORP_CLIENT_ID: idp.clientId,
      OIDC_CORP_CLIENT_SECRET: idp.clientSecret,
    });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    origin = publicUrl ?? base;
    staff = (await h.login('admin', ADMIN_PASSWORD)).token;
    A = await customer(h);
    await devicesOf(h, A.tenantId, specs);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await idp?.close();
    await forged?.close();
  });

  const forgeries = (): Array<Record<string, string>> => [
    { host: forged.host },
    { host: base.slice('http://'.length), 'x-forwarded-host': forged.host, 'x-forwarded-proto': 'http' },
  ];

  it('pays: the cashier URL and the notify URL are the configured origin; the forged host hears nothing', async () => {
    const pkg = await h.call({
      method: 'POST',
      url: '/apiAdmin/order/package/create',
      token: staff,
      payload: { name: `P ${randomUUID().slice(0, 6)}`, dataMb: 1024, validityDays: 30, priceFen: 990, onShelf: true },
    });
    expect(pkg.statusCode, pkg.body).toBe(200);
    for (const [i, headers] of forgeries().entries()) {
      const order = await h.call({
        method: 'POST',
        url: '/apiAdmin/order/create',
        token: A.token,
        payload: { clientRequestId: randomUUID(), lines: [{ iccid: specs[i].iccid, packageId: pkg.body_.data.id }] },
      });
      expect(order.statusCode, order.body).toBe(200);
      const pay = await send(
        base,
        'POST',
        '/apiAdmin/order/pay',
        { ...headers, authorization: `Bearer ${A.token}`, 'content-type': 'application/json' },
        JSON.stringify({ id: order.body_.data.id, lang: 'en' }),
      );
      expect(pay.status, pay.text).toBe(200);
      const cashier = new URL(pay.json.data.cashierUrl);
      expect(cashier.origin + cashier.pathname).toBe(`${origin}/pay/sandbox/cashier`);
      expect(pay.json.data.qrContent).toBe(pay.json.data.cashierUrl);
      expect(tradeOf(pay.json.data.cashierUrl).notifyUrl).toBe(`${origin}/pay/notify/sandbox`);
      if (publicUrl) continue;

      // the payer presses "Pay": the gateway posts its signed notification to the server itself, which fulfils
      const pressed = await send(
        base,
        'POST',
        '/pay/sandbox/submit',
        { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({ trade: cashier.searchParams.get('trade')!, action: 'pay', lang: 'en' }).toString(),
      );
      expect(pressed.status).toBe(200);
      await waitUntil('fulfilled', async () => {
        const d = await h.call({
          method: 'GET',
          url: `/apiAdmin/order/detail?id=${order.body_.data.id}`,
          token: A.token,
        });
        return d.body_.data.state === 'fulfilled' || null;
      });
    }
    // a notification the server sent elsewhere would have arrived long before its own did
    await new Promise((r) => setTimeout(r, 200));
    expect(forged.hits).toEqual([]);
  });

  it('starts social login with the configured redirect URI, whatever host the request names', async () => {
    for (const headers of forgeries()) {
      const res = await send(
        base,
        'POST',
        '/apiAdmin/socialLogin',
        { ...headers, 'content-type': 'application/json' },
        JSON.stringify({ provider: 'corp' }),
      );
      expect(res.status, res.text).toBe(200);
      expect(new URL(res.json.data.url).searchParams.get('redirect_uri')).toBe(`${origin}/callback`);
    }
    expect(forged.hits).toEqual([]);
  });

  it('marks the social-flow cookie Secure when the public origin is https', async () => {
    const res = await h.call({ method: 'POST', url: '/apiAdmin/socialLogin', payload: { provider: 'corp' } });
    expect(res.statusCode).toBe(200);
    const set = String(res.headers['set-cookie']);
    expect(set).toContain('cpc_social=');
    if (publicUrl) expect(set).toContain('Secure');
    else expect(set).not.toContain('Secure');
  });
});

describe('PUBLIC_URL in configuration', () => {
  it('is required in production, named in the start-up error', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/PUBLIC_URL: required when NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://print.example.com/' }).PUBLIC_URL).toBe(
      'https://print.example.com/',
    );
    for (const bad of ['ftp://print.example.com', 'https://print.example.com/?x=1', 'https://print.example.com/#a']) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL: must be an http\(s\) URL/);
    }
  });

  it('defaults outside production to the address the server listens on, else its HOST:PORT', () => {
    const dev = { HOST: '0.0.0.0', PORT: 8080 };
    expect(publicOrigin({ ...dev, PUBLIC_URL: 'https://print.example.com//' })).toBe('https://print.example.com');
    expect(publicOrigin(dev)).toBe('http://127.0.0.1:8080');
    expect(publicOrigin({ HOST: '192.0.2.7', PORT: 3000 })).toBe('http://192.0.2.7:3000');
    expect(publicOrigin(dev, { address: '::', family: 'IPv6', port: 41234 })).toBe('http://127.0.0.1:41234');
    expect(publicOrigin(dev, { address: '::1', family: 'IPv6', port: 41234 })).toBe('http://[::1]:41234');
    expect(publicOrigin(dev, { address: '127.0.0.1', family: 'IPv4', port: 5 })).toBe('http://127.0.0.1:5');
  });
});
