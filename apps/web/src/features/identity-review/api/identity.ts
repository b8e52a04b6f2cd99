import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { IdentityView, Paged } from '@cpc/contracts';
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
  });

export const useIdentityList = (params: IdentityListParams) => useQuery(identityListQueryOptions(params));

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
