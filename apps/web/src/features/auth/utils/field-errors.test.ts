import { describe, expect, it } from 'vitest';
import { serverFieldErrors, toFormFieldErrors } from './field-errors';

const fields = [
  { field: 'mobile', message: 'must be 11 digits starting with 1', key: 'rule.mobile' },
  { field: 'username', message: 'user name already taken' },
  { field: 'body.confirmPassword', message: 'the two passwords do not match', key: 'rule.passwordMismatch' },
  { field: 'other', message: 'ignored' },
];

describe('serverFieldErrors', () => {
  it.each([
    ['the rejected error carries data', { code: 400, msg: 'x', data: { fields } }],
    ['the envelope itself', { code: 400, fields }],
    ['an axios error', { response: { data: { code: 400, msg: 'x', data: { fields } } } }],
    ['a wrapped envelope', { envelope: { code: 400, data: { fields } } }],
  ])('finds them when %s', (_label, err) => {
    expect(serverFieldErrors(err)).toHaveLength(4);
  });

  it.each([[undefined], [null], ['boom'], [new Error('x')], [{ data: { fields: 'nope' } }]])('none in %j', (err) => {
    expect(serverFieldErrors(err)).toEqual([]);
  });
});

describe('toFormFieldErrors', () => {
  const t = (k: string) => `T(${k})`;
  it('translates known messages, keeps unknown ones and drops fields the form lacks', () => {
    const out = toFormFieldErrors({ data: { fields } }, ['username', 'mobile', 'confirmPassword'], t);
    expect(out).toEqual([
      { name: 'mobile', errors: ['T(auth.validation.mobile)'] },
      { name: 'username', errors: ['user name already taken'] },
      { name: 'confirmPassword', errors: ['T(auth.validation.passwordMismatch)'] },
    ]);
  });
});
