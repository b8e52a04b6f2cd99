/**
 * Plain values of the device and dashboard contracts: states, limits, field rules. This module imports no zod,
 * so the console can take them from `@cpc/contracts/device-constants` without bundling zod; `device.ts` and
 * `dashboard.ts` re-export them beside their schemas.
 */

export const DEVICE_STATUSES = ['online', 'offline'] as const;
export const PAPER_STATES = ['ok', 'out', 'cover-open', 'overheat'] as const;
export const MODEL_KINDS = ['printer', 'android-terminal'] as const;
export const SIM_STATES = ['active', 'low', 'exhausted', 'expired', 'suspended'] as const;

/**
 * A SIM with a plan is `low` when less than this share of the plan, or less than SIM_LOW_MB, is left; `active`
 * again after a top-up. The database keeps the state (a trigger of migration 0008-devices-2 applies these values).
 */
export const SIM_LOW_RATIO = 0.1;
export const SIM_LOW_MB = 50;
/** Wrong bind keys allowed per serial number in the window, then 429 (counted across all accounts). */
export const BIND_MAX_FAILS = 5;
export const BIND_FAIL_WINDOW_S = 15 * 60;
/** The furthest page a list goes to (its offset must stay a number the database takes). */
export const PAGE_NO_MAX = 1_000_000;
/** Largest CSV import: rows and bytes. */
export const IMPORT_MAX_ROWS = 10_000;
export const IMPORT_MAX_BYTES = 2 * 1024 * 1024;
/** The CSV header of a factory import; `sn` and `model` (a model code) are required, the rest may be empty. */
export const IMPORT_COLUMNS = ['sn', 'model', 'bind_key', 'secret', 'iccid', 'imei'] as const;
/** Longest telemetry range one call may ask for, and the most points it answers (older ranges are averaged). */
export const TELEMETRY_MAX_DAYS = 31;
export const TELEMETRY_MAX_POINTS = 500;

// ---------------------------------------------------------------------------------------------------------------
// Field validators, shared by the console's forms, the registration route and the CSV import.

export const SN_RULE = /^[A-Za-z0-9][A-Za-z0-9_-]{3,31}$/;
export const BIND_KEY_RULE = /^[A-Za-z0-9]{6,32}$/;
export const SECRET_RULE = /^[A-Za-z0-9_-]{16,128}$/;
export const ICCID_RULE = /^\d{19,20}$/;
export const MODEL_CODE_RULE = /^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$/;
export const CAPABILITY_RULE = /^[a-z][a-z0-9_-]{1,31}$/;

/** Luhn check digit over a string of digits (IMEI, ICCID). */
export function luhnDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) d *= 2;
    sum += d > 9 ? d - 9 : d;
  }
  return (10 - (sum % 10)) % 10;
}

/** IMEI: 15 digits whose last one is the Luhn check digit. */
export const isImei = (v: string): boolean => /^\d{15}$/.test(v) && luhnDigit(v.slice(0, 14)) === Number(v[14]);

/** Carriers by the issuer digits of a China ICCID (89 86 xx …); codes the console translates. */
const CARRIER_BY_ISSUER: Record<string, string> = {
  '00': 'cmcc',
  '02': 'cmcc',
  '04': 'cmcc',
  '07': 'cmcc',
  '08': 'cmcc',
  '01': 'cucc',
  '06': 'cucc',
  '09': 'cucc',
  '03': 'ctcc',
  '11': 'ctcc',
};
export const carrierOfIccid = (iccid: string): string =>
  iccid.startsWith('8986') ? (CARRIER_BY_ISSUER[iccid.slice(4, 6)] ?? '') : '';

/** The message keys (contracts/messages.ts) of the device fields' rules. */
export const MSG = {
  sn: 'rule.sn',
  bindKey: 'rule.bindKey',
  secret: 'rule.secret',
  iccid: 'rule.iccid',
  imei: 'rule.imei',
  modelCode: 'rule.modelCode',
  capability: 'rule.capability',
} as const;

export const DEVICE_SORTS = ['sn', 'name', 'lastSeen', 'battery', 'signal', 'dataLeft'] as const;
export type DeviceSort = (typeof DEVICE_SORTS)[number];

// ---------------------------------------------------------------------------------------------------------------
// The dashboard (dashboard.ts)

export const DEFAULT_TIME_ZONE = 'Asia/Shanghai';
export const TREND_UNITS = ['hour', 'day'] as const;
/** The trend covers the last 7 days: 168 hourly or 7 daily points. */
export const TREND_DAYS = 7;
/** The install-count widget covers the last 30 days. */
export const INSTALL_DAYS = 30;
/** Rankings and remind lists show at most this many devices. */
export const RANK_SIZE = 10;
/** A device offline longer than this is listed in the remind widget. */
export const OFFLINE_REMIND_HOURS = 24;

/** An IANA zone name the runtime knows (e.g. Asia/Shanghai, UTC). */
export const isTimeZone = (tz: string): boolean => {
  if (!/^[A-Za-z_]+(?:\/[A-Za-z0-9_+-]+){0,2}$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};
