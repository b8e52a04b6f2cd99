import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { SimItem, SimSummary, SimUsage, SimUsageRange } from '@cpc/contracts/flow-rate';
import type { GroupTree } from '@cpc/contracts/device';
import type { Paged } from '@cpc/contracts/envelope';
import { BASE_URL } from '@/config/settings';
import { getLanguage } from '@/lib/i18n';
import { request } from '@/lib/request';
import { getToken } from '@/lib/session';
import { filterParams, withoutPaging, type SimFilter } from '../utils/filter';

export const simKeys = {
  all: ['flow-rate'] as const,
  list: (f: SimFilter) => ['flow-rate', 'list', f] as const,
  summary: ['flow-rate', 'summary'] as const,
  usage: (iccid: string, range: SimUsageRange) => ['flow-rate', 'usage', iccid, range] as const,
};

export const useSimList = (f: SimFilter) =>
  useQuery({
    queryKey: simKeys.list(f),
    queryFn: () => request<Paged<SimItem>>({ url: '/flowRate/sim/list', method: 'get', params: filterParams(f) }),
    placeholderData: keepPreviousData,
  });

export const useSimSummary = () =>
  useQuery({
    queryKey: simKeys.summary,
    queryFn: () => request<SimSummary>({ url: '/flowRate/sim/summary', method: 'get' }),
  });

export const useSimUsage = (iccid: string | null, range: SimUsageRange) =>
  useQuery({
    queryKey: simKeys.usage(iccid ?? '', range),
    queryFn: () => request<SimUsage>({ url: '/flowRate/sim/usage', method: 'get', params: { iccid, range } }),
    enabled: !!iccid,
    placeholderData: keepPreviousData,
  });

/** The account's device groups, for the group filter (only with device:view). */
export const useGroupTree = (enabled: boolean) =>
  useQuery({
    queryKey: ['flow-rate', 'groups'],
    queryFn: () => request<GroupTree>({ url: '/device/group/tree', method: 'get' }),
    enabled,
    staleTime: 60_000,
  });

/** Downloads the filtered SIMs as CSV: the server streams it; the header row is in the console's language. */
export async function downloadSimCsv(f: SimFilter): Promise<void> {
  const query = new URLSearchParams({
    ...filterParams(withoutPaging(f)),
    lang: getLanguage() === 'zh' ? 'zh' : 'en',
  });
  const once = () =>
    fetch(`${BASE_URL}/flowRate/sim/export?${query.toString()}`, {
      headers: { Authorization: `Bearer ${getToken()}` },
    });
  let res = await once();
  if (res.status === 402 || (res.headers.get('content-type') ?? '').includes('json')) {
    // the short-lived access token ran out: a console call exchanges it (the request layer's one shared
    // refresh), then the export again with the new one
    await request({ url: '/flowRate/sim/summary', method: 'get' });
    res = await once();
  }
  if (!res.ok || !(res.headers.get('content-type') ?? '').includes('csv'))
    throw new Error(`export failed: ${res.status}`);
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'sims.csv';
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
