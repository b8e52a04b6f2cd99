import { sayServerMessage, serverFieldErrors, type Wording } from '@/lib/server-messages';

/**
 * The server answers a validation failure with 400 and `data.fields: [{ field, message, key, params }]`: each
 * problem is said by its key, through the same i18n keys the forms use where they have their own words.
 */
const WORDING: Wording = {
  'rule.mobile': 'auth.validation.mobile',
  'rule.username': 'auth.validation.usernameFormat',
  'rule.smsCode': 'auth.validation.smsCodeFormat',
  'rule.strongPassword': 'auth.validation.passwordStrong',
  'rule.passwordMismatch': 'auth.validation.passwordMismatch',
  'rule.idNumber': 'auth.validation.idNumberFormat',
  'rule.creditCode': 'auth.validation.creditCodeFormat',
  'rule.licenceRequired': 'auth.validation.licenceRequired',
  'rule.idFrontRequired': 'auth.validation.idPhotosRequired',
  'rule.idBackRequired': 'auth.validation.idPhotosRequired',
  'upload.imageFirst': 'auth.validation.uploadFirst',
  'upload.wrongType': 'auth.validation.uploadType',
  'upload.tooLarge': 'auth.validation.uploadSize',
  'rule.usernameRequired': 'auth.validation.usernameRequired',
  'auth.captchaRequired': 'auth.validation.captchaRequired',
  'auth.captchaWrong': 'auth.validation.captchaWrong',
  'auth.mobileTaken': 'auth.validation.mobileTaken',
  'auth.usernameTaken': 'auth.validation.usernameTaken',
  'auth.usernameOrMobileTaken': 'auth.validation.usernameOrMobileTaken',
  'auth.smsCodeWrong': 'auth.validation.smsCodeWrong',
  'auth.smsCodeExpired': 'auth.validation.smsCodeExpired',
};

export { serverFieldErrors };

/** antd `form.setFields` entries for the server's field errors on fields this form has. */
export function toFormFieldErrors<N extends string>(
  err: unknown,
  formFields: readonly N[],
  t: (key: string, options?: Record<string, unknown>) => string,
): Array<{ name: N; errors: string[] }> {
  const byField = new Map<N, string[]>();
  for (const f of serverFieldErrors(err)) {
    // zod paths may arrive as "body.mobile" or "mobile"
    const name = (f.field.split(/[./]/).pop() ?? f.field) as N;
    if (!formFields.includes(name)) continue;
    byField.set(name, [...(byField.get(name) ?? []), sayServerMessage(f, t, WORDING, name)]);
  }
  return [...byField].map(([name, errors]) => ({ name, errors }));
}
