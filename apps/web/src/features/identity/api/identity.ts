import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { IdentityView, Paged } from '@cpc/contracts';
import { useLiveEvents } from '@/lib/live-events';
import { request } from '@/lib/request';

/** Review statuses a staff member filters by (DESIGN §3): 2 waiting, 1 approved, 3 rejected. */
export type ReviewStatus = 1 | 2 | 3;

export interface IdentityListParams {
  pageNo: number;
  pageSize: number;
  status?: ReviewStatus;
  keyword?: string;
}

export const getIdentityList = (params: IdentityListParams) =>
  request<Paged<IdentityView>>({
    url: '/system/identity/list',
    method: 'get',
    params: { ...params, keyword: params.keyword?.trim() || undefined },
  });

export const approveIdentity = (id: number) =>
  request<IdentityView>({ url: '/system/identity/approve', method: 'post', data: { id } });

export const rejectIdentity = (body: { id: number; reason: string }) =>
  request<IdentityView>({ url: '/system/identity/reject', method: 'post', data: body });

const LIST_KEY = ['identity-review', 'list'] as const;

export const identityListQueryOptions = (params: IdentityListParams) =>
  queryOptions({
    queryKey: [...LIST_KEY, params],
    queryFn: () => getIdentityList(params),
    // keep the current page on screen while the next one loads
    placeholderData: keepPreviousData,
    // a queue others add to: a staff member coming back to the tab sees what arrived meanwhile
    refetchOnWindowFocus: 'always',
  });

export const useIdentityList = (params: IdentityListParams) => useQuery(identityListQueryOptions(params));

/** Reads the queue again whenever a submission is made or decided (also by another staff member), and when the stream reopens. */
export const useLiveIdentityList = () => {
  const client = useQueryClient();
  const refetch = () => void client.invalidateQueries({ queryKey: LIST_KEY });
  useLiveEvents({ identity: refetch, onOpen: refetch, onGap: refetch });
};

export const useApproveIdentity = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: approveIdentity,
    onSettled: () => client.invalidateQueries({ queryKey: LIST_KEY }),
  });
};

export const useRejectIdentity = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: rejectIdentity,
    onSettled: () => client.invalidateQueries({ queryKey: LIST_KEY }),
  });
};
