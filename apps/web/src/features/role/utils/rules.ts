import { sayServerMessage, serverFieldErrors, type Wording } from '@/lib/server-messages';

type T = (key: string, options?: Record<string, unknown>) => string;

export const CODE_RULE = /^[A-Za-z][A-Za-z0-9_-]*$/;
export const NAME_MAX = 32;
export const CODE_MAX = 32;
export const DESCRIPTION_MAX = 200;
const LIMITS = { nameMax: NAME_MAX, codeMax: CODE_MAX };

/** The same rules as the server's schema (contracts/role.ts), checked before sending. */
export function checkCode(v: string | undefined): string | null {
  const code = (v ?? '').trim();
  if (!code) return 'role.validation.codeRequired';
  return code.length >= 2 && code.length <= CODE_MAX && CODE_RULE.test(code) ? null : 'role.validation.code';
}

export function checkName(v: string | undefined): string | null {
  const name = (v ?? '').trim();
  if (!name) return 'role.validation.nameRequired';
  return name.length > NAME_MAX ? 'role.validation.nameMax' : null;
}

/** An antd rule from a check that answers a message key. */
export const toRule = <V>(check: (v: V) => string | null, t: T) => ({
  validator: async (_: unknown, value: V) => {
    const key = check(value);
    if (key) throw new Error(t(key, LIMITS));
  },
});

const WORDING: Wording = { 'role.codeTaken': 'role.validation.codeTaken' };

/** antd `form.setFields` entries for a refusal's field errors; what names no field of the form is said in `rest`. */
export function formFieldErrors<N extends string>(
  err: unknown,
  fields: readonly N[],
  t: T,
): { fields: Array<{ name: N; errors: string[] }>; rest: string | null } {
  const byField = new Map<N, string[]>();
  for (const f of serverFieldErrors(err)) {
    const name = f.field.split('.')[0] as N;
    if (fields.includes(name)) byField.set(name, [...(byField.get(name) ?? []), sayServerMessage(f, t, WORDING)]);
  }
  const rest = byField.size ? null : err instanceof Error ? err.message : String(err);
  return { fields: [...byField].map(([name, errors]) => ({ name, errors })), rest };
}
