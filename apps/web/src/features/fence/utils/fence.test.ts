import { describe, expect, it } from 'vitest';
import { dwellText, formFieldOf, scheduleOf, scheduleText, scheduleValues } from './fence';

const t = (key: string, o?: Record<string, unknown>) => (o ? `${key}${JSON.stringify(o)}` : key);

describe('schedule text', () => {
  it('says always', () => {
    expect(scheduleText({ kind: 'always' }, t)).toBe('fence.schedule.always');
  });
  it('joins a run of weekdays into a range', () => {
    expect(scheduleText({ kind: 'weekly', days: [5, 1, 2, 3, 4], from: '09:00', to: '18:00' }, t)).toBe(
      'fence.weekday.1–fence.weekday.5 09:00–18:00',
    );
  });
  it('lists scattered days and marks hours over midnight', () => {
    expect(scheduleText({ kind: 'weekly', days: [6, 7], from: '22:00', to: '06:00' }, t)).toBe(
      'fence.weekday.6fence.schedule.separatorfence.weekday.7 22:00–06:00fence.schedule.nextDay',
    );
  });
  it('says all day when from equals to', () => {
    expect(scheduleText({ kind: 'weekly', days: [1], from: '00:00', to: '00:00' }, t)).toBe(
      'fence.weekday.1 fence.schedule.allDay',
    );
  });
});

describe('schedule form', () => {
  it('round-trips a weekly schedule', () => {
    const weekly = { kind: 'weekly' as const, days: [1, 3, 5], from: '08:30', to: '17:45' };
    expect(scheduleOf(scheduleValues(weekly))).toEqual(weekly);
  });
  it('sends always without the hidden days and hours', () => {
    expect(scheduleOf({ scheduleKind: 'always', days: [1], from: '09:00', to: '10:00' })).toEqual({ kind: 'always' });
  });
  it('sorts and de-duplicates days', () => {
    expect(scheduleOf({ scheduleKind: 'weekly', days: [3, 1, 3], from: '09:00', to: '10:00' })).toEqual({
      kind: 'weekly',
      days: [1, 3],
      from: '09:00',
      to: '10:00',
    });
  });
});

describe('dwell text', () => {
  it('says minutes and seconds', () => {
    expect(dwellText(0, t)).toBe('fence.dwell.none');
    expect(dwellText(45, t)).toBe('fence.dwell.sec{"s":45}');
    expect(dwellText(120, t)).toBe('fence.dwell.min{"m":2}');
    expect(dwellText(90, t)).toBe('fence.dwell.minSec{"m":1,"s":30}');
  });
});

describe('server field errors', () => {
  it('puts shape errors under the map and schedule errors next to their inputs', () => {
    expect(formFieldOf('shape.ring')).toBe('shape');
    expect(formFieldOf('shape')).toBe('shape');
    expect(formFieldOf('schedule.from')).toBe('from');
    expect(formFieldOf('schedule.tz')).toBe('days');
    expect(formFieldOf('deviceIds')).toBe('deviceIds');
    expect(formFieldOf('version')).toBeNull();
    expect(formFieldOf('somethingElse')).toBeNull();
  });
});
