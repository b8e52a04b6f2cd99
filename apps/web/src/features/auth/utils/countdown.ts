/** Whole seconds left until `endAt` (ms), never negative; rounding up so "1 s" shows until the very end. */
export function secondsLeft(endAt: number, now: number): number {
  return Math.max(0, Math.ceil((endAt - now) / 1000));
}

/** When a countdown of `seconds` started at `now` ends; a non-positive or invalid length ends at once. */
export function countdownEnd(seconds: number, now: number): number {
  return now + (Number.isFinite(seconds) && seconds > 0 ? seconds : 0) * 1000;
}
