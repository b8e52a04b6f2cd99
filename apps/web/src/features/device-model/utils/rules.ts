import { CAPABILITY_RULE, MODEL_CODE_RULE, MSG } from '@cpc/contracts/device-constants';
import { sayServerMessage, serverFieldErrors, type ServerMessage, type Wording } from '@/lib/server-messages';

type T = (key: string, options?: Record<string, unknown>) => string;

/** Capabilities the console's features ask a model about; staff may type others. */
export const SUGGESTED_CAPABILITIES = [
  'print',
  'reboot',
  'shutdown',
  'install_app',
  'upgrade',
  'wallpaper',
  'boot_animation',
  'app_lock',
  'fetch_file',
  'location',
] as const;
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

/** The server's message keys this page words its own way; others are said from the shared catalogue. */
const WORDING: Wording = {
  [MSG.modelCode]: 'deviceModel.validation.code',
  [MSG.capability]: 'deviceModel.validation.capability',
  'rule.capabilityRepeat': 'deviceModel.validation.capabilityRepeat',
  'rule.nameRequired': 'deviceModel.validation.nameRequired',
  'deviceModel.codeTaken': 'deviceModel.validation.codeTaken',
};

/** A problem the server named by key, in the user's language. */
export const sayServerProblem = (m: ServerMessage, t: T) =>
  sayServerMessage(m, (key, options) => t(key, { ...LIMITS, ...options }), WORDING);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** antd `form.setFields` entries for a 400's field errors (`capabilities.2` belongs to `capabilities`). */
export function formFieldErrors<N extends string>(
  err: unknown,
  fields: readonly N[],
  t: T,
): Array<{ name: N; errors: string[] }> {
  const byField = new Map<N, string[]>();
  for (const f of serverFieldErrors(err)) {
    const name = f.field.split('.')[0] as N;
    if (fields.includes(name)) byField.set(name, [...(byField.get(name) ?? []), sayServerProblem(f, t)]);
  }
  return [...byField].map(([name, errors]) => ({ name, errors }));
}

/**
 * The message of a failed call in the user's language: the server says `msg` in the console's language; a model
 * gone meanwhile (404 naming the device model for programs) in this page's words.
 */
export function errorText(err: unknown, t: T): string {
  if (isRecord(err) && isRecord(err.data) && err.data.resource === 'device model') return t('deviceModel.delete.gone');
  return err instanceof Error ? err.message : String(err);
}
