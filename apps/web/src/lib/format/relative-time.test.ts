import { describe, expect, it } from 'vitest';
import { fileStamp, formatDateTime, formatRelativeTime, formatSeconds } from './relative-time';

const NOW = new Date(2024, 5, 15, 12, 0, 0).getTime();
const ago = (s: number) => NOW - s * 1000;

describe('formatRelativeTime', () => {
  it.each([
    // seconds ago, zh, en
    [0, '刚刚', 'just now'],
    [29.9, '刚刚', 'just now'],
    [-600, '刚刚', 'just now'],
    [30, '1 分钟前', '1 minute ago'],
    [60, '1 分钟前', '1 minute ago'],
    [119, '1 分钟前', '1 minute ago'],
    [120, '2 分钟前', '2 minutes ago'],
    [45 * 60 + 30, '45 分钟前', '45 minutes ago'],
    [3599, '59 分钟前', '59 minutes ago'],
    [3600, '1 小时前', '1 hour ago'],
    [2 * 3600 - 1, '1 小时前', '1 hour ago'],
    [2 * 3600, '2 小时前', '2 hours ago'],
    [24 * 3600 - 1, '23 小时前', '23 hours ago'],
    [24 * 3600, '1 天前', '1 day ago'],
    [47 * 3600 + 3599, '1 天前', '1 day ago'],
    [48 * 3600, '2024-06-13 12:00', '2024-06-13 12:00'],
    [400 * 24 * 3600, '2023-05-12 12:00', '2023-05-12 12:00'],
  ])('%s s ago reads %s / %s', (seconds, zh, en) => {
    expect(formatRelativeTime(ago(seconds), 'zh', NOW)).toBe(zh);
    expect(formatRelativeTime(ago(seconds), 'en', NOW)).toBe(en);
  });

  it.each([
    [new Date(ago(120)), '2 minutes ago'],
    [new Date(ago(120)).toISOString(), '2 minutes ago'],
    ['not a date', '-'],
    [Number.NaN, '-'],
  ])('reads %s as %s', (input, want) => {
    expect(formatRelativeTime(input, 'en', NOW)).toBe(want);
  });
});

describe('formatDateTime', () => {
  it.each([
    [new Date(2024, 0, 2, 3, 4, 5), '2024-01-02 03:04'],
    [new Date(2024, 11, 31, 23, 59, 59), '2024-12-31 23:59'],
    ['garbage', '-'],
  ])('%s → %s', (input, want) => expect(formatDateTime(input)).toBe(want));
});

describe('formatSeconds', () => {
  it.each([
    [new Date(2024, 4, 1, 9, 3, 5), '2024-05-01 09:03:05'],
    [null, '-'],
    [undefined, '-'],
    ['', '-'],
    ['not a date', '-'],
  ])('%s → %s', (input, want) => expect(formatSeconds(input)).toBe(want));
});

describe('fileStamp', () => {
  it('sorts as text and holds the seconds', () =>
    expect(fileStamp(new Date(2024, 11, 31, 23, 59, 7))).toBe('20241231-235907'));
});
