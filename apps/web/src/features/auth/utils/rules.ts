import type { RuleObject } from 'antd/es/form';
import { isCreditCode, isIdCard, isPhone, isStrongPassword, isUsername } from '@cpc/contracts/validators';

/**
 * Each check returns the i18n key of the problem, or null when the value is fine. Keeping them pure lets one
 * table-driven test cover every message of SPEC §5; `toRule` turns a check into an antd form rule.
 */
export type Check = (value: unknown) => string | null;

const text = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
const V = 'auth.validation.';

export const checks = {
  loginUsername: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}usernameRequired`;
    // The platform admin is `admin`: only the password has the 6-character login minimum (SPEC §9).
    if (s.length > 32) return `${V}usernameMax`;
    return null;
  },
  loginPassword: (v) => {
    const s = text(v);
    if (!s) return `${V}passwordRequired`;
    if (s.length < 6) return `${V}passwordMin`;
    if (s.length > 64) return `${V}passwordMax`;
    return null;
  },
  captcha: (v) => (text(v).trim() ? null : `${V}captchaRequired`),
  username: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}usernameRequired`;
    return isUsername(s) ? null : `${V}usernameFormat`;
  },
  mobile: (v) => (isPhone(text(v).trim()) ? null : `${V}mobile`),
  smsCode: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}smsCodeRequired`;
    return /^\d{6}$/.test(s) ? null : `${V}smsCodeFormat`;
  },
  strongPassword: (v) => {
    const s = text(v);
    if (!s) return `${V}passwordRequired`;
    return isStrongPassword(s) ? null : `${V}passwordStrong`;
  },
  realName: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}realNameRequired`;
    return s.length >= 2 && s.length <= 30 ? null : `${V}realNameLength`;
  },
  idNumber: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}idNumberRequired`;
    return isIdCard(s) ? null : `${V}idNumberFormat`;
  },
  companyName: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}companyNameRequired`;
    return s.length >= 2 && s.length <= 100 ? null : `${V}companyNameLength`;
  },
  creditCode: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}creditCodeRequired`;
    return isCreditCode(s) ? null : `${V}creditCodeFormat`;
  },
  legalPerson: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}legalPersonRequired`;
    return s.length >= 2 && s.length <= 30 ? null : `${V}legalPersonLength`;
  },
} satisfies Record<string, Check>;

/** The confirmation must be present and equal to the password it confirms. */
export const checkConfirm =
  (password: unknown): Check =>
  (v) => {
    const s = text(v);
    if (!s) return `${V}confirmRequired`;
    return s === text(password) ? null : `${V}passwordMismatch`;
  };

/** An upload field holds the uploaded object keys; `message` is the key used when one is missing. */
export const checkUploaded =
  (message: string): Check =>
  (v) =>
    typeof v === 'string' && v.length > 0 ? null : message;

export const toRule = (check: Check, t: (key: string) => string): RuleObject => ({
  validator: async (_rule, value) => {
    const key = check(value);
    if (key) throw new Error(t(key));
  },
});

/** Rough strength of a password for the meter under the registration field: 0 (empty) to 3 (strong). */
export function passwordStrength(v: string): 0 | 1 | 2 | 3 {
  if (!v) return 0;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(v)).length;
  if (v.length < 8 || classes < 3) return 1;
  return v.length >= 12 || classes === 4 ? 3 : 2;
}
