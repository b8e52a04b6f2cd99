import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

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

/**
 * The range of an address in the IANA special-purpose registries (ipaddr.js's names: `unicast`, `loopback`,
 * `private`, `reserved`, `uniqueLocal`, …). An IPv6 address that carries an IPv4 one (mapped `::ffff:a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, the deprecated compatible `::a.b.c.d`) is the range of that IPv4; IPv6
 * outside 2000::/3, the global unicast block, is `reserved`. Text that is no address is `invalid`.
 */
export function addressRange(text: string): string {
  if (!ipaddr.isValid(text)) return 'invalid';
  const addr = ipaddr.parse(text);
  if (addr.kind() === 'ipv4') return addr.range();
  const v6 = addr as ipaddr.IPv6;
  const range = v6.range();
  const p = v6.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]).range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return v4(p[6], p[7]);
  if (range === 'rfc6052' && p[2] === 0) return v4(p[6], p[7]);
  if (range === '6to4') return v4(p[1], p[2]);
  if (range === 'unspecified' || range === 'loopback') return range;
  if (p.slice(0, 6).every((x) => x === 0)) return v4(p[6], p[7]);
  if (range === 'unicast' && (p[0] & 0xe000) !== 0x2000) return 'reserved';
  return range;
}

/** Anything but a public unicast address: loopback, private, link-local, shared, documentation, multicast, reserved. */
export const isPrivateAddress = (ip: string): boolean => addressRange(ip) !== 'unicast';

/** Names that never leave the local network, told without asking DNS (RFC 6761 localhost, mDNS, one label). */
export function isLocalName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  return !h.includes('.') || /(^|\.)(localhost|local|internal|lan|home\.arpa)$/.test(h);
}

/**
 * Whether a URL's host is internal as far as can be told without a lookup: an address written in any form
 * (`0x7f.1`, `[::ffff:127.0.0.1]` — the URL parser normalises them) or a local name. Not a URL: true.
 */
export function urlHostIsPrivate(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return true;
  }
  return net.isIP(host) ? isPrivateAddress(host) : isLocalName(host);
}

/** The first internal address a name resolves to now; null when all are public, undefined when it does not resolve in time. */
export async function resolvesPrivate(hostname: string, timeoutMs: number): Promise<string | null | undefined> {
  const lookup = dns.promises.lookup(hostname, { all: true }).then(
    (all) => all.find((a) => isPrivateAddress(a.address))?.address ?? null,
    () => undefined,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), timeoutMs)));
  try {
    return await Promise.race([lookup, late]);
  } finally {
    clearTimeout(timer);
  }
}

const refused = (ip: string) =>
  new OutboundError(`${ip} is an internal address (loopback, private network or link-local): refused`, 'EPRIVATE');
// the address connected to is checked in the socket's lookup below, so a name that resolves to a public address
// when saved and to an internal one when used (DNS rebinding) is still refused

/** dns.lookup that refuses internal addresses, in both the one-address and the `all` form net.connect uses. */
const guardedLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return (callback as (e: Error | null, a: string, f: number) => void)(err, '', 0);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) return (callback as (e: Error | null, a: string, f: number) => void)(refused(bad.address), '', 0);
    if ((options as dns.LookupOptions).all)
      return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
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
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return Promise.reject(new OutboundError('only http and https are allowed', 'EBADURL'));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  // an address written as such is connected to without a lookup: checked here
  if (!o.allowPrivate && net.isIP(host) && isPrivateAddress(host)) return Promise.reject(refused(host));
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(u, {
      method: o.method,
      headers: {
        ...o.headers,
        ...(o.body !== undefined ? { 'content-length': String(Buffer.byteLength(o.body)) } : {}),
      },
      lookup: o.allowPrivate ? undefined : guardedLookup,
      agent: false,
    });
    const timer = setTimeout(
      () => req.destroy(new OutboundError(`no answer within ${o.timeoutMs} ms`, 'ETIMEDOUT')),
      o.timeoutMs,
    );
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
