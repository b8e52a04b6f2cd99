import dayjs from 'dayjs';
import type { Language } from '../../config/settings';

/** SPEC §9: under this many seconds a time reads "just now". */
export const JUST_NOW_SECONDS = 30;
/** SPEC §9: up to this many hours a time reads "1 day ago"; older ones show their date. */
export const ONE_DAY_UNTIL_HOURS = 48;

interface Phrases {
  justNow: string;
  minutes: (n: number) => string;
  hours: (n: number) => string;
  oneDay: string;
}

// A helper for tables and lists in every feature, so its two languages travel with it rather than with a feature.
const PHRASES: Record<Language, Phrases> = {
  zh: {
    justNow: '刚刚',
    minutes: (n) => `${n} 分钟前`,
    hours: (n) => `${n} 小时前`,
    oneDay: '1 天前',
  },
  en: {
    justNow: 'just now',
    minutes: (n) => (n === 1 ? '1 minute ago' : `${n} minutes ago`),
    hours: (n) => (n === 1 ? '1 hour ago' : `${n} hours ago`),
    oneDay: '1 day ago',
  },
};

/** `YYYY-MM-DD HH:mm` in local time: one unambiguous form for both languages. */
export function formatDateTime(time: Date | number | string): string {
  const d = dayjs(time);
  return d.isValid() ? d.format('YYYY-MM-DD HH:mm') : '-';
}

/** `YYYY-MM-DD` in local time ('-' for an invalid date): where the day is what matters (a plan's expiry). */
export function formatDate(time: Date | number | string): string {
  const d = dayjs(time);
  return d.isValid() ? d.format('YYYY-MM-DD') : '-';
}

/** `YYYY-MM-DD HH:mm:ss` in local time, '-' for none: logs and job times need the seconds. */
export function formatSeconds(time: Date | number | string | null | undefined): string {
  if (time === null || time === undefined || time === '') return '-';
  const d = dayjs(time);
  return d.isValid() ? d.format('YYYY-MM-DD HH:mm:ss') : '-';
}

/** `20240501-093005`: a moment in a file name, sortable, so that downloads of a day never overwrite each other. */
export const fileStamp = (at: Date): string => dayjs(at).format('YYYYMMDD-HHmmss');

/**
 * How long ago `time` was (SPEC §9), counting whole units elapsed as a reader expects:
 * - under 30 s, or in the future (clock skew): "just now";
 * - under 1 h: "N minutes ago", N = ⌊seconds / 60⌋ but at least 1 (30 s → 1, 59 min 59 s → 59);
 * - under 24 h: "N hours ago", N = ⌊seconds / 3600⌋ (1 h → 1, 23 h 59 min → 23);
 * - under 48 h: "1 day ago";
 * - otherwise the date and time, `YYYY-MM-DD HH:mm`. An unreadable time gives '-'.
 */
export function formatRelativeTime(time: Date | number | string, lang: Language, now: number = Date.now()): string {
  const at = (time instanceof Date ? time : new Date(time)).getTime();
  if (Number.isNaN(at)) return '-';
  const seconds = (now - at) / 1000;
  const p = PHRASES[lang] ?? PHRASES.zh;
  if (seconds < JUST_NOW_SECONDS) return p.justNow;
  if (seconds < 3600) return p.minutes(Math.max(1, Math.floor(seconds / 60)));
  if (seconds < 24 * 3600) return p.hours(Math.floor(seconds / 3600));
  if (seconds < ONE_DAY_UNTIL_HOURS * 3600) return p.oneDay;
  return formatDateTime(at);
}
