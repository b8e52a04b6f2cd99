export type Greeting = 'morning' | 'forenoon' | 'noon' | 'afternoon' | 'evening';

/** SPEC §4: before 8 morning, up to 11 forenoon, up to 13 noon, before 18 afternoon, otherwise evening. */
export function greetingForHour(hour: number): Greeting {
  if (hour < 8) return 'morning';
  if (hour <= 11) return 'forenoon';
  if (hour <= 13) return 'noon';
  if (hour < 18) return 'afternoon';
  return 'evening';
}

export const greetingNow = (now: Date = new Date()): Greeting => greetingForHour(now.getHours());
