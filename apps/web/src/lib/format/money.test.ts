import { describe, expect, it } from 'vitest';
import { fenToYuan, yuanToFen } from '@cpc/contracts/order';
import { formatFen, formatMb } from './money';

describe('money', () => {
  it.each([
    [0, '¥0.00'],
    [1, '¥0.01'],
    [10, '¥0.10'],
    [1990, '¥19.90'],
    [123456789, '¥1234567.89'],
    [-250, '¥-2.50'],
  ])('formats %i fen as %s', (fen, text) => {
    expect(formatFen(fen)).toBe(text);
  });

  it('adds without floating point errors: 0.10 + 0.20 is 0.30', () => {
    expect(formatFen(10 + 20)).toBe('¥0.30');
    expect(formatFen(3 * 1990)).toBe('¥59.70');
  });

  it.each([
    ['12.34', 1234],
    ['12.3', 1230],
    ['12', 1200],
    ['0.01', 1],
    ['1.005', null],
    ['-1', null],
    ['abc', null],
  ])('reads the yuan string %s as %s fen', (yuan, fen) => {
    expect(yuanToFen(yuan)).toBe(fen);
    if (fen != null) expect(fenToYuan(fen)).toBe(Number(yuan).toFixed(2));
  });

  it('says data in MB below 1 GB and in GB from there', () => {
    expect(formatMb(500)).toBe('500 MB');
    expect(formatMb(1024)).toBe('1 GB');
    expect(formatMb(1536)).toBe('1.5 GB');
    expect(formatMb(80.5)).toBe('80.5 MB');
  });
});
