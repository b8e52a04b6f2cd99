import { describe, expect, it } from 'vitest';
import { actionsFor, percentDone } from './release';

const counts = {
  queued: 0,
  downloading: 0,
  downloaded: 0,
  installing: 0,
  rebooting: 0,
  verified: 0,
  failed: 0,
  canceled: 0,
  skipped: 0,
};

describe('release helpers', () => {
  it('offers the actions of each state', () => {
    expect(actionsFor('waiting', 0)).toEqual(['promote', 'pause', 'cancel']);
    expect(actionsFor('halted', 3)).toEqual(['retry', 'cancel']);
    expect(actionsFor('paused', 0)).toEqual(['resume', 'cancel']);
    expect(actionsFor('completed', 2)).toEqual(['retry']);
    expect(actionsFor('canceled', 2)).toEqual([]);
  });

  it('counts finished devices as done', () => {
    expect(percentDone({ total: 0, counts })).toBe(0);
    expect(percentDone({ total: 8, counts: { ...counts, verified: 3, failed: 1, queued: 4 } })).toBe(50);
  });
});
