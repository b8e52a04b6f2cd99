import { createHash, createHmac, scryptSync, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { SYSTEM_CUSTOM_PARTS, type SystemCustomPart } from './system-custom.ts';

/**
 * The device protocol of DESIGN §6 (documented in docs/device-protocol.md): MQTT 3.1.1/5, QoS 1, JSON payloads.
 * Shared by the server's gateway and the fleet simulator. Node only (it signs with node:crypto): the console
 * never imports this module.
 */

export const TOPIC_PREFIX = 'cp/v1';
export const UP_KINDS = [
  'hello',
  'heartbeat',
  'status',
  'ack',
  'result',
  'progress',
  'location',
  'traffic',
  'event',
  'offline',
  'inventory',
  'profile',
] as const;
export const DOWN_KINDS = ['command', 'print', 'config'] as const;
export type UpKind = (typeof UP_KINDS)[number];
export type DownKind = (typeof DOWN_KINDS)[number];

export const upTopic = (sn: string, kind: UpKind) => `${TOPIC_PREFIX}/${sn}/up/${kind}`;
export const downTopic = (sn: string, kind: DownKind) => `${TOPIC_PREFIX}/${sn}/down/${kind}`;
/** What a device subscribes to: everything sent to it. */
export const downFilter = (sn: string) => `${TOPIC_PREFIX}/${sn}/down/#`;
/** What the server consumes: every device's up messages. */
export const UP_FILTER = `${TOPIC_PREFIX}/+/up/#`;

/** A serial number is one topic level: no `/`, `+`, `#` or `$` can ever reach a topic through it. */
export const TOPIC_SN_RULE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export interface ParsedTopic {
  sn: string;
  dir: 'up' | 'down';
  kind: string;
}

/** `cp/v1/{sn}/{up|down}/{kind}` → its parts; anything else → null. */
export function parseTopic(topic: string): ParsedTopic | null {
  const parts = topic.split('/');
  if (parts.length !== 5 || `${parts[0]}/${parts[1]}` !== TOPIC_PREFIX) return null;
  const [, , sn, dir, kind] = parts;
  if (!TOPIC_SN_RULE.test(sn) || (dir !== 'up' && dir !== 'down')) return null;
  if (
    dir === 'up' ? !(UP_KINDS as readonly string[]).includes(kind) : !(DOWN_KINDS as readonly string[]).includes(kind)
  )
    return null;
  return { sn, dir, kind };
}

/** What a device may subscribe to under its down topics: everything, or one kind. */
const DOWN_LEAF = /^(#|\+|command|print|config)$/;

/** A device (user name = client id = sn) may publish only its own up messages. */
export function mayPublish(sn: string, topic: string): boolean {
  const t = parseTopic(topic);
  return !!t && t.dir === 'up' && t.sn === sn;
}

/** …and subscribe only to its own down topics (all of them, or one kind): never a wildcard over devices. */
export function maySubscribe(sn: string, filter: string): boolean {
  const prefix = `${TOPIC_PREFIX}/${sn}/down/`;
  return TOPIC_SN_RULE.test(sn) && filter.startsWith(prefix) && DOWN_LEAF.test(filter.slice(prefix.length));
}

/** …and receive only messages sent to it. */
export function mayReceive(sn: string, topic: string): boolean {
  const t = parseTopic(topic);
  return !!t && t.dir === 'down' && t.sn === sn;
}

// ---------------------------------------------------------------------------------------------------------------
// The MQTT credential: client id = user name = sn; password derived from the device secret.

/** Seconds a timed credential stays valid either side of the server's clock. */
export const CREDENTIAL_WINDOW_S = 600;
/**
 * The timestamp of the static credential, for brokers that can only store fixed passwords (a Mosquitto
 * password file): the embedded gateway never accepts it.
 */
export const STATIC_CREDENTIAL_TS = 0;

const hmacHex = (secret: string, message: string) => createHmac('sha256', secret).update(message).digest('hex');

/** `{ts}.{hex(HMAC-SHA256(secret, sn + ":" + ts))}`, ts in Unix seconds. */
export function deviceCredential(secret: string, sn: string, ts: number = Math.floor(Date.now() / 1000)): string {
  return `${ts}.${hmacHex(secret, `${sn}:${ts}`)}`;
}

/** The fixed password provisioned into a broker's password store. */
export const staticDeviceCredential = (secret: string, sn: string) =>
  deviceCredential(secret, sn, STATIC_CREDENTIAL_TS);

/** Checks a timed credential in constant time; a timestamp outside the window fails whatever the MAC. */
export function checkDeviceCredential(
  secret: string,
  sn: string,
  password: string,
  nowS: number = Date.now() / 1000,
  windowS: number = CREDENTIAL_WINDOW_S,
): boolean {
  const m = /^(\d{1,12})\.([0-9a-f]{64})$/.exec(password);
  if (!m) return false;
  const ts = Number(m[1]);
  if (Math.abs(nowS - ts) > windowS) return false;
  const expected = Buffer.from(hmacHex(secret, `${sn}:${ts}`), 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex'));
}

// ---------------------------------------------------------------------------------------------------------------
// Up messages (device → server). Unknown fields are ignored so devices can report more than this version reads.

const percent = z.number().int().min(0).max(100);
const paper = z.enum(['ok', 'out', 'cover-open', 'overheat']);
const lat = z.number().min(-90).max(90);
const lng = z.number().min(-180).max(180);
const taskId = z.uuid();
const short = z.string().max(64);
/** Device time in ms, informational only (the server stamps everything with its own clock). */
const ts = z.number().int().nonnegative().optional();

/** An IANA time zone this runtime knows; an unknown one is left out of the hello (the rest of it still counts). */
function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A modem's byte counter (up to 1 PB). */
const counterBytes = z.number().int().nonnegative().max(1e15);
export const helloMsg = z.object({
  ts,
  /** A random id of this connection, also in the last will: a late will of an older connection is ignored. */
  conn: z.string().min(1).max(64),
  fw: short.default(''),
  model: short.optional(),
  imei: z
    .string()
    .regex(/^\d{15}$/)
    .optional(),
  iccid: z
    .string()
    .regex(/^\d{19,20}$/)
    .optional(),
  /** The device's heartbeat interval; it is offline after 2.5 of them without a message. */
  heartbeatS: z.number().int().min(1).max(3600).optional(),
  paper: paper.optional(),
  battery: percent.optional(),
  signal: percent.optional(),
  lat: lat.optional(),
  lng: lng.optional(),
  usedMb: z.number().nonnegative().max(1e9).optional(),
  /** The modem's byte counters of the current plan period, sent (tx) and received (rx); see `trafficMsg`. */
  txBytes: counterBytes.optional(),
  rxBytes: counterBytes.optional(),
  /** The device's IANA time zone (e.g. "Asia/Shanghai"): maintenance windows are in the device's own time. */
  tz: z.string().max(64).refine(isTimeZone).optional().catch(undefined),
});
export const heartbeatMsg = z.object({ ts });
export const statusMsg = z.object({
  ts,
  paper: paper.optional(),
  battery: percent.optional(),
  signal: percent.optional(),
  charging: z.boolean().optional(),
});
export const locationMsg = z.object({ ts, lat, lng, accuracyM: z.number().nonnegative().optional() });
/**
 * The SIM's data counter for its current plan period, in MB, as the modem counts it; with the byte counters
 * sent and received in the period when the modem has them (the daily up/down series is their growth). A counter
 * smaller than the last one means a new period began.
 */
export const trafficMsg = z.object({
  ts,
  iccid: z
    .string()
    .regex(/^\d{19,20}$/)
    .optional(),
  usedMb: z.number().nonnegative().max(1e9),
  txBytes: counterBytes.optional(),
  rxBytes: counterBytes.optional(),
});
/** What an ack, progress or result is about: a task (`down/command`, the default) or a print job (`down/print`). */
const about = z.enum(['task', 'print']).default('task');
/** `ok: false` refuses the task (e.g. an unsupported type); the error says why. */
export const ackMsg = z.object({
  ts,
  id: taskId,
  kind: about,
  ok: z.boolean().default(true),
  error: z.string().max(500).optional(),
});
/**
 * The steps of a task that has more than one (issue 15): an upgrade is downloading → downloaded → installing →
 * rebooting (its result comes after the device is back, with the version it runs); an install is downloading →
 * installing; a file request is uploading.
 */
export const TASK_STAGES = ['downloading', 'downloaded', 'installing', 'rebooting', 'uploading'] as const;
export type TaskStage = (typeof TASK_STAGES)[number];
/** `progress` is the percentage of the current stage (of the whole task when it has no stages). */
export const progressMsg = z.object({
  ts,
  id: taskId,
  kind: about,
  progress: percent,
  stage: z.enum(TASK_STAGES).optional(),
});
export const resultMsg = z.object({
  ts,
  id: taskId,
  kind: about,
  ok: z.boolean(),
  error: z.string().max(500).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export const eventMsg = z.object({ ts, kind: short, data: z.record(z.string(), z.unknown()).optional() });
/**
 * What software the device runs (issue 15): sent after each hello and whenever it changes. Installed Android
 * applications (package name, label, version) and AI models; the whole list each time (what is missing was removed).
 */
export const inventoryMsg = z.object({
  ts,
  apps: z
    .array(
      z.object({
        pkg: z.string().min(1).max(255),
        name: z.string().max(100).default(''),
        versionCode: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
        versionName: z.string().max(64).default(''),
      }),
    )
    .max(500)
    .default([]),
  models: z
    .array(z.object({ name: z.string().min(1).max(100), version: short, framework: short.optional() }))
    .max(100)
    .default([]),
  /** Free storage, MB: an install or upgrade that does not fit fails with "not enough storage". */
  storageFreeMb: z.number().nonnegative().max(1e9).optional(),
});
/**
 * The device's effective customization (issue 16), sent after applying an apply_profile task (ok or not) and after
 * each hello: which version it runs (null: none), the hash of its effective configuration and each part's hash
 * (null: the part is not set). The server compares them with the desired version's (`profileHashes`): a difference
 * is drift, naming the parts that differ.
 */
export const profileMsg = z.object({
  ts,
  versionId: z.number().int().positive().nullable().default(null),
  hash: z.string().max(128),
  parts: z.partialRecord(z.enum(SYSTEM_CUSTOM_PARTS), z.string().max(128).nullable()).default({}),
});
/** The last will, or sent on purpose before a deliberate disconnect (reboot, shutdown). */
export const offlineMsg = z.object({
  ts,
  conn: z.string().max(64).optional(),
  reason: z.string().max(32).default('lost'),
});

export const UP_SCHEMAS = {
  hello: helloMsg,
  heartbeat: heartbeatMsg,
  status: statusMsg,
  ack: ackMsg,
  result: resultMsg,
  progress: progressMsg,
  location: locationMsg,
  traffic: trafficMsg,
  event: eventMsg,
  offline: offlineMsg,
  inventory: inventoryMsg,
  profile: profileMsg,
} satisfies Record<UpKind, z.ZodType>;

export type HelloMsg = z.infer<typeof helloMsg>;
export type StatusMsg = z.infer<typeof statusMsg>;
export type LocationMsg = z.infer<typeof locationMsg>;
export type TrafficMsg = z.infer<typeof trafficMsg>;
/** `kind` is optional in these types: code that answers for a task may leave it out (the parser fills in "task"). */
type AboutOptional<T extends { kind: unknown }> = Omit<T, 'kind'> & { kind?: T['kind'] };
export type AckMsg = AboutOptional<z.infer<typeof ackMsg>>;
export type ProgressMsg = AboutOptional<z.infer<typeof progressMsg>>;
export type ResultMsg = AboutOptional<z.infer<typeof resultMsg>>;
export type EventMsg = z.infer<typeof eventMsg>;
export type OfflineMsg = z.infer<typeof offlineMsg>;
export type InventoryMsg = z.infer<typeof inventoryMsg>;
export type ProfileMsg = z.infer<typeof profileMsg>;
export type UpMessage = { [K in UpKind]: { kind: K; msg: z.infer<(typeof UP_SCHEMAS)[K]> } }[UpKind];

// ---------------------------------------------------------------------------------------------------------------
// Down messages (server → device). Every one that carries work carries its row's id: a device handles an id once.

export const DEVICE_TASK_TYPES = [
  'reboot',
  'shutdown',
  'apply_profile',
  'install_app',
  'uninstall_app',
  'fetch_file',
  'upgrade',
  'push_message',
  'deploy_model',
] as const;
export type DeviceTaskType = (typeof DEVICE_TASK_TYPES)[number];

export const commandMsg = z.object({
  id: taskId,
  type: z.enum(DEVICE_TASK_TYPES),
  params: z.record(z.string(), z.unknown()).default({}),
  /** After this instant the server no longer wants the task done (ISO 8601). */
  expireAt: z.string(),
  /** Which delivery this is (1 = first); a repeat of a handled id is acknowledged again, never run again. */
  attempt: z.number().int().min(1),
});
/**
 * A print job. `format: escpos` (printers): `content` is the ESC/POS bytes in base64, text in GB18030;
 * `format: markup` (terminals): `content` is the receipt markup itself and the terminal lays it out.
 * The device acks, reports progress and the result with `kind: "print"`.
 */
export const printMsg = z.object({
  id: taskId,
  content: z.string(),
  format: z.enum(['escpos', 'markup']).default('markup'),
  copies: z.number().int().min(1).max(99).default(1),
  expireAt: z.string(),
  attempt: z.number().int().min(1).default(1),
});
export const configMsg = z.object({
  /** The server has not heard a hello on this connection (or lost track of it): say hello again. */
  requestHello: z.boolean().optional(),
  heartbeatS: z.number().int().min(1).max(3600).optional(),
  /** Server time in ms, for devices without a clock source. */
  serverTime: z.number().int().optional(),
  /**
   * The SIM's plan as the platform now knows it (after a top-up, or in answer to the hello of a device whose
   * SIM had run out): the device takes these as its plan so its counters agree, and uses data again when
   * `planMb` is above what it used.
   */
  sim: z
    .object({
      iccid: z.string().regex(/^\d{19,20}$/),
      planMb: z.number().nonnegative().max(1e9),
      /** ISO 8601; null: no expiry. */
      expiresAt: z.string().nullable(),
      /** The order that changed it, when one did. */
      orderNo: z.string().max(64).optional(),
    })
    .optional(),
});
export type CommandMsg = z.infer<typeof commandMsg>;

// ---------------------------------------------------------------------------------------------------------------
// apply_profile (issue 16): the configuration a device applies. `params` of the command:
// `{ profileId, versionId, version, hash, settings }` (versionId null and settings {}: back to the system defaults).
// Media carry `url`, a signed download link minted at each delivery (not part of any hash).

/** A write-only password as the device gets it: scrypt(password, salt) with these parameters, hex. */
export const profilePasswordHash = z.object({
  alg: z.literal('scrypt'),
  salt: z.string().max(128),
  hash: z.string().max(256),
  N: z.number().int(),
  r: z.number().int(),
  p: z.number().int(),
  keylen: z.number().int(),
});
export type ProfilePasswordHash = z.infer<typeof profilePasswordHash>;
const media = z.object({
  key: z.string(),
  url: z.string().optional(),
  sha256: z.string(),
  size: z.number().int(),
  mime: z.string(),
});
export const deviceProfileSettings = z.object({
  bootAnimation: media
    .extend({ format: z.enum(['video', 'gif', 'frames']), fps: z.number().int(), loop: z.boolean() })
    .optional(),
  desktop: z
    .object({
      columns: z.number().int(),
      rows: z.number().int(),
      iconSize: z.string(),
      apps: z.array(z.string()),
      hiddenSystemIcons: z.array(z.string()),
    })
    .optional(),
  wallpaper: media.extend({ fit: z.string() }).optional(),
  defaultStartApp: z.object({ pkg: z.string(), delaySec: z.number().int() }).optional(),
  topScreen: z
    .object({ enabled: z.boolean(), pkg: z.string(), exitPassword: profilePasswordHash.nullable() })
    .optional(),
  appLock: z
    .object({
      mode: z.enum(['allow', 'block']),
      packages: z.array(z.string()),
      unlockPassword: profilePasswordHash.nullable(),
    })
    .optional(),
});
export type DeviceProfileSettings = z.infer<typeof deviceProfileSettings>;
export const applyProfileParams = z.object({
  profileId: z.number().int().nullable(),
  versionId: z.number().int().nullable(),
  version: z.number().int().nullable(),
  hash: z.string(),
  settings: deviceProfileSettings,
});
export type ApplyProfileParams = z.infer<typeof applyProfileParams>;

/** JSON with sorted keys and without `url` (a fresh link each delivery): the same settings hash the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .filter((k) => k !== 'url' && (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The hashes of an effective configuration: one per part (null when unset) and the whole (over the parts' hashes,
 * in SYSTEM_CUSTOM_PARTS order). Server and device compute them the same way; equal hashes mean no drift.
 */
export function profileHashes(settings: DeviceProfileSettings): {
  hash: string;
  parts: Record<SystemCustomPart, string | null>;
} {
  const parts = Object.fromEntries(
    SYSTEM_CUSTOM_PARTS.map((p) => [p, settings[p] === undefined ? null : sha256(canonical(settings[p]))]),
  ) as Record<SystemCustomPart, string | null>;
  return { hash: sha256(SYSTEM_CUSTOM_PARTS.map((p) => `${p}:${parts[p] ?? ''}`).join('\n')), parts };
}

/** The parts whose hashes differ between what the device reports and what it should run. */
export function profileDriftFields(
  desired: Record<SystemCustomPart, string | null>,
  reported: Partial<Record<SystemCustomPart, string | null>>,
): SystemCustomPart[] {
  return SYSTEM_CUSTOM_PARTS.filter((p) => (desired[p] ?? null) !== (reported[p] ?? null));
}

/** What a device does to check a kiosk-exit or unlock password against the hash it was sent. */
export function verifyProfilePassword(password: string, h: ProfilePasswordHash): boolean {
  const got = scryptSync(password.normalize('NFC'), Buffer.from(h.salt, 'hex'), h.keylen, {
    N: h.N,
    r: h.r,
    p: h.p,
    maxmem: 256 * h.N * h.r,
  });
  const want = Buffer.from(h.hash, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
export type PrintMsg = z.infer<typeof printMsg>;
export type ConfigMsg = z.infer<typeof configMsg>;

/** Parses an up message: the topic's kind picks the schema; invalid JSON or fields → null (dropped and counted). */
export function parseUp(kind: string, payload: Buffer | string): UpMessage | null {
  const schema = (UP_SCHEMAS as Record<string, z.ZodType>)[kind];
  if (!schema) return null;
  const text = typeof payload === 'string' ? payload : payload.toString('utf8');
  let json: unknown;
  try {
    // an empty payload is an empty object: a heartbeat needs no body
    json = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return null;
  }
  const r = schema.safeParse(json);
  return r.success ? ({ kind, msg: r.data } as UpMessage) : null;
}

// ---------------------------------------------------------------------------------------------------------------
// The external broker's hooks (docs/device-protocol.md, "Running on Mosquitto or EMQX"): POST /mqtt/v1/auth and
// /mqtt/v1/acl with the shared secret MQTT_AUTH_HOOK_SECRET as a bearer token. The bodies follow EMQX's HTTP
// authenticator and authorizer (placeholders rendered as strings) and mosquitto-go-auth's HTTP backend (JSON
// parameters); the answer carries both readings: `result` (EMQX) and `ok` (go-auth's JSON response mode).

const hookText = z.string().max(256);
export const brokerAuthBody = z.object({ clientid: hookText, username: hookText, password: hookText.default('') });
export type BrokerAuthBody = z.infer<typeof brokerAuthBody>;

/** go-auth's access levels: 1 read (receive), 2 write (publish), 3 read and write, 4 subscribe. */
export const BROKER_ACC = { read: 1, write: 2, readwrite: 3, subscribe: 4 } as const;
export const brokerAclBody = z
  .object({
    clientid: hookText,
    username: hookText,
    topic: z.string().min(1).max(1024),
    /** EMQX: `publish` or `subscribe`. */
    action: z.enum(['publish', 'subscribe']).optional(),
    /** go-auth: 1, 2, 3 or 4 (BROKER_ACC), as a number or a string. */
    acc: z.coerce.number().int().min(1).max(4).optional(),
    /** EMQX's `${retain}` (a string): devices never publish retained messages. */
    retain: z.union([z.boolean(), z.enum(['true', 'false', '0', '1'])]).optional(),
  })
  .refine((b) => b.action !== undefined || b.acc !== undefined, { path: ['action'], message: 'rule.aclAction' });
export type BrokerAclBody = z.infer<typeof brokerAclBody>;

export const brokerHookResult = z.object({
  result: z.enum(['allow', 'deny']),
  ok: z.boolean(),
  /** EMQX: a server node may do anything (it is also checked by the ACL hook, which allows it). */
  is_superuser: z.boolean().optional(),
  error: z.string().optional(),
});
export type BrokerHookResult = z.infer<typeof brokerHookResult>;
