import { useCallback, useEffect, useState } from 'react';
import { countdownEnd, secondsLeft } from '../utils/countdown';

/**
 * A seconds countdown for "resend in N s". It reads the clock on every tick instead of decrementing a
 * counter, so a throttled background tab still ends on time.
 */
export function useCountdown(): {
  remaining: number;
  running: boolean;
  start: (seconds: number) => void;
  stop: () => void;
} {
  const [endAt, setEndAt] = useState(0);
  const [remaining, setRemaining] = useState(0);

  useEffect(() => {
    if (!endAt) return;
    const tick = () => {
      const left = secondsLeft(endAt, Date.now());
      setRemaining(left);
      if (left === 0) setEndAt(0);
    };
    tick();
    const id = window.setInterval(tick, 250);
    return () => window.clearInterval(id);
  }, [endAt]);

  const start = useCallback((seconds: number) => {
    const end = countdownEnd(seconds, Date.now());
    setRemaining(secondsLeft(end, Date.now()));
    setEndAt(end > Date.now() ? end : 0);
  }, []);

  const stop = useCallback(() => {
    setEndAt(0);
    setRemaining(0);
  }, []);

  return { remaining, running: remaining > 0, start, stop };
}
