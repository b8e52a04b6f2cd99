/** BCP 47 tag of a console language, for Intl formatting (24-hour clock in both). */
export const localeOf = (language: string): string => (language === 'zh' ? 'zh-CN' : 'en-GB');

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * SPEC §9's relative time: under 30 s "just now", then minutes, then hours, then "1 day ago" up to 48 h;
 * older than that, the date itself.
 */
export function relativeTime(when: Date | string, now: Date, language: string, justNow: string): string {
  const date = typeof when === 'string' ? new Date(when) : when;
  const diff = now.getTime() - date.getTime();
  const locale = localeOf(language);
  // a clock a little ahead of the server's is still "just now"
  if (diff < 30 * SECOND) return justNow;
  if (diff < 48 * HOUR && typeof Intl.RelativeTimeFormat === 'function') {
    const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
    if (diff < HOUR) return rtf.format(-Math.max(1, Math.floor(diff / MINUTE)), 'minute');
    if (diff < 24 * HOUR) return rtf.format(-Math.floor(diff / HOUR), 'hour');
    return rtf.format(-1, 'day');
  }
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(date);
}
