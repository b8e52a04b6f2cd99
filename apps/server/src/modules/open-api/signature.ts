import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EMPTY_BODY_SHA256, OPEN_HEADERS, stringToSign, type SignatureParts } from '@cpc/contracts/open-api';

export const sha256Hex = (body: Buffer | string | undefined) =>
  body === undefined || body.length === 0 ? EMPTY_BODY_SHA256 : createHash('sha256').update(body).digest('hex');

/** hex(HMAC-SHA256(secret, stringToSign(parts))) */
export const openSignature = (secret: string, parts: SignatureParts) =>
  createHmac('sha256', secret).update(stringToSign(parts), 'utf8').digest('hex');

/** Compares in constant time; anything that is not 64 hex digits fails. */
export function signatureMatches(expectedHex: string, givenHex: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(givenHex)) return false;
  return timingSafeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(givenHex.toLowerCase(), 'hex'));
}

export interface SignInput {
  appId: string;
  secret: string;
  method: string;
  /** Path and query as they will be sent: `/open/v1/print?pageSize=5`. */
  url: string;
  /** The exact body bytes that will be sent (a string is sent as UTF-8). */
  body?: string | Buffer;
  /** Unix seconds; now by default. */
  timestamp?: number;
  nonce?: string;
}

/**
 * The headers of a signed call, as an integrator computes them (docs/open-api.md): the four required ones and
 * the body's SHA-256 (so a body changed on its way is refused as `body_mismatch`, not as a bad signature). Used
 * by the console's test print, the tests and the benchmark: one implementation of the client side, beside the
 * server's check.
 */
export function signOpenRequest(i: SignInput): Record<string, string> {
  const q = i.url.indexOf('?');
  const timestamp = String(i.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = i.nonce ?? randomBytes(12).toString('base64url');
  const bodySha256 = sha256Hex(i.body);
  const signature = openSignature(i.secret, {
    method: i.method,
    path: q < 0 ? i.url : i.url.slice(0, q),
    query: q < 0 ? '' : i.url.slice(q + 1),
    timestamp,
    nonce,
    bodySha256,
  });
  return {
    [OPEN_HEADERS.appId]: i.appId,
    [OPEN_HEADERS.timestamp]: timestamp,
    [OPEN_HEADERS.nonce]: nonce,
    [OPEN_HEADERS.signature]: signature,
    [OPEN_HEADERS.contentSha256]: bodySha256,
  };
}
