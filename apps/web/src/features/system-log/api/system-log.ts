import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { SystemLogPage } from '@cpc/contracts';
import { BASE_URL } from '@/config/settings';
import { getLanguage } from '@/lib/i18n';
import { request } from '@/lib/request';
import { getToken } from '@/lib/session';
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
export async function downloadLogCsv(filter: LogFilter): Promise<void> {
  const query = new URLSearchParams(
    Object.entries({ ...filterParams(filter), lang: getLanguage() === 'zh' ? 'zh' : 'en' }).map(([k, v]) => [
      k,
      String(v),
    ]),
  );
  const res = await fetch(`${BASE_URL}/system/log/export?${query.toString()}`, {
    headers: { Authorization: `Bearer ${getToken()}` },
  });
  if (!res.ok) throw new Error(`export failed: ${res.status}`);
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'system-log.csv';
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
