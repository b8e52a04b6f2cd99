import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness.ts';

// `inject` skips Node's HTTP parser and Fastify's connection handling: these requests go over a real socket.
let h: Harness;
let port: number;
beforeAll(async () => {
  h = await createHarness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as net.AddressInfo).port;
});
afterAll(() => h.close());

/** Sends raw bytes and reads the answer until the server ends it (each request closes its connection). */
function raw(request: string | Buffer): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    // the server may close before it has read all of a large request: the answer is already in
    socket.on('error', (e) => (chunks.length ? undefined : reject(e)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      let body = rest.join('\r\n\r\n');
      if (/transfer-encoding: chunked/i.test(head))
        body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), headers: head, body });
    });
    socket.write(request);
  });
}

const get = (path: string, headers = '') =>
  `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`;
const post = (path: string, body: string | Buffer, type = 'application/json', headers = '') =>
  Buffer.concat([
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n`,
    ),
    Buffer.from(body),
  ]);
const LOGIN = '/apiAdmin/user/v1/login';

const cases: Array<{ name: string; request: () => string | Buffer; status: number; msg?: RegExp }> = [
  {
    name: 'a 20 KB URL',
    request: () => get(`/apiAdmin/notice/getList?q=${'a'.repeat(20 * 1024)}`),
    status: 431,
    msg: /too large/,
  },
  {
    name: 'a 40 KB header',
    request: () => get('/apiAdmin/publicKey', `X-Big: ${'b'.repeat(40 * 1024)}\r\n`),
    status: 431,
    msg: /too large/,
  },
  {
    name: 'a 2 MB JSON body',
    request: () => post(LOGIN, JSON.stringify({ username: 'x'.repeat(2 * 1024 * 1024), password: 'secret12' })),
    status: 413,
    msg: /too large/,
  },
  { name: 'malformed JSON', request: () => post(LOGIN, '{"username": "abc'), status: 400, msg: /JSON/ },
  { name: 'Content-Type: text/xml', request: () => post(LOGIN, '<login/>', 'text/xml'), status: 415, msg: /text\/xml/ },
  { name: 'a content type that is not one', request: () => post(LOGIN, '{}', ';;;'), status: 415 },
  {
    name: 'PATCH on a GET-only path',
    request: () =>
      `PATCH /apiAdmin/publicKey HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    status: 405,
    msg: /PATCH/,
  },
  { name: 'a request line with garbage', request: () => 'GET /\x01\x02 garbage HTTP/9.9 what\r\n\r\n', status: 400 },
  {
    name: 'a header line with garbage',
    request: () => 'GET / HTTP/1.1\r\nHost localhost no colon\r\n\r\n',
    status: 400,
  },
  { name: 'a URL the router cannot decode', request: () => get('/open/v1/print/%ZZ'), status: 400 },
  { name: 'an unknown path', request: () => get('/nowhere'), status: 404 },
  {
    name: 'an Expect the server does not meet',
    request: () => get('/apiAdmin/publicKey', 'Expect: tea\r\n'),
    status: 417,
  },
  {
    name: 'a body length that is no number',
    request: () => `POST ${LOGIN} HTTP/1.1\r\nHost: localhost\r\nContent-Length: ten\r\nConnection: close\r\n\r\n`,
    status: 400,
  },
];

describe('every answer is the envelope, also the ones made before a route runs', () => {
  it.each(cases)('$name', async (c) => {
    const res = await raw(c.request());
    expect(res.status).toBe(c.status);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    const body = JSON.parse(res.body);
    expect(body).toEqual({ code: c.status, msg: expect.any(String), data: body.data ?? null });
    expect(body.msg.length).toBeGreaterThan(0);
    if (c.msg) expect(body.msg).toMatch(c.msg);
  });

  it('says it in zh when the caller asks for zh', async () => {
    const big = await raw(get(`/apiAdmin/notice/getList?q=${'a'.repeat(20 * 1024)}`, 'Accept-Language: zh-CN\r\n'));
    expect(JSON.parse(big.body).msg).toMatch(/[\u4e00-\u9fff]/);
    const xml = await raw(post(LOGIN, '<login/>', 'text/xml', 'Accept-Language: zh-CN\r\n'));
    expect(JSON.parse(xml.body).msg).toMatch(/[\u4e00-\u9fff]/);
    const badUrl = await raw(get('/open/v1/print/%ZZ', 'Accept-Language: zh-CN\r\n'));
    expect(JSON.parse(badUrl.body).msg).toMatch(/[\u4e00-\u9fff]/);
    const patch = await raw(
      `PATCH /apiAdmin/publicKey HTTP/1.1\r\nHost: localhost\r\nAccept-Language: zh\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
    expect(JSON.parse(patch.body).msg).toMatch(/[\u4e00-\u9fff]/);
  });

  it('tells a PATCH on a GET-only path which methods it takes', async () => {
    const res = await raw(
      `PATCH /apiAdmin/publicKey HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
    expect(res.headers).toMatch(/\r\nallow: GET, HEAD/i);
  });
});
