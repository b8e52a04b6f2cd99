import type { FieldError } from '@cpc/contracts';

/**
 * The server answers bad input with 400 and `data.fields: [{ field, message }]`, in en (contracts/user.ts).
 * Messages this feature knows are shown in the user's language; others as sent.
 */
const KNOWN: Record<string, string> = {
  'must be a valid e-mail address': 'user.validation.email',
  'must be at most 20 characters': 'user.validation.nicknameMax',
  'must be at most 100 characters': 'user.validation.emailMax',
  'must not contain control characters': 'user.validation.nicknameChars',
  'must be 11 digits starting with 1': 'user.validation.mobile',
  'must be 4-20 letters, digits or underscores, starting with a letter': 'user.validation.usernameFormat',
  'must be 8-16 characters with upper and lower case letters and digits': 'user.validation.passwordStrong',
  'the two passwords do not match': 'user.validation.passwordMismatch',
  'the old password is wrong': 'user.validation.oldPasswordWrong',
  'this user name is taken': 'user.validation.usernameTaken',
  'this mobile number is already registered': 'user.validation.mobileTaken',
  'this user name or mobile number is taken': 'user.validation.usernameOrMobileTaken',
  'a role does not exist': 'user.validation.roleMissing',
  'upload the image first': 'user.avatar.uploadFirst',
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The `fields` of a rejected call (the request layer's error keeps the envelope's data). */
export function serverFieldErrors(err: unknown): FieldError[] {
  if (!isRecord(err)) return [];
  for (const c of [err.data, err]) {
    if (isRecord(c) && Array.isArray(c.fields)) {
      return c.fields.filter((f): f is FieldError => isRecord(f) && typeof f.field === 'string' && typeof f.message === 'string');
    }
  }
  return [];
}

/** antd `form.setFields` entries for the server's field errors on fields this form has. */
export function toFormFieldErrors<N extends string>(err: unknown, formFields: readonly N[], t: (key: string) => string): Array<{ name: N; errors: string[] }> {
  const byField = new Map<N, string[]>();
  for (const { field, message } of serverFieldErrors(err)) {
    const name = (field.split('.').pop() ?? field) as N;
    if (!formFields.includes(name)) continue;
    byField.set(name, [...(byField.get(name) ?? []), KNOWN[message] ? t(KNOWN[message]) : message]);
  }
  return [...byField].map(([name, errors]) => ({ name, errors }));
}
