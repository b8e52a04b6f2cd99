import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { tableHeight, useTableHeight } from './table-height';

describe('tableHeight', () => {
  it.each([
    // window height, extra rows, min, height
    [1000, 0, 0, 709],
    [1000, 1, 0, 649],
    [1000, 2, 0, 589],
    [860, 3, 0, 389],
    [667, 0, 0, 376],
    [250, 0, 0, 0],
    [250, 0, 200, 200],
    [1000, -2, 0, 709],
    [1000, 1.7, 0, 649],
  ])('window %s, %s extra rows, min %s → %s', (windowHeight, rows, min, want) => {
    expect(tableHeight(rows, windowHeight, min)).toBe(want);
  });

  it('follows the window when it is resized', () => {
    window.innerHeight = 900;
    const { result } = renderHook(() => useTableHeight(1));
    expect(result.current).toBe(549);
    act(() => {
      window.innerHeight = 1100;
      window.dispatchEvent(new Event('resize'));
    });
    expect(result.current).toBe(749);
  });
});
