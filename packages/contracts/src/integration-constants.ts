/**
 * Plain values of the integration and open-API contracts: job states, limits, header names, reasons, field
 * rules. This module imports no zod, so the console can take them from `@cpc/contracts/integration-constants`
 * without bundling zod; `integration.ts` and `open-api.ts` re-export them beside their schemas.
 */

import { hasNoControl } from './validators.ts';

// ---------------------------------------------------------------------------------------------------------------
// Print jobs (DESIGN §6: the task machine, with `running` named printing and `succeeded` named printed)

export const PRINT_JOB_STATES = [
  'queued',
  'sent',
  'delivered',
  'printing',
  'printed',
  'failed',
  'timeout',
  'expired',
  'canceled',
] as const;
export type PrintJobState = (typeof PRINT_JOB_STATES)[number];
/** States a job can still leave. */
export const OPEN_PRINT_JOB_STATES = [
  'queued',
  'sent',
  'delivered',
  'printing',
  'timeout',
] as const satisfies readonly PrintJobState[];
export const FINAL_PRINT_JOB_STATES = [
  'printed',
  'failed',
  'expired',
  'canceled',
] as const satisfies readonly PrintJobState[];
/**
 * The state in which a cancel can succeed: `queued`, and only while the job was never sent (`attempts` 0). A job
 * that was ever published may have reached the printer — an unacknowledged delivery (`timeout`, or a job back in
 * `queued` after its printer dropped off the line) proves nothing — so it runs to its end, and a cancel answered
 * 200 guarantees the job never prints. A refused cancel answers 400 with `data.reason: CANCEL_REFUSED_REASON`.
 */
export const CANCELABLE_PRINT_JOB_STATES = ['queued'] as const satisfies readonly PrintJobState[];
export const isCancelablePrintJob = (j: { state: PrintJobState; attempts: number }): boolean =>
  j.state === 'queued' && j.attempts === 0;
/** `data.reason` of a refused cancel (HTTP 400: the catalogue of SPEC §8 has no 409), beside `data.state`. */
export const CANCEL_REFUSED_REASON = 'not_cancelable';

/** Copies of one job, and how long it waits for an offline printer (default and bounds of `expireInSec`). */
export const PRINT_COPIES_MAX = 10;
export const PRINT_EXPIRE_DEFAULT_S = 24 * 3600;
export const PRINT_EXPIRE_MIN_S = 10;
export const PRINT_EXPIRE_MAX_S = 7 * 24 * 3600;
/** The caller's idempotency key: 1-64 letters, digits, `_`, `-`, `.`, `:`. */
export const ORIGIN_ID_RULE = /^[A-Za-z0-9_.:-]{1,64}$/;
/** Longest markup of one job, in characters. */
export const PRINT_CONTENT_MAX = 20_000;

/** What the printer reports as a fault (the device's `paper` field other than `ok`). */
export const DEVICE_FAULTS = ['paper_out', 'cover_open', 'overheat'] as const;
export type DeviceFault = (typeof DEVICE_FAULTS)[number];
/** A device as an integrator sees it: offline, online and ready, or online with a fault. */
export const OPEN_DEVICE_STATES = ['offline', 'ok', 'fault'] as const;
export type OpenDeviceState = (typeof OPEN_DEVICE_STATES)[number];

// ---------------------------------------------------------------------------------------------------------------
// The open API's signature (docs/open-api.md)

export const OPEN_API_PREFIX = '/open/v1';
/**
 * Request headers of a signed call (lower case, as Node sees them; HTTP header names are case-insensitive). The
 * first four are required; `contentSha256` is optional: the hex SHA-256 of the body sent, which the server
 * compares with the body it received before the signature (a body changed in transit answers `body_mismatch`,
 * a wrong secret `bad_signature`).
 */
export const OPEN_HEADERS = {
  appId: 'x-cpc-app-id',
  timestamp: 'x-cpc-timestamp',
  nonce: 'x-cpc-nonce',
  signature: 'x-cpc-signature',
  contentSha256: 'x-cpc-content-sha256',
} as const;
/** The headers every signed call must carry. */
export const OPEN_REQUIRED_HEADERS = [
  OPEN_HEADERS.appId,
  OPEN_HEADERS.timestamp,
  OPEN_HEADERS.nonce,
  OPEN_HEADERS.signature,
] as const;
/** Seconds a request's timestamp may differ from the server's clock (either way). */
export const OPEN_CLOCK_WINDOW_S = 600;
/** A nonce: 8-64 letters, digits, `_` or `-`; never reused by the same app id within the clock window. */
export const NONCE_RULE = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * `data.reason` of a refused call, in the order the checks run. Every one but `rate_limited` (HTTP 429, with
 * `Retry-After`) answers HTTP 401. `malformed_header`: a header is present but not in its format (timestamp not
 * Unix seconds, nonce, signature or content hash not matching its rule). `body_mismatch`: the body received is
 * not the one whose SHA-256 the `X-CPC-Content-Sha256` header gives (changed in transit).
 */
export const OPEN_AUTH_REASONS = [
  'missing_headers',
  'malformed_header',
  'unknown_app',
  'app_disabled',
  'ip_not_allowed',
  'stale_timestamp',
  'body_mismatch',
  'bad_signature',
  'nonce_reused',
] as const;
export type OpenAuthReason = (typeof OPEN_AUTH_REASONS)[number];
export const RATE_LIMITED_REASON = 'rate_limited';
/** A key's calls are counted in windows of this many seconds; `Retry-After` is the time until the window ends. */
export const OPEN_RATE_WINDOW_S = 1;
/** Bounds of a key's own rate limit (calls per window); a key without one follows the server's OPEN_RATE_LIMIT. */
export const APP_KEY_RATE_LIMIT_MIN = 1;
export const APP_KEY_RATE_LIMIT_MAX = 100_000;

// ---------------------------------------------------------------------------------------------------------------
// Webhooks

/** Headers of a callback: the signature is hex(HMAC-SHA256(key = app secret, message = the raw body)). */
export const WEBHOOK_HEADERS = {
  signature: 'x-cpc-signature',
  appId: 'x-cpc-app-id',
  delivery: 'x-cpc-delivery',
  attempt: 'x-cpc-attempt',
  event: 'x-cpc-event',
} as const;
export const WEBHOOK_EVENT = 'print.job.state';
/** pending: not tried yet; retrying: failed, another try is scheduled; succeeded: a 2xx came back; failed: every try failed. */
export const WEBHOOK_DELIVERY_STATES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];
/** The default back-off before each retry, seconds: 7 tries over about 68 minutes. */
export const WEBHOOK_BACKOFF_DEFAULT_S = [60, 120, 300, 600, 1200, 1800] as const;

// ---------------------------------------------------------------------------------------------------------------
// App keys (console)

export const APP_KEY_STATES = ['active', 'disabled'] as const;
export type AppKeyState = (typeof APP_KEY_STATES)[number];
export const APP_KEYS_MAX = 20;
export const APP_KEY_NAME_MAX = 30;
export const CALLBACK_URL_MAX = 500;
export const IP_ALLOW_MAX = 50;
/** The request log keeps this many days; usage is counted per hour and answered per day for up to this many. */
export const REQUEST_LOG_DAYS = 30;
export const USAGE_MAX_DAYS = 30;
export const APP_ID_RULE = /^ak[0-9a-f]{16}$/;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IPv6 address in any of its textual forms (`::` shortening, an embedded IPv4 tail). */
export function isIPv6(v: string): boolean {
  if (!/^[0-9A-Fa-f:.]{2,45}$/.test(v)) return false;
  let s = v;
  let groups = 8;
  const tail = /:(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    if (!IPV4.test(tail[1])) return false;
    s = s.slice(0, -tail[1].length) + '0';
    groups = 7;
  }
  const halves = s.split('::');
  if (halves.length > 2) return false;
  const parts = (h: string) => (h === '' ? [] : h.split(':'));
  const head = parts(halves[0]);
  const rest = halves.length === 2 ? parts(halves[1]) : [];
  if (![...head, ...rest].every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  const n = head.length + rest.length;
  return halves.length === 2 ? n < groups : n === groups;
}

export const isIPv4 = (v: string): boolean => IPV4.test(v);

/** One entry of an IP allow-list: an IPv4 or IPv6 address, or a CIDR block of either (`10.0.0.0/8`, `2001:db8::/32`). */
export function isIpOrCidr(v: string): boolean {
  const [addr, bits, extra] = v.split('/');
  if (extra !== undefined) return false;
  const v4 = isIPv4(addr);
  if (!v4 && !isIPv6(addr)) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (v4 ? 32 : 128);
}

/** A callback URL: http or https with a host, at most CALLBACK_URL_MAX characters, no credentials in it. */
export function isCallbackUrl(v: string): boolean {
  // the URL parser would quietly percent-encode control characters; a pasted one is a mistake
  if (v.length > CALLBACK_URL_MAX || !hasNoControl(v)) return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0 && !u.username && !u.password;
  } catch {
    return false;
  }
}
