import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { SystemLogPage } from '@cpc/contracts';
import { downloadFile, request } from '@/lib/request';
import type { LogFilter } from '../utils/filter';
import { filterParams } from '../utils/filter';

export const getLogPage = (filter: LogFilter, cursor: string | undefined, pageSize: number) =>
  request<SystemLogPage>({
    url: '/system/log/list',
    method: 'get',
    params: { ...filterParams(filter), pageSize, ...(cursor ? { cursor } : {}) },
  });

/** New entries appear without a reload: the first (newest) page is read again this often while it is shown. */
export const FIRST_PAGE_REFRESH_MS = 10_000;

export const useLogPage = (filter: LogFilter, cursor: string | undefined, pageSize: number) =>
  useQuery({
    queryKey: ['system-log', 'list', filter, cursor ?? null, pageSize],
    queryFn: () => getLogPage(filter, cursor, pageSize),
    placeholderData: keepPreviousData,
    refetchInterval: cursor ? false : FIRST_PAGE_REFRESH_MS,
  });

/**
 * Downloads the filter's CSV: the server streams it (it is never built whole there); the browser saves it under
 * the name the server gives. The header row is in the console's language.
 */
export const downloadLogCsv = (filter: LogFilter): Promise<void> =>
  downloadFile(
    '/system/log/export',
    Object.fromEntries(Object.entries(filterParams(filter)).map(([k, v]) => [k, String(v)])),
    'system-log.csv',
  );
