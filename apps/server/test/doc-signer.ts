import { createHash, createHmac, randomBytes } from 'node:crypto';

/**
 * The signature of docs/open-api.md ("Signing"), written from the page's words and sharing no code with the
 * server (the contracts' canonicalQuery and signOpenRequest are what it checks). Changing the page means
 * changing this file; a server that disagrees with it refuses what integrators send.
 */
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

/**
 * "split the raw query on `&`; split each part at its first `=` (a part without `=` has the empty value);
 * percent-decode name and value (`+` is a space); re-encode both with RFC 3986 …; sort the pairs by name, then
 * by value (byte order); join as `name=value` with `&`."
 */
export function docCanonicalQuery(query: string): string {
  const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  const pairs = query
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      return [rfc3986(dec(i < 0 ? p : p.slice(0, i))), rfc3986(dec(i < 0 ? '' : p.slice(i + 1)))] as const;
    });
  const bytes = (s: string) => Buffer.from(s, 'utf8');
  pairs.sort((a, b) => Buffer.compare(bytes(a[0]), bytes(b[0])) || Buffer.compare(bytes(a[1]), bytes(b[1])));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** The five headers of a call to `pathAndQuery` (as in the request line) with these body bytes. */
export function docSign(
  key: { appId: string; secret: string },
  method: string,
  pathAndQuery: string,
  body = '',
  nonce = randomBytes(12).toString('base64url'),
) {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q < 0 ? '' : pathAndQuery.slice(q + 1);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const bodySha256 = createHash('sha256').update(body).digest('hex');
  const toSign = [method.toUpperCase(), path, docCanonicalQuery(query), timestamp, nonce, bodySha256].join('\n');
  return {
    'x-cpc-app-id': key.appId,
    'x-cpc-timestamp': timestamp,
    'x-cpc-nonce': nonce,
    'x-cpc-signature': createHmac('sha256', key.secret).update(toSign).digest('hex'),
    'x-cpc-content-sha256': bodySha256,
  };
}
