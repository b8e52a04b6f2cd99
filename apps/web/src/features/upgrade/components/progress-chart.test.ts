import { describe, expect, it } from 'vitest';
import { chartPoints } from './progress-chart';

const counts = {
  queued: 5,
  downloading: 2,
  downloaded: 0,
  installing: 1,
  rebooting: 0,
  verified: 3,
  failed: 1,
  canceled: 0,
  skipped: 0,
};

describe('release progress chart', () => {
  it('ends the server timeline with now and the devices under way', () => {
    const timeline = [
      { at: '2026-11-26T10:00:00.000Z', verified: 0, failed: 0 },
      { at: '2026-11-26T10:01:00.000Z', verified: 3, failed: 1 },
    ];
    const now = Date.parse('2026-11-26T10:02:00.000Z');
    const points = chartPoints({ timeline, counts, finishedAt: null }, now);
    expect(points).toHaveLength(3);
    expect(points.at(-1)).toEqual({ at: now, verified: 3, failed: 1, active: 3 });
  });

  it('stops at the finish of a finished release', () => {
    const timeline = [{ at: '2026-11-26T10:00:00.000Z', verified: 0, failed: 0 }];
    const done = { ...counts, queued: 0, downloading: 0, installing: 0, verified: 9 };
    const points = chartPoints({ timeline, counts: done, finishedAt: '2026-11-26T10:05:00.000Z' }, Date.now());
    expect(points.at(-1)).toMatchObject({ verified: 9, active: 0, at: Date.parse('2026-11-26T10:05:00.000Z') });
  });
});
