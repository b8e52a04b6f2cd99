import { queryOptions, useQuery } from '@tanstack/react-query';
import type { WorkbenchSummary } from '@cpc/contracts/workbench';
import { request } from '@/lib/request';

export const WORKBENCH_KEY = ['workbench'] as const;

export const getWorkbenchSummary = () => request<WorkbenchSummary>({ url: '/workbench/summary', method: 'get' });

export const workbenchQueryOptions = () =>
  queryOptions({ queryKey: [...WORKBENCH_KEY, 'summary'], queryFn: getWorkbenchSummary });

/** The workbench's sections; read again on live events (the page), never on a timer. */
export const useWorkbenchSummary = () => useQuery(workbenchQueryOptions());
