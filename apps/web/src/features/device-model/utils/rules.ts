import { CAPABILITY_RULE, MODEL_CODE_RULE, MSG } from '@cpc/contracts/device-constants';

type T = (key: string, options?: Record<string, unknown>) => string;

/** Capabilities the console's features ask a model about; staff may type others. */
export const SUGGESTED_CAPABILITIES = ['print', 'reboot', 'shutdown', 'install_app', 'upgrade', 'wallpaper', 'boot_animation', 'app_lock', 'fetch_file', 'location'] as const;
export const MAX_CAPABILITIES = 30;
export const NAME_MAX = 50;
export const PAPER_WIDTH_MAX = 300;

/** The numbers the validation messages name. */
const LIMITS = { nameMax: NAME_MAX, capabilitiesMax: MAX_CAPABILITIES };

/** The same rules as the server's schema (contracts/device.ts), checked before sending. */
export function checkCode(v: string | undefined): string | null {
  const code = (v ?? '').trim();
  if (!code) return 'deviceModel.validation.codeRequired';
  return MODEL_CODE_RULE.test(code) ? null : 'deviceModel.validation.code';
}

export function checkName(v: string | undefined): string | null {
  const name = (v ?? '').trim();
  if (!name) return 'deviceModel.validation.nameRequired';
  return name.length > NAME_MAX ? 'deviceModel.validation.nameMax' : null;
}

export function checkCapabilities(v: string[] | undefined): string | null {
  const list = (v ?? []).map((c) => c.trim());
  if (list.length > MAX_CAPABILITIES) return 'deviceModel.validation.capabilitiesMax';
  if (list.some((c) => !CAPABILITY_RULE.test(c))) return 'deviceModel.validation.capability';
  return new Set(list).size === list.length ? null : 'deviceModel.validation.capabilityRepeat';
}

/** An antd rule from a check that answers a message key. */
export const toRule = <V>(check: (v: V) => string | null, t: T) => ({
  validator: async (_: unknown, value: V) => {
    const key = check(value);
    if (key) throw new Error(t(key, LIMITS));
  },
});

/** The server's messages (contracts, service) this page knows, shown in the user's language; others as sent. */
const KNOWN: Array<[RegExp | string, string]> = [
  [MSG.modelCode, 'deviceModel.validation.code'],
  [MSG.capability, 'deviceModel.validation.capability'],
  ['must not repeat a capability', 'deviceModel.validation.capabilityRepeat'],
  ['name cannot be empty', 'deviceModel.validation.nameRequired'],
  ['a model with this code already exists', 'deviceModel.validation.codeTaken'],
  [/^the model is used by (\d+) registered devices and cannot be deleted$/, 'deviceModel.delete.inUse'],
  ['device model does not exist', 'deviceModel.delete.gone'],
];

export function translateServerMessage(message: string, t: T): string {
  for (const [pattern, key] of KNOWN) {
    if (typeof pattern === 'string' ? pattern === message : pattern.test(message)) {
      const n = typeof pattern === 'string' ? undefined : message.match(pattern)?.[1];
      return t(key, { ...LIMITS, n });
    }
  }
  return message;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** antd `form.setFields` entries for a 400's field errors (`capabilities.2` belongs to `capabilities`). */
export function formFieldErrors<N extends string>(err: unknown, fields: readonly N[], t: T): Array<{ name: N; errors: string[] }> {
  const data = isRecord(err) ? err.data : undefined;
  const list = isRecord(data) && Array.isArray(data.fields) ? data.fields : [];
  const byField = new Map<N, string[]>();
  for (const f of list) {
    if (!isRecord(f) || typeof f.field !== 'string' || typeof f.message !== 'string') continue;
    const name = f.field.split('.')[0] as N;
    if (fields.includes(name)) byField.set(name, [...(byField.get(name) ?? []), translateServerMessage(f.message, t)]);
  }
  return [...byField].map(([name, errors]) => ({ name, errors }));
}

/** The message of a failed call in the user's language (the request layer's error carries the server's text). */
export const errorText = (err: unknown, t: T): string => (err instanceof Error ? translateServerMessage(err.message, t) : String(err));
