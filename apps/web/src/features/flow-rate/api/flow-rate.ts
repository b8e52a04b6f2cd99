import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { SimItem, SimSummary, SimUsage, SimUsageRange } from '@cpc/contracts/flow-rate';
import type { Paged } from '@cpc/contracts/envelope';
import { downloadFile, request } from '@/lib/request';
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

/** Downloads the filtered SIMs as CSV: the server streams it; the header row is in the console's language. */
export const downloadSimCsv = (f: SimFilter): Promise<void> =>
  downloadFile(
    '/flowRate/sim/export',
    Object.fromEntries(Object.entries(filterParams(withoutPaging(f))).map(([k, v]) => [k, String(v)])),
    'sims.csv',
  );
