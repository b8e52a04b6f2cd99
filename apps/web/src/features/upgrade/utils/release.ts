import type { ReleaseItem, ReleaseState } from '@cpc/contracts/upgrade';
import type { ReleaseAction } from '../api/upgrade';

/** The actions a release in this state offers. */
export function actionsFor(state: ReleaseState, failed: number): ReleaseAction[] {
  const out: ReleaseAction[] = [];
  if (state === 'waiting') out.push('promote');
  if (state === 'running' || state === 'waiting') out.push('pause');
  if (state === 'paused') out.push('resume');
  if (failed > 0 && state !== 'canceled') out.push('retry');
  if (state !== 'completed' && state !== 'canceled') out.push('cancel');
  return out;
}

/** Share of the release's devices that finished (verified, failed, canceled, skipped), in whole percent. */
export function percentDone(r: Pick<ReleaseItem, 'total' | 'counts'>): number {
  if (!r.total) return 0;
  const done = r.counts.verified + r.counts.failed + r.counts.canceled + r.counts.skipped;
  return Math.floor((done / r.total) * 100);
}

export const RELEASE_STATE_COLOR: Record<ReleaseState, string> = {
  running: 'processing',
  waiting: 'warning',
  paused: 'default',
  halted: 'error',
  completed: 'success',
  canceled: 'default',
};

/** "hh:mm" of now plus `hours` (the default maintenance window suggestion starts at 02:00). */
export const DEFAULT_WINDOW = { start: '02:00', end: '05:00' };
