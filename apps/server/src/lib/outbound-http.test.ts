import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress, outboundRequest } from './outbound-http.ts';

describe('internal addresses', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['224.0.0.1', true],
    ['::1', true],
    ['::', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['not an address', true],
    ['8.8.8.8', false],
    ['203.0.113.9', false],
    ['172.32.0.1', false],
    ['2001:4860:4860::8888', false],
    ['::ffff:8.8.8.8', false],
  ])('%s → %s', (ip, internal) => {
    expect(isPrivateAddress(ip)).toBe(internal);
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
  const opts = { method: 'GET' as const, timeoutMs: 2000, maxBytes: 100, overflow: 'truncate' as const, allowPrivate: true };

  it('keeps at most maxBytes of the answer, or fails when told to', async () => {
    expect((await outboundRequest(`${base}/big`, opts)).body.length).toBe(100);
    await expect(outboundRequest(`${base}/big`, { ...opts, overflow: 'fail' })).rejects.toMatchObject({ code: 'ETOOBIG' });
  });

  it('follows redirects only when allowed', async () => {
    expect((await outboundRequest(`${base}/redirect`, opts)).status).toBe(302);
    expect((await outboundRequest(`${base}/redirect`, { ...opts, maxRedirects: 2 })).status).toBe(200);
  });

  it('gives up after the time-out', async () => {
    await expect(outboundRequest(`${base}/slow`, { ...opts, timeoutMs: 100 })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
  });

  it('refuses internal addresses, written as such or behind a name', async () => {
    const strict = { ...opts, allowPrivate: false };
    await expect(outboundRequest(`${base}/`, strict)).rejects.toMatchObject({ code: 'EPRIVATE' });
    await expect(outboundRequest(base.replace('127.0.0.1', 'localhost'), strict)).rejects.toMatchObject({ code: 'EPRIVATE' });
    await expect(outboundRequest('http://[::1]:9/', strict)).rejects.toMatchObject({ code: 'EPRIVATE' });
    await expect(outboundRequest('ftp://example.com/', strict)).rejects.toMatchObject({ code: 'EBADURL' });
  });
});
