import { describe, expect, it } from 'vitest';
import { greetingForHour, greetingNow, type Greeting } from './greeting';

describe('greetingForHour', () => {
  const cases: Array<[number, Greeting]> = [
    [0, 'morning'],
    [7, 'morning'],
    [8, 'forenoon'],
    [11, 'forenoon'],
    [12, 'noon'],
    [13, 'noon'],
    [14, 'afternoon'],
    [17, 'afternoon'],
    [18, 'evening'],
    [23, 'evening'],
  ];
  it.each(cases)('hour %i → %s', (hour, expected) => {
    expect(greetingForHour(hour)).toBe(expected);
  });

  it('reads the local hour of a date', () => {
    expect(greetingNow(new Date(2024, 0, 1, 12, 59))).toBe('noon');
    expect(greetingNow(new Date(2024, 0, 1, 7, 59))).toBe('morning');
  });
});
