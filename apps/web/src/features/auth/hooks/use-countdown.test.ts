// @vitest-environment jsdom
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countdownEnd, secondsLeft } from '../utils/countdown';
import { useCountdown } from './use-countdown';

describe('countdown arithmetic', () => {
  it.each([
    [60_000, 0, 60],
    [60_000, 1, 60],
    [60_000, 59_001, 1],
    [60_000, 59_999, 1],
    [60_000, 60_000, 0],
    [60_000, 90_000, 0],
  ])('end %i at %i → %i s', (end, now, expected) => {
    expect(secondsLeft(end, now)).toBe(expected);
  });

  it.each([
    [60, 1000, 61_000],
    [0, 1000, 1000],
    [-5, 1000, 1000],
    [Number.NaN, 1000, 1000],
  ])('%d s from %i ends at %i', (seconds, now, expected) => {
    expect(countdownEnd(seconds, now)).toBe(expected);
  });
});

describe('useCountdown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date(2024, 0, 1, 10, 0, 0));
  });
  afterEach(() => vi.useRealTimers());

  it('counts down the given seconds and stops at zero', () => {
    const { result } = renderHook(() => useCountdown());
    expect(result.current.running).toBe(false);

    act(() => result.current.start(3));
    expect(result.current.remaining).toBe(3);
    expect(result.current.running).toBe(true);

    act(() => void vi.advanceTimersByTime(1000));
    expect(result.current.remaining).toBe(2);

    act(() => void vi.advanceTimersByTime(2000));
    expect(result.current.remaining).toBe(0);
    expect(result.current.running).toBe(false);

    // nothing keeps ticking once it is over
    act(() => void vi.advanceTimersByTime(5000));
    expect(result.current.remaining).toBe(0);
  });

  it('can be restarted and stopped', () => {
    const { result } = renderHook(() => useCountdown());
    act(() => result.current.start(60));
    act(() => void vi.advanceTimersByTime(10_000));
    expect(result.current.remaining).toBe(50);
    act(() => result.current.stop());
    expect(result.current.running).toBe(false);
    act(() => result.current.start(5));
    expect(result.current.remaining).toBe(5);
  });

  it('ignores a zero-length countdown', () => {
    const { result } = renderHook(() => useCountdown());
    act(() => result.current.start(0));
    expect(result.current.running).toBe(false);
  });
});
