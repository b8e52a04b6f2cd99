import { z } from 'zod';
import { isTimeZone, DEFAULT_TIME_ZONE } from './device-constants.ts';
import { hasNoControl, NO_CONTROL_MSG } from './validators.ts';
import {
  APP_KEY_NAME_MAX,
  APP_KEY_RATE_LIMIT_MAX,
  APP_KEY_RATE_LIMIT_MIN,
  APP_KEY_STATES,
  IP_ALLOW_MAX,
  ORIGIN_ID_RULE,
  PRINT_CONTENT_MAX,
  PRINT_COPIES_MAX,
  USAGE_MAX_DAYS,
  WEBHOOK_DELIVERY_STATES,
  isCallbackUrl,
  isIpOrCidr,
} from './integration-constants.ts';
import { printJobState } from './open-api.ts';

/**
 * System integration in the console (DESIGN §4, §6): a customer's app keys for the open API (`open-api.ts`),
 * their request log and usage, the print jobs of the account with a rendered preview, a test print, and the
 * webhook delivery log with a manual resend. Paths are under /apiAdmin; every answer is the `{ code, msg, data }`
 * envelope and `data` is what the schema named here describes. Everything is scoped to the caller's account:
 * a key, job, device or delivery of another account answers 404.
 *
 * | call | permission | request | data |
 * |---|---|---|---|
 * | GET /integration/key/list | integration:manage | appKeyListQuery | { list: AppKeyView[], total } |
 * | POST /integration/key/create | integration:manage | appKeyCreateBody | AppKeyWithSecret — the secret is shown this once |
 * | POST /integration/key/update | integration:manage | appKeyUpdateBody | AppKeyView |
 * | POST /integration/key/state | integration:manage | appKeyStateBody | AppKeyView (a disabled key's calls answer 401 `app_disabled`) |
 * | POST /integration/key/rotate | integration:manage | { id } | AppKeyWithSecret — a new secret; the old one stops working at once |
 * | POST /integration/key/delete | integration:manage | { id } | null (its jobs stay, without a key; its logs go) |
 * | GET /integration/key/:id/requests | integration:manage | requestLogQuery | { list: RequestLogItem[], total } (last 30 days, newest first) |
 * | GET /integration/key/:id/usage | integration:manage | usageQuery | UsageView (calls, errors, jobs per day) |
 * | GET /integration/job/list | print:view | printJobListQuery | { list: PrintJobItem[], total } (newest first) |
 * | GET /integration/job/:id | print:view | – | PrintJobDetail (content, rendered preview lines) |
 * | POST /integration/job/:id/cancel | integration:manage | – | PrintJobItem; 400 (`data.reason: "not_cancelable"`) once the job was ever sent to the printer |
 * | POST /integration/testPrint | integration:manage | testPrintBody | PrintJobItem — sent through the open API itself, signed with the key |
 * | POST /integration/markup/preview | print:view | markupPreviewBody | MarkupPreview; 400 naming the tag and position |
 * | GET /integration/webhook/list | integration:manage | webhookListQuery | { list: WebhookDeliveryItem[], total } (newest first) |
 * | GET /integration/webhook/:id | integration:manage | – | WebhookDeliveryDetail (the exact body, every attempt) |
 * | POST /integration/webhook/:id/resend | integration:manage | – | WebhookDeliveryDetail after one more attempt made now |
 *
 * A markup error (400) carries `data.fields: [{ field: 'content', message }]` and `data.markup: MarkupErrorView`.
 */

export * from './integration-constants.ts';

const id = z.number().int().positive();
const queryId = z.coerce.number().int().positive();
const pageFields = {
  pageNo: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
};
const isoField = z.iso.datetime({ offset: true, message: 'rule.isoDateTime' });

export const appKeyState = z.enum(APP_KEY_STATES);
export const webhookDeliveryState = z.enum(WEBHOOK_DELIVERY_STATES);

// ---------------------------------------------------------------------------------------------------------------
// App keys

// control characters (newlines, NUL…) never belong in a name shown in a table, and PostgreSQL refuses NUL
const nameField = z
  .string()
  .trim()
  .min(1, 'rule.nameRequired')
  .max(APP_KEY_NAME_MAX, 'rule.maxChars')
  .refine(hasNoControl, NO_CONTROL_MSG);
/** '' means no callbacks. */
const callbackField = z
  .string()
  .trim()
  .refine((v) => v === '' || isCallbackUrl(v), 'rule.callbackUrl');
const ipListField = z
  .array(z.string().trim().refine(isIpOrCidr, 'rule.ipList'))
  .max(IP_ALLOW_MAX, 'rule.maxEntries')
  .refine((a) => new Set(a).size === a.length, 'rule.entryRepeat');

/** Calls per second of the key; null follows the server's default (OPEN_RATE_LIMIT). */
const rateLimitField = z
  .number()
  .int('rule.wholeNumber')
  .min(APP_KEY_RATE_LIMIT_MIN, 'rule.rateLimit')
  .max(APP_KEY_RATE_LIMIT_MAX, 'rule.rateLimit')
  .nullable();

export const appKeyCreateBody = z
  .object({
    name: nameField,
    callbackUrl: callbackField.default(''),
    /** Empty: calls from any address. Otherwise only from these addresses and blocks. */
    ipAllowList: ipListField.default([]),
    rateLimit: rateLimitField.default(null),
  })
  .strict();
export type AppKeyCreateBody = z.input<typeof appKeyCreateBody>;

export const appKeyUpdateBody = z
  .object({
    id,
    name: nameField.optional(),
    callbackUrl: callbackField.optional(),
    ipAllowList: ipListField.optional(),
    rateLimit: rateLimitField.optional(),
  })
  .strict()
  .refine(
    (b) =>
      b.name !== undefined || b.callbackUrl !== undefined || b.ipAllowList !== undefined || b.rateLimit !== undefined,
    {
      path: ['name'],
      message: 'rule.keyChangeEmpty',
    },
  );
export type AppKeyUpdateBody = z.input<typeof appKeyUpdateBody>;

export const appKeyStateBody = z.object({ id, state: appKeyState }).strict();
export type AppKeyStateBody = z.input<typeof appKeyStateBody>;
export const appKeyIdBody = z.object({ id }).strict();
export const appKeyIdParams = z.object({ id: queryId }).strict();

export const appKeyListQuery = z
  .object({ ...pageFields, keyword: z.string().trim().max(50).refine(hasNoControl, NO_CONTROL_MSG).optional() })
  .strict();
export type AppKeyListQuery = z.input<typeof appKeyListQuery>;

export const appKeyView = z.object({
  id: z.number().int(),
  /** Public: sent with every call in X-CPC-App-Id. */
  appId: z.string(),
  name: z.string(),
  state: appKeyState,
  callbackUrl: z.string(),
  ipAllowList: z.array(z.string()),
  /** The key's own limit of calls per second; null follows the server's default. */
  rateLimit: z.number().int().nullable(),
  /** The limit the key's calls are held to: its own, or the server's default. */
  effectiveRateLimit: z.number().int(),
  /** The last 4 characters of the secret, to tell keys apart (`…x7Qa`). */
  secretHint: z.string(),
  /** The callback URL names an internal address or a local name: delivered only where OUTBOUND_PRIVATE=allow. */
  callbackPrivate: z.boolean(),
  createdAt: z.string(),
  secretRotatedAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type AppKeyView = z.infer<typeof appKeyView>;

/** The answer of create and rotate: the only time the secret is shown. */
export const appKeyWithSecret = appKeyView.extend({ secret: z.string() });
export type AppKeyWithSecret = z.infer<typeof appKeyWithSecret>;

// ---------------------------------------------------------------------------------------------------------------
// Request log and usage

export const requestLogQuery = z
  .object({
    ...pageFields,
    from: isoField.optional(),
    to: isoField.optional(),
    /** ok: code 200; error: anything else. */
    result: z.enum(['ok', 'error']).optional(),
  })
  .strict();
export type RequestLogQuery = z.input<typeof requestLogQuery>;

export const requestLogItem = z.object({
  id: z.number().int(),
  at: z.string(),
  method: z.string(),
  path: z.string(),
  /** The route: `POST /open/v1/print`, `GET /open/v1/devices/:sn/status`, … */
  call: z.string(),
  /** The envelope's code (= HTTP status). */
  code: z.number().int(),
  /** `data.reason` of a refused call (bad_signature, rate_limited, …), else null. */
  reason: z.string().nullable(),
  latencyMs: z.number(),
  ip: z.string(),
  /** The job the call made or read, when there is one. */
  jobId: z.string().nullable(),
  /** A test print sent from the console. */
  testPrint: z.boolean(),
});
export type RequestLogItem = z.infer<typeof requestLogItem>;

export const usageQuery = z
  .object({
    days: z.coerce.number().int().min(1).max(USAGE_MAX_DAYS).default(7),
    /** Days are counted in this zone (IANA name). */
    tz: z.string().refine(isTimeZone, 'rule.timeZone').default(DEFAULT_TIME_ZONE),
  })
  .strict();
export type UsageQuery = z.input<typeof usageQuery>;

export const usageDay = z.object({
  day: z.string(),
  calls: z.number().int(),
  errors: z.number().int(),
  jobs: z.number().int(),
});
export const usageView = z.object({
  tz: z.string(),
  /** Oldest first, one entry per day (zeros included), today last. */
  days: z.array(usageDay),
  totals: z.object({ calls: z.number().int(), errors: z.number().int(), jobs: z.number().int() }),
});
export type UsageView = z.infer<typeof usageView>;

// ---------------------------------------------------------------------------------------------------------------
// Print jobs (console)

export const printJobListQuery = z
  .object({
    ...pageFields,
    deviceId: queryId.optional(),
    state: printJobState.optional(),
    keyId: queryId.optional(),
    originId: z.string().regex(ORIGIN_ID_RULE, 'rule.originId').optional(),
    from: isoField.optional(),
    to: isoField.optional(),
  })
  .strict();
export type PrintJobListQuery = z.input<typeof printJobListQuery>;

export const printJobItem = z.object({
  id: z.string(),
  originId: z.string(),
  state: printJobState,
  error: z.string(),
  copies: z.number().int(),
  attempts: z.number().int(),
  deviceId: z.number().int(),
  deviceSn: z.string(),
  deviceName: z.string(),
  /** null once the key was deleted. */
  keyId: z.number().int().nullable(),
  appId: z.string().nullable(),
  keyName: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  expireAt: z.string(),
});
export type PrintJobItem = z.infer<typeof printJobItem>;

export const printJobDetail = printJobItem.extend({
  content: z.string(),
  /** What the printer prints, as text lines (see docs/open-api.md, "Preview"). */
  preview: z.array(z.string()),
  /** Columns of the paper the preview was laid out for. */
  columns: z.number().int(),
  /** What went to the device: ESC/POS for printers, the markup itself for terminals. */
  format: z.enum(['escpos', 'markup']),
});
export type PrintJobDetail = z.infer<typeof printJobDetail>;

export const printJobIdParams = z.object({ id: z.uuid('rule.jobId') }).strict();

export const testPrintBody = z
  .object({
    keyId: id,
    deviceId: id,
    /** Default: a sample receipt naming the key, the device and the time. */
    content: z.string().min(1, 'rule.contentRequired').max(PRINT_CONTENT_MAX).optional(),
    copies: z.number().int().min(1).max(PRINT_COPIES_MAX).optional(),
  })
  .strict();
export type TestPrintBody = z.input<typeof testPrintBody>;

export const markupPreviewBody = z
  .object({
    content: z.string().min(1, 'rule.contentRequired').max(PRINT_CONTENT_MAX),
    /** Lay out for this device's paper; else for `paperWidthMm` (default 58). */
    deviceId: id.optional(),
    paperWidthMm: z.number().int().min(20).max(120).optional(),
  })
  .strict();
export type MarkupPreviewBody = z.input<typeof markupPreviewBody>;

export const markupPreview = z.object({
  lines: z.array(z.string()),
  columns: z.number().int(),
  paperWidthMm: z.number().int(),
});
export type MarkupPreview = z.infer<typeof markupPreview>;

/** `data.markup` of a refused markup (400): the tag (null for text), where, and why. */
export const markupErrorView = z.object({
  reason: z.string(),
  tag: z.string().nullable(),
  position: z.number().int(),
  line: z.number().int(),
  column: z.number().int(),
  message: z.string(),
});
export type MarkupErrorView = z.infer<typeof markupErrorView>;

// ---------------------------------------------------------------------------------------------------------------
// Webhook deliveries

export const webhookListQuery = z
  .object({
    ...pageFields,
    keyId: queryId.optional(),
    jobId: z.uuid('rule.jobId').optional(),
    state: webhookDeliveryState.optional(),
  })
  .strict();
export type WebhookListQuery = z.input<typeof webhookListQuery>;

export const webhookDeliveryItem = z.object({
  id: z.string(),
  keyId: z.number().int(),
  appId: z.string(),
  jobId: z.string(),
  originId: z.string(),
  /** The job state this delivery reports. */
  jobState: printJobState,
  state: webhookDeliveryState,
  attempts: z.number().int(),
  /** HTTP status of the last attempt; null when it got no answer (refused, timed out). */
  lastStatus: z.number().int().nullable(),
  lastError: z.string(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type WebhookDeliveryItem = z.infer<typeof webhookDeliveryItem>;

export const webhookAttempt = z.object({
  attempt: z.number().int(),
  at: z.string(),
  /** Made from the console's resend button. */
  manual: z.boolean(),
  status: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string(),
  /** The first 500 characters of the answer. */
  response: z.string(),
});
export type WebhookAttempt = z.infer<typeof webhookAttempt>;

export const webhookDeliveryDetail = webhookDeliveryItem.extend({
  callbackUrl: z.string(),
  /** The exact body POSTed (its HMAC is the X-CPC-Signature). */
  payload: z.string(),
  attemptLog: z.array(webhookAttempt),
});
export type WebhookDeliveryDetail = z.infer<typeof webhookDeliveryDetail>;

export const webhookIdParams = z.object({ id: z.uuid('rule.deliveryId') }).strict();
