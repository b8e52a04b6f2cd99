import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { usePaging, useStepBackWhenEmpty } from './use-paging';

type List = { data?: { list: unknown[]; total: number }; isPlaceholderData: boolean };

const setup = (initial: List) =>
  renderHook(
    ({ list }: { list: List }) => {
      const paging = usePaging(10);
      useStepBackWhenEmpty(list, paging);
      return paging;
    },
    { initialProps: { list: initial } },
  );

describe('list paging', () => {
  it('starts on page 1, goes to a page, and starts over when the page size changes', () => {
    const { result } = setup({ isPlaceholderData: false });
    expect(result.current.page).toEqual({ pageNo: 1, pageSize: 10 });
    act(() => result.current.onPageChange(3, 10));
    expect(result.current.page).toEqual({ pageNo: 3, pageSize: 10 });
    act(() => result.current.onPageChange(3, 50));
    expect(result.current.page).toEqual({ pageNo: 1, pageSize: 50 });
    act(() => result.current.onPageChange(2, 50));
    act(() => result.current.toFirst());
    expect(result.current.page.pageNo).toBe(1);
  });

  it('steps back to the last page when the rows of the page it shows went away', () => {
    const { result, rerender } = setup({ isPlaceholderData: false, data: { list: [1], total: 31 } });
    act(() => result.current.onPageChange(4, 10));
    // the last row of page 4 was deleted: 30 rows make 3 pages
    rerender({ list: { isPlaceholderData: false, data: { list: [], total: 30 } } });
    expect(result.current.page.pageNo).toBe(3);
  });

  it('waits while the answer is only the previous page kept on screen; back to page 1 when nothing is left', () => {
    const { result, rerender } = setup({ isPlaceholderData: false, data: { list: [1], total: 31 } });
    act(() => result.current.onPageChange(4, 10));
    rerender({ list: { isPlaceholderData: true, data: { list: [], total: 30 } } });
    expect(result.current.page.pageNo).toBe(4);
    rerender({ list: { isPlaceholderData: false, data: { list: [], total: 0 } } });
    expect(result.current.page.pageNo).toBe(1);
  });
});
