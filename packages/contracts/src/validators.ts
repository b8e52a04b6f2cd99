/** The helper validators of SPEC §5, shared by the console's forms and the server's schemas. No zod here: the console imports this module directly. */

/** Longest nickname and e-mail a profile or sub-account may have (personal centre). */
export const NICKNAME_MAX = 20;
export const EMAIL_MAX = 100;

export const isPassword = (v: string): boolean => typeof v === 'string' && v.length >= 6;

/** Registration password: 8–16 characters with upper case, lower case and a digit. */
export const isStrongPassword = (v: string): boolean =>
  typeof v === 'string' && /^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[\x21-\x7e]{8,16}$/.test(v);

export const isPhone = (v: string): boolean => /^1\d{10}$/.test(v);

export const isEmail = (v: string): boolean =>
  /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/.test(v);

export const isIP = (v: string): boolean => {
  const parts = v.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
};

export const isPort = (v: string | number): boolean => {
  const s = String(v);
  return /^[1-9]\d{0,4}$/.test(s) && Number(s) <= 65535;
};

export const isUrl = (v: string): boolean => {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
};

/** Chinese name: 2–4 Chinese characters. */
export const isChineseName = (v: string): boolean => /^[\u4e00-\u9fa5]{2,4}$/.test(v);

/** Amount: a non-negative number with at most 2 decimals. */
export const isAmount = (v: string | number): boolean => /^(0|[1-9]\d*)(\.\d{1,2})?$/.test(String(v));

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

/** Mainland resident ID number: 18 characters, a real birth date and the GB 11643 check digit. */
export const isIdCard = (v: string): boolean => {
  if (typeof v !== 'string' || !/^[1-9]\d{16}[\dXx]$/.test(v)) return false;
  const y = Number(v.slice(6, 10));
  const m = Number(v.slice(10, 12));
  const d = Number(v.slice(12, 14));
  const date = new Date(Date.UTC(y, m - 1, d));
  if (y < 1900 || date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return false;
  if (date.getTime() > Date.now()) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(v[i]) * ID_WEIGHTS[i];
  return ID_CHECK[sum % 11] === v[17].toUpperCase();
};

const USCC_CHARS = '0123456789ABCDEFGHJKLMNPQRTUWXY';
const USCC_WEIGHTS = [1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28];

/** Unified social credit code (GB 32100): 18 characters with its check character. */
export const isCreditCode = (v: string): boolean => {
  if (typeof v !== 'string' || !/^[0-9A-HJ-NPQRTUWXY]{2}\d{6}[0-9A-HJ-NPQRTUWXY]{10}$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += USCC_CHARS.indexOf(v[i]) * USCC_WEIGHTS[i];
  const check = (31 - (sum % 31)) % 31;
  return USCC_CHARS[check] === v[17];
};

/**
 * Control characters (NUL, tabs, newlines, escape…) never belong in a name or a search: they are invisible in a
 * table, and PostgreSQL refuses NUL in text. One rule for every text field, with its message.
 */
export const hasNoControl = (v: string): boolean => !CONTROL_CHAR.test(v);
/** The same for multi-line text (a remark typed in a text area): line breaks are allowed, nothing else. */
export const hasNoControlButLineBreaks = (v: string): boolean => !CONTROL_BUT_LINE_BREAKS.test(v);
/**
 * The control characters (Unicode's Cc): C0, DEL and C1 (U+0080–U+009F). C1 looks like nothing on screen, and a
 * printer or terminal may take it as a command (U+009B is CSI), so it is refused wherever C0 is.
 */
// eslint-disable-next-line no-control-regex -- control characters are what these match
export const CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- control characters are what these match
export const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
export const isControlCode = (code: number): boolean => code < 0x20 || (code >= 0x7f && code <= 0x9f);
/** The message key of the control-character rule. */
export const NO_CONTROL_MSG = 'rule.noControl';

/** User names: 4–20 letters, digits or underscores, starting with a letter. */
export const isUsername = (v: string): boolean => /^[A-Za-z][A-Za-z0-9_]{3,19}$/.test(v);
