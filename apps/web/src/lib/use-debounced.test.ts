import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SEARCH_DEBOUNCE } from '../layout/header/search-button';
import { useDebounced } from './use-debounced';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('useDebounced', () => {
  it('is 500 ms for the menu search (SPEC §9)', () => {
    expect(SEARCH_DEBOUNCE).toBe(500);
  });

  it('follows the typing only after the pause, and a keystroke in the pause starts it again', () => {
    const { result, rerender } = renderHook(({ v }) => useDebounced(v, SEARCH_DEBOUNCE), { initialProps: { v: '' } });
    rerender({ v: 'd' });
    act(() => {
      vi.advanceTimersByTime(SEARCH_DEBOUNCE - 1);
    });
    expect(result.current).toBe('');
    rerender({ v: 'de' });
    act(() => {
      vi.advanceTimersByTime(SEARCH_DEBOUNCE - 1);
    });
    expect(result.current).toBe('');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(result.current).toBe('de');
  });
});
