import { describe, expect, it } from 'vitest';
import { RequestError } from '@/lib/request';
import { serverFieldErrors, toFormFieldErrors } from './field-errors';

const t = (key: string) => `T(${key})`;
const rejected = (fields: unknown) => new RequestError('bad', 400, 400, { fields });

describe('server field errors', () => {
  it('reads the fields of a rejected call', () => {
    expect(serverFieldErrors(rejected([{ field: 'email', message: 'x' }, { nope: 1 }]))).toEqual([
      { field: 'email', message: 'x' },
    ]);
    expect(serverFieldErrors(new RequestError('down', null, null))).toEqual([]);
    expect(serverFieldErrors('boom')).toEqual([]);
  });

  it.each([
    [
      [{ field: 'email', message: 'must be a valid e-mail address', key: 'rule.email' }],
      [{ name: 'email', errors: ['T(user.validation.email)'] }],
    ],
    [
      [{ field: 'oldPassword', message: 'the old password is wrong', key: 'auth.oldPasswordWrong' }],
      [{ name: 'oldPassword', errors: ['T(user.validation.oldPasswordWrong)'] }],
    ],
    [[{ field: 'body.nickname', message: 'something new' }], [{ name: 'nickname', errors: ['something new'] }]],
    [[{ field: 'username', message: 'this user name is taken', key: 'auth.usernameTaken' }], []],
  ])('puts %j on the form as %j', (fields, want) => {
    expect(toFormFieldErrors(rejected(fields), ['email', 'nickname', 'oldPassword'] as const, t)).toEqual(want);
  });
});
