/**
 * How far this month's jobs are towards the target, in whole percent, rounded down (100 only once reached; past
 * it, more than 100). Null without a target.
 */
export function targetPercent(jobs: number, target: number | null): number | null {
  if (target === null || target <= 0) return null;
  return Math.floor((jobs / target) * 100);
}
