import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppKeyWithSecret } from '@cpc/contracts/integration';
import { canonicalQuery } from '@cpc/contracts/open-api';
import { customer } from './device-helpers.ts';
import { docCanonicalQuery, docSign } from './doc-signer.ts';
import { createHarness, type Harness } from './harness.ts';
import { createKey } from './open-helpers.ts';

// Over a real socket: the request line reaches the server exactly as written (inject rebuilds the URL).
let h: Harness;
let port: number;
let key: AppKeyWithSecret;
beforeAll(async () => {
  h = await createHarness({ OPEN_RATE_LIMIT: '100000' });
  key = await createKey(h, (await customer(h)).token);
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as AddressInfo).port;
});
afterAll(() => h.close());

function get(
  pathAndQuery: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: { code: number; msg: string; data: any } }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: pathAndQuery, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

// [query as sent, the canonical query the documentation gives]
const queries: Array<[string, string]> = [
  ['pageSize=5&pageNo=1', 'pageNo=1&pageSize=5'],
  ['=x', '=x'],
  ['=', '='],
  ['pageSize=', 'pageSize='],
  ['pageSize', 'pageSize='],
  ['a=2&a=10&a=1', 'a=1&a=10&a=2'],
  ['b=1&B=2&a=3&A=4', 'A=4&B=2&a=3&b=1'],
  ['q=a+b', 'q=a%20b'],
  ['q=a%20b', 'q=a%20b'],
  ['q=a%2Bb', 'q=a%2Bb'],
  ['q=%2f%3F%26%3d%23', 'q=%2F%3F%26%3D%23'],
  ["q=!'()*", 'q=%21%27%28%29%2A'],
  ['q=-_.~', 'q=-_.~'],
  ['q=%E4%B8%AD%E6%96%87', 'q=%E4%B8%AD%E6%96%87'],
  // byte order of the encoded text: '%' (0x25) sorts before letters
  ['z=2&%E4%B8%AD=1', '%E4%B8%AD=1&z=2'],
  ['a=1&&b=2&', 'a=1&b=2'],
  ['x=1&x=', 'x=&x=1'],
  ['a=b=c', 'a=b%3Dc'],
];

describe('the canonical query of docs/open-api.md', () => {
  it.each(queries)('?%s is %s', (query, canonical) => {
    expect(docCanonicalQuery(query)).toBe(canonical);
    // the server's own canonical form is the documented one
    expect(canonicalQuery(query)).toBe(canonical);
  });

  it.each(queries)('the server takes ?%s signed as documented', async (query) => {
    const url = `/open/v1/print?${query}`;
    const res = await get(url, docSign(key, 'GET', url));
    // the signature holds: the call is then answered or its query refused as bad input, never 401
    expect(res.status, res.body.msg).not.toBe(401);
    expect([200, 400]).toContain(res.body.code);
  });

  it('refuses the same calls signed with the query unsorted (the check is real)', async () => {
    const url = '/open/v1/print?pageSize=5&pageNo=1';
    const headers = docSign(key, 'GET', '/open/v1/print');
    const res = await get(url, headers);
    expect(res.status).toBe(401);
    expect(res.body.data.reason).toBe('bad_signature');
  });
});
