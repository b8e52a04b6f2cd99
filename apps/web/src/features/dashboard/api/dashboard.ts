import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DashboardOverview, Trend, TrendUnit } from '@cpc/contracts/dashboard';
import { request } from '@/lib/request';
import { browserTimeZone } from '../utils/time-zone';

/** The dashboard follows the fleet without a reload (issue 4: every 30 s). */
export const DASHBOARD_REFRESH_MS = 30_000;

const tzParam = () => {
  const tz = browserTimeZone();
  return tz ? { tz } : {};
};

export const getDashboardOverview = () =>
  request<DashboardOverview>({ url: '/dashboard/overview', method: 'get', params: { ...tzParam(), unit: 'day' } });

export const getDashboardTrend = (unit: TrendUnit) =>
  request<Trend>({ url: '/dashboard/trend', method: 'get', params: { ...tzParam(), unit } });

const KEY = ['dashboard'] as const;

export const overviewQueryOptions = () =>
  queryOptions({
    queryKey: [...KEY, 'overview'],
    queryFn: getDashboardOverview,
    refetchInterval: DASHBOARD_REFRESH_MS,
  });

export const trendQueryOptions = (unit: TrendUnit) =>
  queryOptions({
    queryKey: [...KEY, 'trend', unit],
    queryFn: () => getDashboardTrend(unit),
    refetchInterval: DASHBOARD_REFRESH_MS,
  });

export const useDashboardOverview = () => useQuery(overviewQueryOptions());

/** The overview carries the daily trend; the hourly one is asked for only when the user switches to it. */
export const useDashboardTrend = (unit: TrendUnit, enabled: boolean) =>
  useQuery({ ...trendQueryOptions(unit), enabled });

/** `POST /dashboard/target`: the account's monthly print-job target (main account), null to clear it. */
export const setDashboardTarget = (monthlyJobs: number | null) =>
  request<null>({ url: '/dashboard/target', method: 'post', data: { monthlyJobs } });

export function useSetDashboardTarget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: setDashboardTarget,
    onSuccess: () => client.invalidateQueries({ queryKey: [...KEY, 'overview'] }),
  });
}
