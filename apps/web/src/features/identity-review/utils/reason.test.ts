import { describe, expect, it } from 'vitest';
import { checkReason } from './reason';

describe('checkReason', () => {
  it.each([
    [undefined, 'identityReview.reject.required'],
    ['', 'identityReview.reject.required'],
    ['   ', 'identityReview.reject.required'],
    ['糊', 'identityReview.reject.length'],
    [' a ', 'identityReview.reject.length'],
    ['照片模糊', null],
    ['x'.repeat(200), null],
    ['x'.repeat(201), 'identityReview.reject.length'],
  ])('%j → %s', (value, expected) => {
    expect(checkReason(value)).toBe(expected);
  });
});
