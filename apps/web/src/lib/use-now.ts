import { useEffect, useState } from 'react';

/** The clock of SPEC §9 (header, lock screen): the current time, refreshed every second. */
export const CLOCK_INTERVAL = 1000;
/** "3 minutes ago" in lists and drawers: counting on while a page is open, without a render a second. */
export const RELATIVE_TIME_INTERVAL = 30_000;

/** The current time in ms since the epoch, refreshed every `interval` ms (and when the interval changes). */
export function useNow(interval: number = CLOCK_INTERVAL): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), interval);
    return () => clearInterval(id);
  }, [interval]);
  return now;
}
