import type { FieldError } from '@cpc/contracts';
import { sayServerMessage, serverFieldErrors, type Wording } from '@/lib/server-messages';

/**
 * The server answers bad input with 400 and `data.fields: [{ field, message, key, params }]`: each problem is
 * said by its key, in this feature's words where its forms have their own (below), else the catalogue's.
 */
const WORDING: Wording = {
  'rule.email': 'user.validation.email',
  'rule.maxChars': { nickname: 'user.validation.nicknameMax', email: 'user.validation.emailMax' },
  'rule.noControl': 'user.validation.nicknameChars',
  'rule.mobile': 'user.validation.mobile',
  'rule.username': 'user.validation.usernameFormat',
  'rule.strongPassword': 'user.validation.passwordStrong',
  'rule.passwordMismatch': 'user.validation.passwordMismatch',
  'auth.oldPasswordWrong': 'user.validation.oldPasswordWrong',
  'auth.usernameTaken': 'user.validation.usernameTaken',
  'auth.mobileTaken': 'user.validation.mobileTaken',
  'auth.usernameOrMobileTaken': 'user.validation.usernameOrMobileTaken',
  'user.roleMissing': 'user.validation.roleMissing',
  'upload.imageFirst': 'user.avatar.uploadFirst',
};

export { serverFieldErrors };
export type { FieldError };

/** antd `form.setFields` entries for the server's field errors on fields this form has. */
export function toFormFieldErrors<N extends string>(
  err: unknown,
  formFields: readonly N[],
  t: (key: string, options?: Record<string, unknown>) => string,
): Array<{ name: N; errors: string[] }> {
  const byField = new Map<N, string[]>();
  for (const f of serverFieldErrors(err)) {
    const name = (f.field.split('.').pop() ?? f.field) as N;
    if (!formFields.includes(name)) continue;
    byField.set(name, [...(byField.get(name) ?? []), sayServerMessage(f, t, WORDING, name)]);
  }
  return [...byField].map(([name, errors]) => ({ name, errors }));
}
