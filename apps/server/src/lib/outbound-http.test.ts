import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRange, isPrivateAddress, outboundRequest, urlHostIsPrivate } from './outbound-http.ts';

describe('internal addresses', () => {
  // [address as written, the range it is in]: everything but `unicast` is refused under OUTBOUND_PRIVATE=deny
  const table: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['127.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:0:a00:1', 'private'],
    ['fd00::1', 'uniqueLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2001::1', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'discard'],
    ['1::1', 'reserved'],
    ['not an address', 'invalid'],
    ['', 'invalid'],
    // public: allowed
    ['8.8.8.8', 'unicast'],
    ['172.32.0.1', 'unicast'],
    ['100.128.0.1', 'unicast'],
    ['198.20.0.1', 'unicast'],
    ['2001:4860:4860::8888', 'unicast'],
    ['::ffff:8.8.8.8', 'unicast'],
    ['64:ff9b::808:808', 'unicast'],
    ['2002:808:808::1', 'unicast'],
  ];
  it.each(table)('%s is %s', (ip, range) => {
    expect(addressRange(ip)).toBe(range);
    expect(isPrivateAddress(ip)).toBe(range !== 'unicast');
  });

  it.each([
    ['http://0177.0.0.1/x', true],
    ['http://2130706433/x', true],
    ['http://0x7f.1/x', true],
    ['http://[::127.0.0.1]/x', true],
    ['http://[::ffff:127.0.0.1]/x', true],
    ['http://[64:ff9b::10.0.0.1]/x', true],
    ['http://localhost:8080/x', true],
    ['http://api.localhost/x', true],
    ['http://printer-hub/x', true],
    ['http://nas.local/x', true],
    ['not a url', true],
    ['https://example.com/x', false],
    ['https://8.8.8.8/x', false],
  ])('the host of %s is internal: %s', (url, internal) => {
    expect(urlHostIsPrivate(url)).toBe(internal);
  });
});

describe('outbound requests', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/redirect') return res.writeHead(302, { location: '/big' }).end();
      if (req.url === '/big') return res.writeHead(200).end('x'.repeat(2000));
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 1000);
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  const opts = {
    method: 'GET' as const,
    timeoutMs: 2000,
    maxBytes: 100,
    overflow: 'truncate' as const,
    allowPrivate: true,
  };

  it('keeps at most maxBytes of the answer, or fails when told to', async () => {
    expect((await outboundRequest(`${base}/big`, opts)).body.length).toBe(100);
    await expect(outboundRequest(`${base}/big`, { ...opts, overflow: 'fail' })).rejects.toMatchObject({
      code: 'ETOOBIG',
    });
  });

  it('follows redirects only when allowed', async () => {
    expect((await outboundRequest(`${base}/redirect`, opts)).status).toBe(302);
    expect((await outboundRequest(`${base}/redirect`, { ...opts, maxRedirects: 2 })).status).toBe(200);
  });

  it('gives up after the time-out', async () => {
    await expect(outboundRequest(`${base}/slow`, { ...opts, timeoutMs: 100 })).rejects.toMatchObject({
      code: 'ETIMEDOUT',
    });
  });

  it('refuses internal addresses, written as such or behind a name', async () => {
    const strict = { ...opts, allowPrivate: false };
    await expect(outboundRequest(`${base}/`, strict)).rejects.toMatchObject({ code: 'EPRIVATE' });
    await expect(outboundRequest(base.replace('127.0.0.1', 'localhost'), strict)).rejects.toMatchObject({
      code: 'EPRIVATE',
    });
    await expect(outboundRequest('http://[::1]:9/', strict)).rejects.toMatchObject({ code: 'EPRIVATE' });
    // the other spellings of loopback reach the same server when allowed, and are refused when not
    for (const host of ['0177.0.0.1', '2130706433', '0x7f.1', '[::ffff:127.0.0.1]']) {
      const url = base.replace('127.0.0.1', host);
      await expect(outboundRequest(`${url}/`, strict), host).rejects.toMatchObject({ code: 'EPRIVATE' });
    }
    expect((await outboundRequest(`${base.replace('127.0.0.1', '0x7f.1')}/`, opts)).status).toBe(200);
    await expect(outboundRequest('ftp://example.com/', strict)).rejects.toMatchObject({ code: 'EBADURL' });
  });
});
