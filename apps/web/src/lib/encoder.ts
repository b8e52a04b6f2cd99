/**
 * The key:value:timestamp encoder of SPEC §9, defined precisely:
 *
 * - plain text: `${key}:${value}:${timestamp}`, timestamp in milliseconds since the epoch (an integer);
 *   the key must not contain ':' (the value may: the key ends at the first ':', the timestamp starts after
 *   the last one);
 * - encoding: the UTF-8 bytes of the plain text, each shifted up by 3 modulo 256, written as base64url
 *   without padding (safe in a URL or a header);
 * - decoding reverses both steps and answers null for anything that is not such a token;
 * - a token is fresh while 0 ≤ now − timestamp ≤ 10 000 ms. A timestamp in the future is not fresh.
 *
 * The shift only obscures the text from a casual look; it is not encryption and protects nothing.
 */
export const ENCODER_SHIFT = 3;
export const ENCODER_FRESH_MS = 10_000;

export interface Decoded {
  key: string;
  value: string;
  timestamp: number;
}

const toBase64Url = (bytes: Uint8Array): string => {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

const fromBase64Url = (s: string): Uint8Array | null => {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) return null;
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
};

export function encode(key: string, value: string, timestamp: number = Date.now()): string {
  if (key.includes(':')) throw new Error('encoder: the key must not contain ":"');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new Error('encoder: the timestamp must be a whole number of milliseconds');
  const bytes = new TextEncoder().encode(`${key}:${value}:${timestamp}`);
  return toBase64Url(bytes.map((b) => (b + ENCODER_SHIFT) & 0xff));
}

export function decode(token: string): Decoded | null {
  if (typeof token !== 'string' || !token) return null;
  const bytes = fromBase64Url(token);
  if (!bytes) return null;
  let plain: string;
  try {
    plain = new TextDecoder('utf-8', { fatal: true }).decode(bytes.map((b) => (b - ENCODER_SHIFT) & 0xff));
  } catch {
    return null;
  }
  const first = plain.indexOf(':');
  const last = plain.lastIndexOf(':');
  if (first < 0 || last === first) return null;
  const stamp = plain.slice(last + 1);
  if (!/^\d{1,16}$/.test(stamp)) return null;
  const timestamp = Number(stamp);
  if (!Number.isSafeInteger(timestamp)) return null;
  return { key: plain.slice(0, first), value: plain.slice(first + 1, last), timestamp };
}

/** Whether `token` decodes (to `key`, when given) and was made at most 10 s before `now`. */
export function isFresh(
  token: string,
  now: number = Date.now(),
  key?: string,
  maxAgeMs: number = ENCODER_FRESH_MS,
): boolean {
  const d = decode(token);
  if (!d || (key !== undefined && d.key !== key)) return false;
  const age = now - d.timestamp;
  return age >= 0 && age <= maxAgeMs;
}
