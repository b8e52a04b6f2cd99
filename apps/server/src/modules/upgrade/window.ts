import { DEFAULT_TIME_ZONE } from '@cpc/contracts/device-constants';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes since midnight in `zone` (an unknown or empty zone: the platform's default), at `at`. */
export function minuteOfDay(zone: string, at: Date): number {
  const z = zone || DEFAULT_TIME_ZONE;
  let f = formatters.get(z);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-GB', { timeZone: z, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    } catch {
      return minuteOfDay(DEFAULT_TIME_ZONE, at);
    }
    formatters.set(z, f);
  }
  const parts = f.formatToParts(at);
  const h = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const m = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return h * 60 + m;
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether `at` falls inside [start, end) of a device's day in `zone`; an end before the start spans midnight. */
export function inWindow(window: { start: string; end: string } | null, zone: string, at: Date): boolean {
  if (!window) return true;
  const s = toMinutes(window.start);
  const e = toMinutes(window.end);
  const m = minuteOfDay(zone, at);
  if (s === e) return true;
  return s < e ? m >= s && m < e : m >= s || m < e;
}
