import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/**
 * HTTP requests to addresses a customer chose (webhook callbacks, `<IMG>` URLs). With `allowPrivate: false`
 * they never reach loopback, private, link-local or other internal addresses: the check runs on the address
 * actually connected to (the socket's DNS lookup), so a name that resolves differently the second time cannot
 * slip through. Otherwise a customer could make the server fetch its own network and read the answer back.
 */
export interface OutboundOptions {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Bytes of the answer kept; the rest is not read. */
  maxBytes: number;
  /** What happens past maxBytes: stop reading and keep what came, or fail with `ETOOBIG`. */
  overflow: 'truncate' | 'fail';
  allowPrivate: boolean;
  /** Redirects followed (GET only); 0 answers the 3xx itself. */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  contentLength: number | undefined;
  body: Buffer;
}

/** Why a request got no answer: `code` is EPRIVATE, ETIMEDOUT, ETOOBIG, EBADURL, or the socket's (ECONNREFUSED…). */
export class OutboundError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const BLOCKED = new net.BlockList();
for (const [addr, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  BLOCKED.addSubnet(addr, bits, 'ipv4');
}
for (const [addr, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(addr, bits, 'ipv6');
}

/** Loopback, private, link-local, shared, multicast and reserved addresses (IPv4-mapped IPv6 as its IPv4). */
export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const type = net.isIP(ip);
  if (!type) return true;
  return BLOCKED.check(ip, type === 6 ? 'ipv6' : 'ipv4');
}

const refused = (ip: string) => new OutboundError(`${ip} is an internal address (loopback, private network or link-local): refused`, 'EPRIVATE');

/** dns.lookup that refuses internal addresses, in both the one-address and the `all` form net.connect uses. */
const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return (callback as (e: Error | null, a: string, f: number) => void)(err, '', 0);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) return (callback as (e: Error | null, a: string, f: number) => void)(refused(bad.address), '', 0);
    if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};

export async function outboundRequest(url: string, o: OutboundOptions): Promise<OutboundResponse> {
  let target = url;
  for (let hop = 0; ; hop++) {
    const res = await once(target, o);
    const location = res.location;
    if (location && o.method === 'GET' && hop < (o.maxRedirects ?? 0) && res.status >= 300 && res.status < 400) {
      target = new URL(location, target).toString();
      continue;
    }
    return { status: res.status, contentLength: res.contentLength, body: res.body };
  }
}

function once(url: string, o: OutboundOptions): Promise<OutboundResponse & { location: string | undefined }> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return Promise.reject(new OutboundError('not a valid URL', 'EBADURL'));
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return Promise.reject(new OutboundError('only http and https are allowed', 'EBADURL'));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  // an address written as such is connected to without a lookup: checked here
  if (!o.allowPrivate && net.isIP(host) && isPrivateAddress(host)) return Promise.reject(refused(host));
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(u, {
      method: o.method,
      headers: { ...o.headers, ...(o.body !== undefined ? { 'content-length': String(Buffer.byteLength(o.body)) } : {}) },
      lookup: o.allowPrivate ? undefined : guardedLookup,
      agent: false,
    });
    const timer = setTimeout(() => req.destroy(new OutboundError(`no answer within ${o.timeoutMs} ms`, 'ETIMEDOUT')), o.timeoutMs);
    const fail = (e: Error & { code?: string }) => {
      clearTimeout(timer);
      reject(e instanceof OutboundError ? e : new OutboundError(e.message, e.code ?? 'EFAILED'));
    };
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const declared = res.headers['content-length'] ? Number(res.headers['content-length']) : undefined;
      const done = () => {
        clearTimeout(timer);
        const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
        resolve({ status: res.statusCode ?? 0, contentLength: declared, body: Buffer.concat(chunks), location });
      };
      if (o.overflow === 'fail' && declared !== undefined && declared > o.maxBytes) {
        res.destroy();
        return fail(new OutboundError(`larger than ${o.maxBytes} bytes`, 'ETOOBIG'));
      }
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > o.maxBytes) {
          if (o.overflow === 'fail') {
            res.destroy();
            return fail(new OutboundError(`larger than ${o.maxBytes} bytes`, 'ETOOBIG'));
          }
          chunks.push(c.subarray(0, c.length - (size - o.maxBytes)));
          res.destroy();
          return done();
        }
        chunks.push(c);
      });
      res.on('end', done);
      res.on('error', fail);
    });
    req.end(o.body);
  });
}
