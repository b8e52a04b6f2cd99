import { describe, expect, it } from 'vitest';
import { checkConfirm, checkNotSame, checks } from './rules';

const V = 'user.validation.';

describe('person form checks', () => {
  it.each([
    ['nickname', '', null],
    ['nickname', '小王', null],
    ['nickname', '  padded  ', null],
    ['nickname', 'x'.repeat(20), null],
    ['nickname', 'x'.repeat(21), `${V}nicknameMax`],
    ['nickname', 'tab\there', `${V}nicknameChars`],
    ['email', '', null],
    ['email', 'a@b.cn', null],
    ['email', ' a@b.cn ', null],
    ['email', 'a@b', `${V}email`],
    ['email', 'not an email', `${V}email`],
    ['email', `${'a'.repeat(96)}@b.cn`, `${V}emailMax`],
    ['oldPassword', '', `${V}oldPasswordRequired`],
    ['oldPassword', 'anything', null],
    ['strongPassword', '', `${V}passwordRequired`],
    ['strongPassword', 'Passw0rd', null],
    ['strongPassword', 'password1', `${V}passwordStrong`],
    ['strongPassword', 'PASSWORD1', `${V}passwordStrong`],
    ['strongPassword', 'Pa1', `${V}passwordStrong`],
    ['strongPassword', 'Passw0rd12345678x', `${V}passwordStrong`],
    ['username', '', `${V}usernameRequired`],
    ['username', 'clerk_01', null],
    ['username', '1clerk', `${V}usernameFormat`],
    ['username', 'abc', `${V}usernameFormat`],
    ['optionalMobile', '', null],
    ['optionalMobile', '13800000000', null],
    ['optionalMobile', '23800000000', `${V}mobile`],
    ['optionalMobile', '1380000', `${V}mobile`],
  ] as const)('%s(%j) → %s', (name, value, want) => {
    expect(checks[name](value)).toBe(want);
  });

  it.each([
    ['Passw0rd', '', `${V}confirmRequired`],
    ['Passw0rd', 'Passw0rd', null],
    ['Passw0rd', 'Passw0rD', `${V}passwordMismatch`],
  ])('confirming %s with %s → %s', (password, confirm, want) => {
    expect(checkConfirm(password)(confirm)).toBe(want);
  });

  it.each([
    ['Old0Passw0rd', 'Old0Passw0rd', `${V}passwordSame`],
    ['Old0Passw0rd', 'New0Passw0rd', null],
    ['Old0Passw0rd', '', null],
  ])('old %s, new %s → %s', (old, next, want) => {
    expect(checkNotSame(old)(next)).toBe(want);
  });
});
