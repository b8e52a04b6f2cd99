import { z } from 'zod';
import { MSG, PAPER_STATES, SN_RULE } from './device-constants.ts';
import {
  CANCEL_REFUSED_REASON,
  DEVICE_FAULTS,
  OPEN_AUTH_REASONS,
  OPEN_DEVICE_STATES,
  ORIGIN_ID_RULE,
  PRINT_CONTENT_MAX,
  PRINT_COPIES_MAX,
  PRINT_EXPIRE_MAX_S,
  PRINT_EXPIRE_MIN_S,
  PRINT_JOB_STATES,
  RATE_LIMITED_REASON,
  WEBHOOK_EVENT,
} from './integration-constants.ts';
import { MARKUP_ERROR_REASONS } from './print-markup.ts';

/**
 * The open API (DESIGN §6, docs/open-api.md): what a customer's own software calls to print on the customer's
 * printers. Paths are under `/open/v1` (not `/apiAdmin`); every answer is the `{ code, msg, data }` envelope,
 * `code` equal to the HTTP status. Every call but the document is signed with an app key (headers
 * `X-CPC-App-Id`, `X-CPC-Timestamp`, `X-CPC-Nonce`, `X-CPC-Signature`, and optionally `X-CPC-Content-Sha256`;
 * see `stringToSign` below); a refused signature answers 401 with `data.reason` (OPEN_AUTH_REASONS), too many
 * calls 429 with `Retry-After` and `data.reason: "rate_limited"` (OPEN_ERROR_RESPONSES below). A key reaches
 * only the devices of its own account: another account's serial number answers 404, exactly like one that does
 * not exist.
 *
 * | call | request | data |
 * |---|---|---|
 * | POST /open/v1/print | openPrintBody | OpenPrintSubmitted — the FIRST job of that `originId` when the key used it before (200, `duplicate: true`) |
 * | GET /open/v1/print/{id} | openJobIdParams | OpenPrintJob (only jobs this key submitted) |
 * | GET /open/v1/print | openPrintListQuery | { list: OpenPrintJob[], total } (this key's jobs, newest first) |
 * | POST /open/v1/print/{id}/cancel | openJobIdParams (no body) | OpenPrintJob (state `canceled`); 400 `not_cancelable` once the job was ever sent to the printer |
 * | POST /open/v1/devices/{sn}/clear | openDeviceParams (no body) | OpenClearResult — the device's queued jobs of this account canceled |
 * | GET /open/v1/devices/{sn}/status | openDeviceParams | OpenDeviceStatus |
 * | GET /open/v1/devices | openDevicesQuery | { list: OpenDevice[], total } |
 * | GET /open/v1/docs/json | – (not signed) | the OpenAPI document of these calls |
 *
 * Webhooks: every state a job enters is POSTed to the key's callback URL as `WebhookPayload`, signed with
 * `X-CPC-Signature: hex(HMAC-SHA256(app secret, raw body))`.
 */

export * from './integration-constants.ts';

export const printJobState = z.enum(PRINT_JOB_STATES);
export const deviceFault = z.enum(DEVICE_FAULTS);
export const openDeviceState = z.enum(OPEN_DEVICE_STATES);
export const openAuthReason = z.enum(OPEN_AUTH_REASONS);

// ---------------------------------------------------------------------------------------------------------------
// The signature. Pure string work (no crypto here, so a browser or any runtime can build the string); the
// HMAC is hex(HMAC-SHA256(key = app secret, message = stringToSign(...))).

/** RFC 3986 encoding: everything but `A-Z a-z 0-9 - _ . ~` percent-encoded with upper-case hex. */
export const rfc3986 = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The canonical query string: each `name=value` pair of the raw query decoded (`+` is a space), re-encoded
 * with rfc3986, sorted by name then value (byte order of the encoded text), joined with `&`. A name without
 * `=` has the empty value; an empty query gives the empty string.
 */
export function canonicalQuery(rawQuery: string): string {
  const q = rawQuery.startsWith('?') ? rawQuery.slice(1) : rawQuery;
  if (!q) return '';
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  const pairs: Array<[string, string]> = [];
  for (const part of q.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    // an empty name (`?=x`) is a pair like any other, as docs/open-api.md signs it
    const name = rfc3986(decode(eq < 0 ? part : part.slice(0, eq)));
    pairs.push([name, rfc3986(decode(eq < 0 ? '' : part.slice(eq + 1)))]);
  }
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** sha256 of the empty body, the value of `bodySha256` for a call without a body. */
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface SignatureParts {
  /** Upper case: GET, POST. */
  method: string;
  /** The path exactly as sent in the request line, without the query: `/open/v1/print/…`. */
  path: string;
  /** The raw query string (with or without its `?`), canonicalized here. */
  query: string;
  /** Unix time in seconds, as sent in X-CPC-Timestamp. */
  timestamp: string;
  nonce: string;
  /** Lower-case hex sha256 of the raw body bytes (EMPTY_BODY_SHA256 without a body). */
  bodySha256: string;
}

/** method \n path \n canonical query \n timestamp \n nonce \n sha256hex(body) */
export const stringToSign = (p: SignatureParts): string =>
  [p.method.toUpperCase(), p.path, canonicalQuery(p.query), p.timestamp, p.nonce, p.bodySha256].join('\n');

/** `data` of a refused signature (401): the reason, and for missing headers their names. */
export const openAuthError = z.object({ reason: openAuthReason, missing: z.array(z.string()).optional() });
export type OpenAuthError = z.infer<typeof openAuthError>;

// ---------------------------------------------------------------------------------------------------------------
// Error answers (the open API's OpenAPI document lists them on every call)

const errorEnvelope = <T extends z.ZodType>(code: number, data: T) =>
  z.object({ code: z.literal(code), msg: z.string(), data });

/** `data` of a 400: the field(s) at fault; refused markup adds `markup`; a refused cancel adds `reason`, `state`, `attempts`. */
export const openBadRequestData = z.object({
  fields: z
    .array(
      z.object({
        field: z.string(),
        message: z.string(),
        key: z.string().optional(),
        params: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .optional(),
  markup: z
    .object({
      reason: z.enum(MARKUP_ERROR_REASONS),
      tag: z.string().nullable(),
      position: z.number().int(),
      line: z.number().int(),
      column: z.number().int(),
      message: z.string(),
      key: z.string().optional(),
      params: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  reason: z.literal(CANCEL_REFUSED_REASON).optional(),
  state: printJobState.optional(),
  attempts: z.number().int().optional(),
});
/** `data` of a 429: the key's limit per second and the seconds until its window frees (also in `Retry-After`). */
export const openRateLimitedData = z.object({
  reason: z.literal(RATE_LIMITED_REASON),
  limit: z.number().int(),
  retryAfterS: z.number().int(),
});

/** The error answers of every open call, by HTTP status (= `code`). */
export const OPEN_ERROR_RESPONSES = {
  400: {
    description:
      'Bad input: `data.fields` names the field; refused markup adds `data.markup`; a refused cancel adds `data.reason: "not_cancelable"` and `data.state`',
    schema: errorEnvelope(400, openBadRequestData.nullable()),
  },
  401: {
    description: `The signature was refused: \`data.reason\` is one of ${OPEN_AUTH_REASONS.join(', ')}`,
    schema: errorEnvelope(401, openAuthError),
  },
  404: {
    description:
      "No such job of this key, no such device in this account (another account's counts as none), or no such call",
    schema: errorEnvelope(404, z.null()),
  },
  429: {
    description: "More calls than the key's limit in this window: wait `Retry-After` seconds",
    schema: errorEnvelope(429, openRateLimitedData),
  },
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Print jobs

const snField = z.string().trim().regex(SN_RULE, MSG.sn);
const isoField = z.iso.datetime({ offset: true, message: 'rule.isoDateTime' });

export const openPrintBody = z
  .object({
    deviceSn: snField,
    /** The receipt in the markup of `print-markup.ts`; refused with 400 naming the tag and position when invalid. */
    content: z.string().min(1, 'rule.contentRequired').max(PRINT_CONTENT_MAX, 'rule.maxChars'),
    copies: z.number().int().min(1).max(PRINT_COPIES_MAX).default(1),
    /** The caller's idempotency key: the same originId on the same key always answers the first job. */
    originId: z.string().regex(ORIGIN_ID_RULE, 'rule.originId'),
    /** Seconds the job waits for an offline printer (default a day); then it is `expired`. */
    expireInSec: z.number().int().min(PRINT_EXPIRE_MIN_S).max(PRINT_EXPIRE_MAX_S).optional(),
  })
  .strict();
export type OpenPrintBody = z.input<typeof openPrintBody>;

export const openPrintJob = z.object({
  id: z.string(),
  originId: z.string(),
  deviceSn: z.string(),
  state: printJobState,
  /** Why it failed, expired or was canceled (the printer's own reason when it refused: "paper out"). */
  error: z.string(),
  copies: z.number().int(),
  /** Deliveries to the printer so far. */
  attempts: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  sentAt: z.string().nullable(),
  /** The printer acknowledged it. */
  deliveredAt: z.string().nullable(),
  /** The printer started printing. */
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  expireAt: z.string(),
});
export type OpenPrintJob = z.infer<typeof openPrintJob>;

export const openPrintSubmitted = openPrintJob.extend({
  /** true when this originId was used before: the job is the first one, nothing new was made. */
  duplicate: z.boolean(),
});
export type OpenPrintSubmitted = z.infer<typeof openPrintSubmitted>;

export const openJobIdParams = z.object({ id: z.uuid('rule.jobId') }).strict();

export const openPrintListQuery = z
  .object({
    pageNo: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
    deviceSn: snField.optional(),
    state: printJobState.optional(),
    originId: z.string().regex(ORIGIN_ID_RULE, 'rule.originId').optional(),
    /** Created at or after / before these instants. */
    from: isoField.optional(),
    to: isoField.optional(),
  })
  .strict();
export type OpenPrintListQuery = z.input<typeof openPrintListQuery>;

// ---------------------------------------------------------------------------------------------------------------
// Devices

export const openDeviceParams = z.object({ sn: snField }).strict();

export const openDevice = z.object({
  sn: z.string(),
  name: z.string(),
  model: z.string(),
  kind: z.enum(['printer', 'android-terminal']),
  paperWidthMm: z.number().int(),
  status: z.enum(['online', 'offline']),
  /** offline; online and ready (`ok`); online with a fault (`fault`, see `fault`). */
  state: openDeviceState,
  fault: deviceFault.nullable(),
  lastSeenAt: z.string().nullable(),
});
export type OpenDevice = z.infer<typeof openDevice>;

export const openDeviceStatus = openDevice.extend({
  paper: z.enum(PAPER_STATES),
  /** Jobs of this account not finished on this device (queued, sent, delivered, printing, timeout). */
  pendingJobs: z.number().int(),
});
export type OpenDeviceStatus = z.infer<typeof openDeviceStatus>;

export const openDevicesQuery = z
  .object({
    pageNo: z.coerce.number().int().min(1).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
    status: z.enum(['online', 'offline']).optional(),
  })
  .strict();
export type OpenDevicesQuery = z.input<typeof openDevicesQuery>;

export const openClearResult = z.object({ canceled: z.number().int(), jobIds: z.array(z.string()) });
export type OpenClearResult = z.infer<typeof openClearResult>;

// ---------------------------------------------------------------------------------------------------------------
// Webhooks

/** The body POSTed to a callback URL. The same delivery (`id`) may arrive more than once: deduplicate by it. */
export const webhookPayload = z.object({
  /** The delivery's id (also in `X-CPC-Delivery`). */
  id: z.string(),
  event: z.literal(WEBHOOK_EVENT),
  appId: z.string(),
  /** When the job entered this state (server clock, ISO 8601). */
  occurredAt: z.string(),
  job: z.object({
    id: z.string(),
    originId: z.string(),
    deviceSn: z.string(),
    state: printJobState,
    error: z.string(),
    copies: z.number().int(),
  }),
});
export type WebhookPayload = z.infer<typeof webhookPayload>;
