import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLOCK_INTERVAL, RELATIVE_TIME_INTERVAL, useNow } from './use-now';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2024-05-01T09:30:00Z'));
});
afterEach(() => vi.useRealTimers());

describe('useNow', () => {
  it('ticks every second for the clock (SPEC §9)', () => {
    expect(CLOCK_INTERVAL).toBe(1000);
    const start = Date.now();
    const { result } = renderHook(() => useNow());
    expect(result.current).toBe(start);
    act(() => {
      vi.advanceTimersByTime(999);
    });
    expect(result.current).toBe(start);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(result.current).toBe(start + 1000);
  });

  it('ticks at the interval asked for, and stops when unmounted', () => {
    const start = Date.now();
    const { result, unmount } = renderHook(() => useNow(RELATIVE_TIME_INTERVAL));
    act(() => {
      vi.advanceTimersByTime(RELATIVE_TIME_INTERVAL - 1);
    });
    expect(result.current).toBe(start);
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(result.current).toBe(start + RELATIVE_TIME_INTERVAL);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('follows a new interval from the moment it changes', () => {
    const start = Date.now();
    const { result, rerender } = renderHook(({ ms }) => useNow(ms), { initialProps: { ms: 60_000 } });
    act(() => {
      vi.advanceTimersByTime(5000);
    });
    expect(result.current).toBe(start);
    rerender({ ms: 1000 });
    expect(result.current).toBe(start + 5000);
    act(() => {
      vi.advanceTimersByTime(1000);
    });
    expect(result.current).toBe(start + 6000);
  });
});
