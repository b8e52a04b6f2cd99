import { describe, expect, it } from 'vitest';
import { percentShown, undeliveredCount } from './progress';

const counts = { queued: 1, sent: 1, delivered: 1, displayed: 4, clicked: 2, expired: 0, failed: 1 };

describe('push progress', () => {
  it('counts displayed and clicked as shown', () => {
    expect(percentShown({ total: 10, counts })).toBe(60);
    expect(percentShown({ total: 0, counts: { ...counts, displayed: 0, clicked: 0 } })).toBe(0);
  });
  it('counts queued, sent, expired and failed as undelivered (delivered is on its way to the screen)', () => {
    expect(undeliveredCount(counts)).toBe(3);
  });
});
