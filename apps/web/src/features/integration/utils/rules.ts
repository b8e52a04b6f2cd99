import { APP_KEY_NAME_MAX, APP_KEY_RATE_LIMIT_MAX, APP_KEY_RATE_LIMIT_MIN, IP_ALLOW_MAX, isCallbackUrl, isIpOrCidr } from '@cpc/contracts/integration-constants';

type T = (key: string, options?: Record<string, unknown>) => string;

/** The numbers the validation messages name. */
export const LIMITS = { nameMax: APP_KEY_NAME_MAX, ipMax: IP_ALLOW_MAX, rateMin: APP_KEY_RATE_LIMIT_MIN, rateMax: APP_KEY_RATE_LIMIT_MAX };

/** The same rules as the server's schema (contracts/integration.ts, appKeyCreateBody), checked before sending. */
export function checkKeyName(v: string | undefined): string | null {
  const name = (v ?? '').trim();
  if (!name) return 'integration.validation.nameRequired';
  return name.length > APP_KEY_NAME_MAX ? 'integration.validation.nameMax' : null;
}

/** Empty means no callbacks. */
export function checkCallbackUrl(v: string | undefined): string | null {
  const url = (v ?? '').trim();
  return url === '' || isCallbackUrl(url) ? null : 'integration.validation.callbackUrl';
}

export function checkIpAllowList(v: string[] | undefined): string | null {
  const list = (v ?? []).map((s) => s.trim());
  if (list.length > IP_ALLOW_MAX) return 'integration.validation.ipMax';
  if (list.some((s) => !isIpOrCidr(s))) return 'integration.validation.ip';
  return new Set(list).size === list.length ? null : 'integration.validation.ipRepeat';
}

/** Empty follows the server's default; otherwise a whole number of calls per second within the bounds. */
export function checkRateLimit(v: number | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return Number.isInteger(v) && v >= APP_KEY_RATE_LIMIT_MIN && v <= APP_KEY_RATE_LIMIT_MAX ? null : 'integration.validation.rateLimit';
}

/** The entries of an allow-list as typed: split on commas, spaces and line breaks, blanks dropped. */
export const splitIpList = (text: string | undefined): string[] =>
  (text ?? '')
    .split(/[\s,，]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** An antd rule from a check that answers a message key. */
export const toRule = <V>(check: (v: V) => string | null, t: T) => ({
  validator: async (_: unknown, value: V) => {
    const key = check(value);
    if (key) throw new Error(t(key, LIMITS));
  },
});

/** The server's messages this page knows, shown in the user's language; others as sent. */
const KNOWN: Array<[RegExp | string, string]> = [
  ['name cannot be empty', 'integration.validation.nameRequired'],
  [/^must be at most \d+ characters$/, 'integration.validation.nameMax'],
  [/^must be an http:\/\/ or https:\/\/ URL/, 'integration.validation.callbackUrl'],
  ['each must be an IPv4 or IPv6 address or CIDR block', 'integration.validation.ip'],
  [/^at most \d+ entries$/, 'integration.validation.ipMax'],
  ['must not repeat an entry', 'integration.validation.ipRepeat'],
  [/calls per second$/, 'integration.validation.rateLimit'],
  ['must be a whole number', 'integration.validation.rateLimit'],
];

export function translateServerMessage(message: string, t: T): string {
  for (const [pattern, key] of KNOWN) if (typeof pattern === 'string' ? pattern === message : pattern.test(message)) return t(key, LIMITS);
  return message;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** antd `form.setFields` entries for a 400's field errors (`ipAllowList.2` belongs to `ipAllowList`); the rest in `other`. */
export function fieldErrors<N extends string>(err: unknown, fields: readonly N[], t: T): { fields: Array<{ name: N; errors: string[] }>; other: string | null } {
  const data = isRecord(err) ? err.data : undefined;
  const list = isRecord(data) && Array.isArray(data.fields) ? data.fields : [];
  const byField = new Map<N, string[]>();
  for (const f of list) {
    if (!isRecord(f) || typeof f.field !== 'string' || typeof f.message !== 'string') continue;
    const name = f.field.split('.')[0] as N;
    if (fields.includes(name)) byField.set(name, [...(byField.get(name) ?? []), translateServerMessage(f.message, t)]);
  }
  const other = byField.size ? null : err instanceof Error ? translateServerMessage(err.message, t) : String(err);
  return { fields: [...byField].map(([name, errors]) => ({ name, errors })), other };
}
