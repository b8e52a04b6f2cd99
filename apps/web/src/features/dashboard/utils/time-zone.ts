import { isTimeZone } from '@cpc/contracts/device-constants';

/**
 * The browser's IANA zone, so "today" and "this month" on the dashboard are the user's own days. Undefined
 * when the browser names none the server would take (it then counts in its default, Asia/Shanghai).
 */
export function browserTimeZone(): string | undefined {
  try {
    const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return tz && isTimeZone(tz) ? tz : undefined;
  } catch {
    return undefined;
  }
}
