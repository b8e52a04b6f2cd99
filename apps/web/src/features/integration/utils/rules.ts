import {
  APP_KEY_NAME_MAX,
  APP_KEY_RATE_LIMIT_MAX,
  APP_KEY_RATE_LIMIT_MIN,
  IP_ALLOW_MAX,
  isCallbackUrl,
  isIpOrCidr,
} from '@cpc/contracts/integration-constants';
import { sayServerMessage, serverFieldErrors, type Wording } from '@/lib/server-messages';

type T = (key: string, options?: Record<string, unknown>) => string;

/** The numbers the validation messages name. */
export const LIMITS = {
  nameMax: APP_KEY_NAME_MAX,
  ipMax: IP_ALLOW_MAX,
  rateMin: APP_KEY_RATE_LIMIT_MIN,
  rateMax: APP_KEY_RATE_LIMIT_MAX,
};

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
  return Number.isInteger(v) && v >= APP_KEY_RATE_LIMIT_MIN && v <= APP_KEY_RATE_LIMIT_MAX
    ? null
    : 'integration.validation.rateLimit';
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

/** The server's message keys this page words its own way; others are said from the shared catalogue. */
const WORDING: Wording = {
  'rule.nameRequired': 'integration.validation.nameRequired',
  'rule.maxChars': 'integration.validation.nameMax',
  'rule.callbackUrl': 'integration.validation.callbackUrl',
  'rule.ipList': 'integration.validation.ip',
  'rule.maxEntries': 'integration.validation.ipMax',
  'rule.entryRepeat': 'integration.validation.ipRepeat',
  'rule.rateLimit': 'integration.validation.rateLimit',
  'rule.wholeNumber': 'integration.validation.rateLimit',
};

/** antd `form.setFields` entries for a 400's field errors (`ipAllowList.2` belongs to `ipAllowList`); the rest in `other`. */
export function fieldErrors<N extends string>(
  err: unknown,
  fields: readonly N[],
  t: T,
): { fields: Array<{ name: N; errors: string[] }>; other: string | null } {
  const byField = new Map<N, string[]>();
  for (const f of serverFieldErrors(err)) {
    const name = f.field.split('.')[0] as N;
    if (fields.includes(name))
      byField.set(name, [
        ...(byField.get(name) ?? []),
        sayServerMessage(f, (key, options) => t(key, { ...LIMITS, ...options }), WORDING),
      ]);
  }
  // anything else is said in msg, already in the user's language
  const other = byField.size ? null : err instanceof Error ? err.message : String(err);
  return { fields: [...byField].map(([name, errors]) => ({ name, errors })), other };
}
