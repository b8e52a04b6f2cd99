import { describe, expect, it } from 'vitest';
import { formatSize } from './size';

const KB = 1024;
const MB = KB * 1024;
const GB = MB * 1024;
const TB = GB * 1024;
const PB = TB * 1024;

describe('formatSize', () => {
  it.each([
    [0, '0 B'],
    [1, '1 B'],
    [1023, '1023 B'],
    [KB, '1 KB'],
    [1536, '1.5 KB'],
    [1234567, '1.18 MB'],
    [MB - 1, '1 MB'],
    [10 * MB, '10 MB'],
    [1.25 * GB, '1.25 GB'],
    [3 * TB, '3 TB'],
    [PB, '1 PB'],
    [2048 * PB, '2048 PB'],
  ])('%s bytes → %s', (bytes, want) => expect(formatSize(bytes)).toBe(want));

  it.each([
    [1234567, 0, '1 MB'],
    [1234567, 1, '1.2 MB'],
    [1234567, 3, '1.177 MB'],
  ])('%s bytes with %s decimals → %s', (bytes, decimals, want) => expect(formatSize(bytes, decimals)).toBe(want));

  it.each([[-1], [Number.NaN], [Number.POSITIVE_INFINITY], ['12' as unknown as number]])('%s → -', (bad) =>
    expect(formatSize(bad)).toBe('-'),
  );
});
