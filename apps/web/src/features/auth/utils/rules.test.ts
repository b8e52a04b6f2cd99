import { describe, expect, it } from 'vitest';
import { checkConfirm, checks, checkUploaded, passwordStrength, toRule } from './rules';

const V = 'auth.validation.';

describe('form checks (SPEC §5 wording)', () => {
  const table: Array<[keyof typeof checks, unknown, string | null]> = [
    ['loginUsername', '', `${V}usernameRequired`],
    ['loginUsername', '   ', `${V}usernameRequired`],
    ['loginUsername', undefined, `${V}usernameRequired`],
    ['loginUsername', 'admin', null],
    ['loginUsername', '   ', `${V}usernameRequired`],
    ['loginUsername', 'admin1', null],
    ['loginUsername', '13800138000', null],
    ['loginUsername', 'a'.repeat(33), `${V}usernameMax`],
    ['loginPassword', '', `${V}passwordRequired`],
    ['loginPassword', '12345', `${V}passwordMin`],
    ['loginPassword', '123456', null],
    ['loginPassword', 'x'.repeat(65), `${V}passwordMax`],
    ['captcha', '', `${V}captchaRequired`],
    ['captcha', ' ', `${V}captchaRequired`],
    ['captcha', 'ab12', null],
    ['username', '', `${V}usernameRequired`],
    ['username', '1abc', `${V}usernameFormat`],
    ['username', 'abc', `${V}usernameFormat`],
    ['username', 'ab-cd', `${V}usernameFormat`],
    ['username', 'shop_01', null],
    ['mobile', '', `${V}mobile`],
    ['mobile', '23800138000', `${V}mobile`],
    ['mobile', '1380013800', `${V}mobile`],
    ['mobile', '138001380001', `${V}mobile`],
    ['mobile', '13800138000', null],
    ['smsCode', '', `${V}smsCodeRequired`],
    ['smsCode', '12345', `${V}smsCodeFormat`],
    ['smsCode', '12a456', `${V}smsCodeFormat`],
    ['smsCode', '123456', null],
    ['strongPassword', '', `${V}passwordRequired`],
    ['strongPassword', 'Abc1234', `${V}passwordStrong`],
    ['strongPassword', 'abcdefg1', `${V}passwordStrong`],
    ['strongPassword', 'ABCDEFG1', `${V}passwordStrong`],
    ['strongPassword', 'Abcdefgh', `${V}passwordStrong`],
    ['strongPassword', 'Abcdefg1234567890', `${V}passwordStrong`],
    ['strongPassword', 'Abcdefg1', null],
    ['strongPassword', 'Abcdefg12345678!', null],
    ['realName', '', `${V}realNameRequired`],
    ['realName', '张', `${V}realNameLength`],
    ['realName', '张三', null],
    ['idNumber', '', `${V}idNumberRequired`],
    ['idNumber', '110105194912310021', `${V}idNumberFormat`],
    ['idNumber', '11010519491231002', `${V}idNumberFormat`],
    ['idNumber', '11010519491231002X', null],
    ['idNumber', '11010519491231002x', null],
    ['companyName', '', `${V}companyNameRequired`],
    ['companyName', 'A', `${V}companyNameLength`],
    ['companyName', '云打印科技有限公司', null],
    ['creditCode', '', `${V}creditCodeRequired`],
    ['creditCode', '91350100M000100Y44', `${V}creditCodeFormat`],
    ['creditCode', '91350100M000100Y43', null],
    ['legalPerson', '', `${V}legalPersonRequired`],
    ['legalPerson', '李', `${V}legalPersonLength`],
    ['legalPerson', '李四', null],
  ];

  it.each(table)('%s(%j) → %s', (name, value, expected) => {
    expect(checks[name](value)).toBe(expected);
  });

  it.each([
    ['Abcdefg1', '', `${V}confirmRequired`],
    ['Abcdefg1', 'Abcdefg2', `${V}passwordMismatch`],
    ['Abcdefg1', 'Abcdefg1', null],
  ])('confirm of %s with %s → %s', (password, confirm, expected) => {
    expect(checkConfirm(password)(confirm)).toBe(expected);
  });

  it.each([
    [undefined, `${V}idPhotosRequired`],
    ['', `${V}idPhotosRequired`],
    ['20240101/abc/front.jpg', null],
  ])('uploaded %j → %s', (value, expected) => {
    expect(checkUploaded(`${V}idPhotosRequired`)(value)).toBe(expected);
  });
});

describe('toRule', () => {
  const t = (k: string) => `T(${k})`;
  const run = (value: unknown) => {
    const rule = toRule(checks.mobile, t) as { validator: (r: unknown, v: unknown) => Promise<void> };
    return rule.validator({}, value);
  };
  it('resolves for a good value', async () => {
    await expect(run('13800138000')).resolves.toBeUndefined();
  });
  it('rejects with the translated message', async () => {
    await expect(run('12')).rejects.toThrow(`T(${V}mobile)`);
  });
});

describe('passwordStrength', () => {
  it.each([
    ['', 0],
    ['abc', 1],
    ['abcdefgh', 1],
    ['Abcdefg1', 2],
    ['Abcdefg1!', 3],
    ['Abcdefgh1234', 3],
  ] as const)('%s → %i', (v, expected) => {
    expect(passwordStrength(v)).toBe(expected);
  });
});
