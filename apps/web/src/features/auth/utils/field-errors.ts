import type { FieldError } from '@cpc/contracts';

/**
 * The server answers a validation failure with 400 and `data.fields: [{ field, message }]`, its messages in
 * en (contracts/user.ts). Known messages are translated through the same keys the forms use; others are
 * shown as sent.
 */
const KNOWN: Record<string, string> = {
  'must be 11 digits starting with 1': 'auth.validation.mobile',
  'must be 4-20 letters, digits or underscores, starting with a letter': 'auth.validation.usernameFormat',
  'must be the 6-digit code': 'auth.validation.smsCodeFormat',
  'must be 8-16 characters with upper and lower case letters and digits': 'auth.validation.passwordStrong',
  'the two passwords do not match': 'auth.validation.passwordMismatch',
  'must be at least 6 characters': 'auth.validation.atLeast6',
  'ID number format must be correct': 'auth.validation.idNumberFormat',
  'unified social credit code format must be correct': 'auth.validation.creditCodeFormat',
  'business licence image required': 'auth.validation.licenceRequired',
  'front ID photo required': 'auth.validation.idPhotosRequired',
  'back ID photo required': 'auth.validation.idPhotosRequired',
  'upload the image first': 'auth.validation.uploadFirst',
  'uploads must be jpg or png': 'auth.validation.uploadType',
  'file must not exceed 10MB': 'auth.validation.uploadSize',
  'user name cannot be empty': 'auth.validation.usernameRequired',
  'graphic captcha required': 'auth.validation.captchaRequired',
  'graphic captcha is wrong or expired': 'auth.validation.captchaWrong',
  'this mobile number is already registered': 'auth.validation.mobileTaken',
  'this user name is taken': 'auth.validation.usernameTaken',
  'this user name or mobile number is taken': 'auth.validation.usernameOrMobileTaken',
  'verification code is wrong': 'auth.validation.smsCodeWrong',
  'verification code expired, please get a new one': 'auth.validation.smsCodeExpired',
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function fieldsOf(v: unknown): FieldError[] | null {
  if (!isRecord(v) || !Array.isArray(v.fields)) return null;
  return v.fields.filter(
    (f): f is FieldError => isRecord(f) && typeof f.field === 'string' && typeof f.message === 'string',
  );
}

/** Digs `fields` out of whatever the request layer rejected with (its error, the envelope, an axios error). */
export function serverFieldErrors(err: unknown): FieldError[] {
  if (!isRecord(err)) return [];
  const response = isRecord(err.response) ? err.response : undefined;
  const candidates = [err, err.data, err.envelope, isRecord(err.envelope) ? err.envelope.data : undefined, response?.data];
  if (response && isRecord(response.data)) candidates.push(response.data.data);
  for (const c of candidates) {
    const found = fieldsOf(c);
    if (found) return found;
  }
  return [];
}

/** antd `form.setFields` entries for the server's field errors on fields this form has. */
export function toFormFieldErrors<N extends string>(
  err: unknown,
  formFields: readonly N[],
  t: (key: string) => string,
): Array<{ name: N; errors: string[] }> {
  const byField = new Map<N, string[]>();
  for (const { field, message } of serverFieldErrors(err)) {
    // zod paths may arrive as "body.mobile" or "mobile"
    const name = (field.split(/[./]/).pop() ?? field) as N;
    if (!formFields.includes(name)) continue;
    const text = KNOWN[message] ? t(KNOWN[message]) : message;
    byField.set(name, [...(byField.get(name) ?? []), text]);
  }
  return [...byField].map(([name, errors]) => ({ name, errors }));
}
