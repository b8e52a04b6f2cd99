import path from 'node:path';
import { z } from 'zod';
import { parseS3Url } from './lib/storage/url.ts';
import { PAYLOAD_SCHEMES } from '@cpc/contracts';
import { WEBHOOK_BACKOFF_DEFAULT_S, isIpOrCidr } from '@cpc/contracts/integration-constants';

/** A URL whose user name and password decode (the broker hook compares the decoded ones). */
function decodableCredentials(url: string): boolean {
  try {
    const u = new URL(url);
    decodeURIComponent(u.username);
    decodeURIComponent(u.password);
    return true;
  } catch {
    return false;
  }
}

const proxyList = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .refine((a) => a.every(isIpOrCidr), 'must be IP addresses or CIDR blocks, comma-separated');

/** A rate limit: at most `max` requests per client address in `windowS` seconds, written `max/windowS`. */
export interface RateLimit {
  max: number;
  windowS: number;
}
const rateLimit = (byDefault: string) =>
  z
    .string()
    .regex(/^\s*\d{1,9}\s*\/\s*\d{1,7}\s*$/, 'must be requests/seconds, e.g. 30/60')
    .default(byDefault)
    .transform((s): RateLimit => {
      const [max, windowS] = s.split('/').map((x) => Number(x.trim()));
      return { max, windowS };
    })
    .refine((r) => r.max >= 1 && r.windowS >= 1, 'must be at least 1 request in at least 1 second');

/** Configuration is read and validated once, at start; every bad value is named. */
const schema = z.object({
  NODE_ENV: z.string().default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  DATA_DIR: z.string().default('./data'),
  /**
   * Where objects (uploads, packages, media) live (issue 17): unset or `file:///path` a local folder (default
   * DATA_DIR/objects), `s3://[key:secret@]bucket[/prefix]?endpoint=…&region=…&forcePathStyle=true&publicEndpoint=…`
   * an S3 bucket every node shares (credentials also from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY). Never logged.
   */
  STORAGE_URL: z
    .string()
    .trim()
    .max(2000)
    .optional()
    .superRefine((v, ctx) => {
      if (!v || v.startsWith('file:')) return;
      try {
        parseS3Url(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message.replace(/^STORAGE_URL: /, '') });
      }
    }),
  DATABASE_URL: z.string().url().optional(),
  ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  SMS_PROVIDER: z.enum(['log']).default('log'),
  /**
   * The message centre's e-mail (issue 14): each new message is also mailed to its user when they have an address.
   * SMTP_URL set (`smtp://user:pass@host:587`, `smtps://user:pass@host:465`): sent through that server (nodemailer);
   * unset: written to DATA_DIR/outbox/mail.jsonl, like the SMS outbox. The password never reaches the logs.
   */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^/]+/, 'must be an smtp:// or smtps:// URL')
    .refine(decodableCredentials, 'the user name and password must be URL-encoded')
    .optional(),
  /** The From of those mails: an address, or a name and address (`Cloud Print <no-reply@example.com>`). */
  MAIL_FROM: z.string().min(3).max(200).default('Cloud Print Console <no-reply@localhost>'),
  /** How often a node mails the messages not yet mailed (once across nodes: an advisory lock). */
  MAIL_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(10_000),
  CAPTCHA_PROVIDER: z.enum(['svg', 'off']).default('svg'),
  /** Seconds a graphic captcha can be answered; the console draws a new one shortly before (tests shorten it). */
  CAPTCHA_TTL_S: z.coerce.number().int().min(2).max(3600).default(300),
  PAYLOAD_CRYPTO: z.enum(PAYLOAD_SCHEMES).default('off'),
  ACCESS_TOKEN_TTL: z.coerce.number().int().min(5).max(86400).default(900),
  REFRESH_TOKEN_TTL: z.coerce
    .number()
    .int()
    .min(60)
    .default(14 * 86400),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Login throttling: failures allowed per account and per client address in the window. */
  LOGIN_MAX_FAILS_ACCOUNT: z.coerce.number().int().min(1).default(5),
  LOGIN_MAX_FAILS_IP: z.coerce.number().int().min(1).default(20),
  LOGIN_FAIL_WINDOW: z.coerce.number().int().min(1).default(900),
  /**
   * Proxies (addresses or CIDR blocks, comma-separated) whose X-Forwarded-For (and -Proto, -Host) is believed,
   * for the whole server: the client address is the right-most one in the header that is not a trusted proxy.
   * Default none: the TCP peer is the client, whatever headers it sends.
   */
  TRUSTED_PROXIES: proxyList,
  /** Per client address limits, `requests/seconds`: captchas, SMS codes, registrations, calls to no route (404). */
  RATE_LIMIT_CAPTCHA: rateLimit('30/60'),
  RATE_LIMIT_SMS: rateLimit('10/3600'),
  RATE_LIMIT_REGISTER: rateLimit('10/3600'),
  RATE_LIMIT_NOT_FOUND: rateLimit('60/60'),
  WEB_DIST: z.string().optional(),
  /** The embedded device broker (Aedes): its MQTT port (0 picks a free one) and address (default HOST). */
  MQTT_PORT: z.coerce.number().int().min(0).max(65535).default(1883),
  MQTT_HOST: z.string().optional(),
  /** An external broker (Mosquitto, EMQX) instead of the embedded one, credentials in the URL: mqtt://user:pass@host:1883 */
  MQTT_URL: z
    .string()
    .regex(/^mqtts?:\/\/[^/]+/, 'must be an mqtt:// or mqtts:// URL')
    .refine(
      decodableCredentials,
      'the user name and password must be URL-encoded (a % must be followed by two hex digits)',
    )
    .optional(),
  /** The shared-subscription group of all server nodes on the external broker: each device message is handled once. */
  MQTT_SHARED_GROUP: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, - or _')
    .default('cpc'),
  /** Seconds a device's timed credential may be off the server clock. */
  MQTT_AUTH_WINDOW_S: z.coerce.number().int().min(10).max(86400).default(600),
  /**
   * The shared secret of the external broker's HTTP hooks (POST /mqtt/v1/auth, /mqtt/v1/acl: EMQX, mosquitto-go-auth):
   * they check device credentials and topics for the broker. Unset: the hooks do not exist.
   */
  MQTT_AUTH_HOOK_SECRET: z.string().min(24, 'must be at least 24 characters').max(256).optional(),
  /** `on`: the server provisions every device on the external broker's dynamic-security plugin (Mosquitto 2). */
  MQTT_DYNSEC: z.enum(['on', 'off']).default('off'),
  /** A device's heartbeat interval when its hello does not say; it is offline after 2.5 intervals without a message. */
  HEARTBEAT_S: z.coerce.number().int().min(1).max(3600).default(30),
  /**
   * How often last-seen times are written (one UPDATE for every device heard since; keep it well under 1.5
   * heartbeats), and, on a timer of its own, the SIM usage roll-up of the traffic reports heard since (one statement).
   */
  LAST_SEEN_FLUSH_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  /** How often the presence and task sweeps run. */
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  /** At most one telemetry sample per device in this many seconds, unless something changed. */
  TELEMETRY_SAMPLE_S: z.coerce.number().int().min(1).max(86400).default(60),
  /** A sent task without an ack for this long times out; it is sent again after a back-off doubling from TASK_RETRY_BACKOFF_S. */
  TASK_ACK_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(30),
  /** Cloud OCR (AI library): tesseract.js workers (worker threads) of this node, started on the first job. */
  OCR_WORKERS: z.coerce.number().int().min(1).max(16).default(1),
  /** Text-recognition jobs a tenant may have queued or running at once (more: 429). */
  OCR_TENANT_LIMIT: z.coerce.number().int().min(1).max(1000).default(5),
  /** How often a node looks for queued OCR jobs, and for stale ones and results past their 7 days. */
  OCR_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
  /** A running OCR job whose node has not finished it in this time goes back to the queue. */
  OCR_LEASE_S: z.coerce.number().int().min(5).max(3600).default(300),
  TASK_RETRY_BACKOFF_S: z.coerce.number().int().min(0).max(3600).default(10),
  /**
   * A taken task (delivered, running) of an online device with no progress or result for this long times out and
   * goes again (a finished one is reported again), within the same bounded attempts.
   */
  TASK_RESULT_TIMEOUT_S: z.coerce.number().int().min(1).max(86400).default(300),
  /** Push tasks (issue 16): how often scheduled pushes are looked for, and the shortest gap between a push's live events. */
  PUSH_TICK_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  PUSH_EVENT_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /** The open API (docs/open-api.md): calls per app key per second, and how far a call's timestamp may be off. */
  OPEN_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(50),
  OPEN_CLOCK_WINDOW_S: z.coerce.number().int().min(10).max(86400).default(600),
  /** Deprecated: the open API's own list of proxies, now merged into TRUSTED_PROXIES (the one list of the server). */
  OPEN_TRUSTED_PROXIES: proxyList,
  /** The request log is written in batches this often, and kept this many days. */
  OPEN_LOG_FLUSH_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  OPEN_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** System-log entries older than this many days are pruned in the background (hourly, in batches). */
  SYSTEM_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(180),
  /** A sent print job without an ack for this long times out; it goes again after a doubling back-off, at most PRINT_MAX_ATTEMPTS times. */
  PRINT_ACK_TIMEOUT_S: z.coerce.number().int().min(1).max(3600).default(30),
  PRINT_RETRY_BACKOFF_S: z.coerce.number().int().min(0).max(3600).default(5),
  PRINT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(5),
  /** A job an online printer took but says nothing more of for this long is sent again, for its result (never printed twice). */
  PRINT_RESULT_TIMEOUT_S: z.coerce.number().int().min(1).max(86400).default(60),
  /** Images of print jobs (<IMG>): largest download and how long it may take. */
  PRINT_IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(2 * 1024 * 1024),
  PRINT_IMAGE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** Seconds before each webhook retry (comma-separated): 7 tries over about an hour by default. */
  WEBHOOK_BACKOFF_S: z
    .string()
    .default(WEBHOOK_BACKOFF_DEFAULT_S.join(','))
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .map(Number),
    )
    .refine(
      (a) => a.length >= 1 && a.length <= 20 && a.every((n) => Number.isInteger(n) && n >= 0 && n <= 86400),
      'must be 1-20 whole numbers of seconds (0-86400), comma-separated',
    ),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /**
   * Whether webhook callbacks and <IMG> URLs may reach loopback, private and link-local addresses. Default:
   * `deny` with NODE_ENV=production (a customer must not reach the server's own network), else `allow`.
   */
  OUTBOUND_PRIVATE: z.enum(['allow', 'deny']).optional(),
  /**
   * Who reads the console API's OpenAPI document and its Swagger UI (/apiAdmin/docs): `public` (anyone, the
   * default outside production), `signed-in` (the default with NODE_ENV=production: a bearer token, or the
   * browser's session cookie, so a signed-in user opens /apiAdmin/docs in the console's browser) or `off` (404).
   * The open API's document (/open/v1/docs/json), the contract integrators build against, stays public.
   */
  API_DOCS: z.enum(['public', 'signed-in', 'off']).optional(),
  /** How often an idle background worker (pg-boss) looks for due jobs; at least 500 ms. */
  JOB_QUEUE_POLL_MS: z.coerce.number().int().min(500).max(60_000).default(1000),
  /**
   * Social login (OpenID Connect / OAuth 2.0): the ids of the identity providers, comma separated ("corp,dingtalk");
   * each reads OIDC_<ID>_ISSUER, OIDC_<ID>_CLIENT_ID, OIDC_<ID>_CLIENT_SECRET, OIDC_<ID>_NAME, OIDC_<ID>_SCOPE.
   */
  OIDC_PROVIDERS: z.string().default(''),
  /**
   * The console's public origin ("https://print.example.com"): every absolute URL the server makes (cashier and
   * payment-notify URLs, the social-login redirect <PUBLIC_URL>/callback, mail links, links for devices) is under
   * it, never under a request's Host. Required with NODE_ENV=production; else default the address the server
   * listens on (http://127.0.0.1:<PORT> when HOST is 0.0.0.0).
   */
  PUBLIC_URL: z
    .string()
    .url()
    .refine((s) => /^https?:\/\/[^/?#]+(\/[^?#]*)?$/i.test(s), 'must be an http(s) URL without a query or fragment')
    .optional(),
  /**
   * Payment of orders (issue 13): `sandbox` (the default outside production) is the built-in stand-in gateway
   * and is refused with NODE_ENV=production; `alipay` takes real money through alipay-sdk and needs the ALIPAY_*
   * settings; `off` (the default in production) sells nothing: the store shows its packages, buying answers 503.
   */
  PAYMENT_PROVIDER: z.enum(['sandbox', 'alipay', 'off']).optional(),
  /** Where the gateway posts its notifications; default <PUBLIC_URL>/pay/notify/<provider>. */
  PAYMENT_NOTIFY_URL: z.string().url().optional(),
  ALIPAY_APP_ID: z.string().optional(),
  /** The application's RSA private key: PEM (newlines may be written \\n) or its base64 body. */
  ALIPAY_PRIVATE_KEY: z
    .string()
    .transform((s) => s.replace(/\\n/g, '\n'))
    .optional(),
  /** Alipay's RSA public key: PEM (newlines may be written \\n) or its base64 body. */
  ALIPAY_PUBLIC_KEY: z
    .string()
    .transform((s) => s.replace(/\\n/g, '\n'))
    .optional(),
  ALIPAY_GATEWAY: z.string().url().default('https://openapi.alipay.com/gateway.do'),
  /**
   * The console's base map (issue 16): a Leaflet tile URL template ({z}/{x}/{y}, {s} for a subdomain) of the
   * operator's tile provider; unset, the console draws its offline base layer (province outlines).
   */
  MAP_TILE_URL: z
    .string()
    .trim()
    .max(500)
    .refine((s) => /^https?:\/\/[^\s]+$/i.test(s), 'must be an http(s) URL template')
    .optional(),
  /** The tiles' coordinate system; default gcj02 for AMap/Autonavi and Tencent hosts, wgs84 otherwise. */
  MAP_TILE_CRS: z.enum(['wgs84', 'gcj02']).optional(),
  /** The tiles' attribution shown on the map (plain text). */
  MAP_TILE_ATTRIBUTION: z.string().max(300).optional(),
  /** The values of {s} in MAP_TILE_URL, comma separated (default a,b,c when the URL has {s}). */
  MAP_TILE_SUBDOMAINS: z.string().max(100).optional(),
  /** How often pending fence side changes whose dwell time passed are confirmed without a new report (ms). */
  FENCE_DWELL_CHECK_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  /** Seconds between sweeps that close unpaid orders past their 15 minutes. */
  ORDER_SWEEP_S: z.coerce.number().int().min(1).max(3600).default(30),
  /** Seconds a started social login (and an offer to link its identity) stays usable. */
  SOCIAL_FLOW_TTL_S: z.coerce.number().int().min(5).max(3600).default(600),
});

/** One identity provider of social login (OIDC_<ID>_*). */
export interface OidcProviderConfig {
  id: string;
  /** The name on the login page's button. */
  name: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  scope: string;
}

const oidcProvider = z.object({
  ISSUER: z.string().url(),
  CLIENT_ID: z.string().min(1),
  CLIENT_SECRET: z.string().optional(),
  NAME: z.string().max(40).optional(),
  SCOPE: z.string().default('openid profile email'),
});

/** The identity providers OIDC_PROVIDERS names, each from its OIDC_<ID>_* variables; a missing or invalid one is a configuration error. */
function oidcProviders(list: string, env: Record<string, string | undefined>): OidcProviderConfig[] {
  const ids = [...new Set(list.split(',').map((s) => s.trim().toLowerCase()))].filter(Boolean);
  return ids.map((id) => {
    if (!/^[a-z0-9][a-z0-9_-]{0,29}$/.test(id)) {
      throw new Error(
        `Invalid configuration:\n  OIDC_PROVIDERS: "${id}" is not a provider id (letters, digits, - and _)`,
      );
    }
    const prefix = `OIDC_${id.toUpperCase().replace(/-/g, '_')}_`;
    const parsed = oidcProvider.safeParse(
      Object.fromEntries(
        Object.entries(env)
          .filter(([k, v]) => k.startsWith(prefix) && v !== '')
          .map(([k, v]) => [k.slice(prefix.length), v]),
      ),
    );
    if (!parsed.success) {
      const lines = parsed.error.issues.map((i) => `  ${prefix}${i.path.join('.')}: ${i.message}`);
      throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
    }
    const p = parsed.data;
    return {
      id,
      name: p.NAME ?? id,
      issuer: p.ISSUER,
      clientId: p.CLIENT_ID,
      clientSecret: p.CLIENT_SECRET,
      scope: p.SCOPE.includes('openid') ? p.SCOPE : `openid ${p.SCOPE}`,
    };
  });
}

export type Config = Omit<z.infer<typeof schema>, 'OUTBOUND_PRIVATE' | 'API_DOCS'> & {
  dataDir: string;
  /** Social login's identity providers (OIDC_PROVIDERS). */
  oidc: OidcProviderConfig[];
  OUTBOUND_PRIVATE: 'allow' | 'deny';
  API_DOCS: 'public' | 'signed-in' | 'off';
};

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (c.MQTT_DYNSEC === 'on' && !c.MQTT_URL) {
    throw new Error(
      'Invalid configuration:\n  MQTT_DYNSEC: "on" provisions devices on an external broker and needs MQTT_URL',
    );
  }
  if (c.CAPTCHA_PROVIDER === 'off' && c.NODE_ENV === 'production') {
    throw new Error(
      'Invalid configuration:\n  CAPTCHA_PROVIDER: "off" is for automated tests and is refused when NODE_ENV=production',
    );
  }
  if (c.PAYMENT_PROVIDER === 'sandbox' && c.NODE_ENV === 'production') {
    throw new Error(
      'Invalid configuration:\n  PAYMENT_PROVIDER: "sandbox" takes no real money and is refused when NODE_ENV=production (use alipay)',
    );
  }
  if (c.PAYMENT_PROVIDER === 'alipay') {
    const missing = (['ALIPAY_APP_ID', 'ALIPAY_PRIVATE_KEY', 'ALIPAY_PUBLIC_KEY'] as const).filter((k) => !c[k]);
    if (missing.length) {
      throw new Error(
        `Invalid configuration:\n${missing.map((k) => `  ${k}: required when PAYMENT_PROVIDER=alipay`).join('\n')}`,
      );
    }
  }
  if (c.NODE_ENV === 'production' && !c.PUBLIC_URL) {
    throw new Error(
      'Invalid configuration:\n  PUBLIC_URL: required when NODE_ENV=production: the origin users reach the console at ' +
        '(e.g. https://print.example.com); payment, social-login and mail links are made from it',
    );
  }
  return {
    ...c,
    PAYMENT_PROVIDER: c.PAYMENT_PROVIDER ?? (c.NODE_ENV === 'production' ? 'off' : 'sandbox'),
    dataDir: path.resolve(c.DATA_DIR),
    oidc: oidcProviders(c.OIDC_PROVIDERS, env),
    OUTBOUND_PRIVATE: c.OUTBOUND_PRIVATE ?? (c.NODE_ENV === 'production' ? 'deny' : 'allow'),
    API_DOCS: c.API_DOCS ?? (c.NODE_ENV === 'production' ? 'signed-in' : 'public'),
    // the deprecated alias is merged into the one list: the open API now uses the server's client address
    TRUSTED_PROXIES: [...new Set([...c.TRUSTED_PROXIES, ...c.OPEN_TRUSTED_PROXIES])],
  };
}
