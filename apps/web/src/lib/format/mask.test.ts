import { describe, expect, it } from 'vitest';
import { maskCreditCode, maskIdNumber, maskMiddle } from './mask';

describe('masking identifiers', () => {
  it.each([
    [maskIdNumber, '11010519491231002X', '110105********002X'],
    [maskCreditCode, '91350100M000100Y43', '9135**********0Y43'],
    [maskIdNumber, null, '-'],
    [maskIdNumber, '', '-'],
  ] as const)('%#: %s → %s', (fn, input, expected) => {
    expect(fn(input)).toBe(expected);
  });

  it.each([
    ['ab', 6, 4, '**'],
    ['abcdefgh', 6, 4, 'ab****gh'],
    ['abcd', 6, 4, 'a**d'],
  ])('short value %s keeps only its ends', (input, head, tail, expected) => {
    expect(maskMiddle(input, head, tail)).toBe(expected);
  });

  it('never reveals more than head + tail characters', () => {
    const masked = maskIdNumber('440308199901010012');
    expect(masked.replace(/\*/g, '')).toHaveLength(10);
    expect(masked).toHaveLength(18);
  });
});
