import { useEffect, useState, type Dispatch, type SetStateAction } from 'react';

export interface Paging {
  pageNo: number;
  pageSize: number;
}

/** A server-paged list's page: `toFirst` after a filter changes, `onPageChange` for the table (a new size starts at 1). */
export function usePaging(pageSize = 20) {
  const [page, setPage] = useState<Paging>({ pageNo: 1, pageSize });
  return {
    page,
    setPage,
    toFirst: () => setPage((p) => ({ ...p, pageNo: 1 })),
    onPageChange: (pageNo: number, size: number) =>
      setPage((p) => ({ pageNo: size === p.pageSize ? pageNo : 1, pageSize: size })),
  };
}

/**
 * When the rows of the page on screen went away (deleted, reviewed, moved elsewhere), steps back to the new last
 * page (the first when none is left) instead of showing an empty one.
 */
export function useStepBackWhenEmpty(
  list: { data?: { list: unknown[]; total: number }; isPlaceholderData: boolean },
  paging: { page: Paging; setPage: Dispatch<SetStateAction<Paging>> },
): void {
  const total = list.data?.total ?? 0;
  const { page, setPage } = paging;
  const emptyPage = !!list.data && list.data.list.length === 0 && page.pageNo > 1 && !list.isPlaceholderData;
  useEffect(() => {
    if (emptyPage) setPage((p) => ({ ...p, pageNo: Math.max(1, Math.ceil(total / p.pageSize)) }));
  }, [emptyPage, total, setPage]);
}
