import type { RuleObject } from 'antd/es/form';
import { EMAIL_MAX, NICKNAME_MAX, isEmail, isPhone, isStrongPassword, isUsername } from '@cpc/contracts/validators';

/**
 * The personal centre's form checks, the same rules the server's schemas apply (contracts/user.ts). Each
 * returns the i18n key of the problem or null, so one table-driven test covers every message.
 */
export type Check = (value: unknown) => string | null;

const text = (v: unknown): string => (typeof v === 'string' ? v : v == null ? '' : String(v));
const V = 'user.validation.';

export const checks = {
  nickname: (v) => {
    const s = text(v).trim();
    if (s.length > NICKNAME_MAX) return `${V}nicknameMax`;
    // eslint-disable-next-line no-control-regex -- control characters are what this refuses
    return /[\u0000-\u001f\u007f]/.test(s) ? `${V}nicknameChars` : null;
  },
  email: (v) => {
    const s = text(v).trim();
    if (!s) return null;
    if (s.length > EMAIL_MAX) return `${V}emailMax`;
    return isEmail(s) ? null : `${V}email`;
  },
  oldPassword: (v) => (text(v) ? null : `${V}oldPasswordRequired`),
  strongPassword: (v) => {
    const s = text(v);
    if (!s) return `${V}passwordRequired`;
    return isStrongPassword(s) ? null : `${V}passwordStrong`;
  },
  username: (v) => {
    const s = text(v).trim();
    if (!s) return `${V}usernameRequired`;
    return isUsername(s) ? null : `${V}usernameFormat`;
  },
  optionalMobile: (v) => {
    const s = text(v).trim();
    return !s || isPhone(s) ? null : `${V}mobile`;
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

/** A new password equal to the old one changes nothing: say so before the server is asked. */
export const checkNotSame =
  (oldPassword: unknown): Check =>
  (v) =>
    text(v) && text(v) === text(oldPassword) ? `${V}passwordSame` : null;

export const toRule = (check: Check, t: (key: string) => string): RuleObject => ({
  validator: async (_rule, value) => {
    const key = check(value);
    if (key) throw new Error(t(key));
  },
});
