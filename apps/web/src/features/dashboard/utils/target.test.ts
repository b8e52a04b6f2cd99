import { describe, expect, it } from 'vitest';
import { targetPercent } from './target';

describe('targetPercent', () => {
  it('rounds down so 100 % means reached, and goes past 100', () => {
    expect(targetPercent(0, 200)).toBe(0);
    expect(targetPercent(5, 200)).toBe(2);
    expect(targetPercent(199, 200)).toBe(99);
    expect(targetPercent(200, 200)).toBe(100);
    expect(targetPercent(300, 200)).toBe(150);
  });

  it('has no percent without a target', () => {
    expect(targetPercent(10, null)).toBeNull();
  });
});
