import { describe, expect, it } from 'vitest';
import { checkReason } from './reason';

describe('checkReason', () => {
  it.each([
    [undefined, 'identity.reject.required'],
    ['', 'identity.reject.required'],
    ['   ', 'identity.reject.required'],
    ['糊', 'identity.reject.length'],
    [' a ', 'identity.reject.length'],
    ['照片模糊', null],
    ['x'.repeat(200), null],
    ['x'.repeat(201), 'identity.reject.length'],
  ])('%j → %s', (value, expected) => {
    expect(checkReason(value)).toBe(expected);
  });
});
