import { useEffect, useState } from 'react';

/** The clock of SPEC §9: the current time, refreshed every second. */
export const CLOCK_INTERVAL = 1000;

export function useNow(interval = CLOCK_INTERVAL): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), interval);
    return () => clearInterval(id);
  }, [interval]);
  return now;
}
