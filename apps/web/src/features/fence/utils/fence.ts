import type { FenceAlertOn, FenceSchedule, FenceSide } from '@cpc/contracts/fence';

/** A fence is drawn in the colour of its rule: leaving, entering, both. */
export const RULE_COLORS: Record<FenceAlertOn, string> = {
  leave: '#fa541c',
  enter: '#1677ff',
  both: '#722ed1',
};

/** A device on the map in the colour of its side of the selected fence. */
export const SIDE_COLORS: Record<FenceSide, string> = {
  inside: '#52c41a',
  outside: '#ff4d4f',
  unknown: '#8c8c8c',
};

export const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7] as const;

type T = (key: string, options?: Record<string, unknown>) => string;

/** "Always", or "Mon–Fri 09:00–18:00", "Sat, Sun 22:00–06:00 (next day)". */
export function scheduleText(schedule: FenceSchedule, t: T): string {
  if (schedule.kind === 'always') return t('fence.schedule.always');
  const days = [...schedule.days].sort((a, b) => a - b);
  const run = days.length > 2 && days.every((d, i) => i === 0 || d === days[i - 1] + 1);
  const dayText = run
    ? `${t(`fence.weekday.${days[0]}`)}–${t(`fence.weekday.${days[days.length - 1]}`)}`
    : days.map((d) => t(`fence.weekday.${d}`)).join(t('fence.schedule.separator'));
  const hours =
    schedule.from === schedule.to
      ? t('fence.schedule.allDay')
      : `${schedule.from}–${schedule.to}${schedule.to < schedule.from ? t('fence.schedule.nextDay') : ''}`;
  return `${dayText} ${hours}`;
}

/** The schedule part of the editor's form. */
export interface ScheduleValues {
  scheduleKind: 'always' | 'weekly';
  days: number[];
  from: string;
  to: string;
}

export const DEFAULT_SCHEDULE_VALUES: ScheduleValues = {
  scheduleKind: 'always',
  days: [1, 2, 3, 4, 5],
  from: '09:00',
  to: '18:00',
};

export function scheduleValues(schedule: FenceSchedule): ScheduleValues {
  return schedule.kind === 'always'
    ? DEFAULT_SCHEDULE_VALUES
    : { scheduleKind: 'weekly', days: [...schedule.days].sort((a, b) => a - b), from: schedule.from, to: schedule.to };
}

/** The form's schedule as the API takes it (the zone stays the server's default, Asia/Shanghai). */
export function scheduleOf(values: ScheduleValues, tz?: string): FenceSchedule {
  if (values.scheduleKind === 'always') return { kind: 'always' };
  return {
    kind: 'weekly',
    days: [...new Set(values.days)].sort((a, b) => a - b),
    from: values.from,
    to: values.to,
    ...(tz ? { tz } : {}),
  };
}

/** "1 min 30 s" style dwell text. */
export function dwellText(seconds: number, t: T): string {
  if (seconds === 0) return t('fence.dwell.none');
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  if (m && s) return t('fence.dwell.minSec', { m, s });
  return m ? t('fence.dwell.min', { m }) : t('fence.dwell.sec', { s });
}

const FORM_FIELDS = ['name', 'shape', 'alertOn', 'dwellS', 'enabled', 'deviceIds', 'groupIds', 'days', 'from', 'to'];

/** Where a server's field error is shown: `schedule.days` next to the days, `shape.ring` under the map. */
export function formFieldOf(field: string): string | null {
  const [head, sub] = field.split('.');
  if (head === 'schedule') return sub === 'days' || sub === 'from' || sub === 'to' ? sub : 'days';
  if (head === 'id' || head === 'version') return null;
  return FORM_FIELDS.includes(head) ? head : null;
}
