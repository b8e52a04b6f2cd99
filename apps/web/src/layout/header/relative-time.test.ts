import { describe, expect, it } from 'vitest';
import { relativeTime } from './relative-time';

const now = new Date('2026-03-10T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('relativeTime (SPEC §9)', () => {
  it.each([
    [0, 'just now', '刚刚'],
    [29 * S, 'just now', '刚刚'],
    [-5 * S, 'just now', '刚刚'],
    [45 * S, '1 minute ago', '1分钟前'],
    [5 * M, '5 minutes ago', '5分钟前'],
    [3 * H, '3 hours ago', '3小时前'],
    [30 * H, '1 day ago', '1天前'],
  ])('%i ms ago reads "%s" / "%s"', (ms, en, zh) => {
    expect(relativeTime(ago(ms), now, 'en', 'just now')).toBe(en);
    expect(relativeTime(ago(ms), now, 'zh', '刚刚')).toBe(zh);
  });

  it('gives the date itself after 48 hours', () => {
    expect(relativeTime(ago(72 * H), now, 'en', 'just now')).toBe('7 Mar 2026');
    expect(relativeTime(ago(72 * H), now, 'zh', '刚刚')).toBe('2026年3月7日');
  });
});
