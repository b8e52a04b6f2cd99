import { useEffect, useState } from 'react';

/** The current time, refreshed every `interval` ms, so "3 minutes ago" keeps counting while a page is open. */
export function useNow(interval = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    const id = setInterval(() => setNow(Date.now()), interval);
    return () => clearInterval(id);
  }, [interval]);
  return now;
}
