import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged, RoleOption, SubAccountState, SubAccountView } from '@cpc/contracts';
import { get, post } from '@/lib/request';

/** Sub-accounts of the main account's tenant (DESIGN §3), under /system/subAccount. */

export interface SubAccountListParams {
  pageNo: number;
  pageSize: number;
  keyword?: string;
  state?: SubAccountState;
}

export interface SubAccountCreateInput {
  username: string;
  nickname: string;
  mobile: string;
  email: string;
  password: string;
  confirmPassword: string;
  roleIds: number[];
}

export interface SubAccountUpdateInput {
  id: number;
  nickname: string;
  mobile: string;
  email: string;
  roleIds: number[];
}

export const getSubAccounts = (params: SubAccountListParams) =>
  get<Paged<SubAccountView>>('/system/subAccount/list', { ...params, keyword: params.keyword?.trim() || undefined });

export const getSubAccountRoles = () => get<RoleOption[]>('/system/subAccount/roles');

export const createSubAccount = (body: SubAccountCreateInput) =>
  post<SubAccountView>('/system/subAccount/create', body);

export const updateSubAccount = (body: SubAccountUpdateInput) =>
  post<SubAccountView>('/system/subAccount/update', body);

export const setSubAccountState = (body: { id: number; state: SubAccountState }) =>
  post<SubAccountView>('/system/subAccount/state', body);

export const resetSubAccountPassword = (body: { id: number; password: string; confirmPassword: string }) =>
  post<null>('/system/subAccount/resetPassword', body);

export const deleteSubAccount = (id: number) => post<null>('/system/subAccount/delete', { id });

const KEY = ['person', 'sub-accounts'] as const;

export const subAccountListQueryOptions = (params: SubAccountListParams) =>
  queryOptions({
    queryKey: [...KEY, 'list', params],
    queryFn: () => getSubAccounts(params),
    // keep the current page on screen while the next one loads
    placeholderData: keepPreviousData,
  });

export const useSubAccounts = (params: SubAccountListParams) => useQuery(subAccountListQueryOptions(params));

export const useSubAccountRoles = () =>
  useQuery({ queryKey: [...KEY, 'roles'], queryFn: getSubAccountRoles, staleTime: 60_000 });

/** Every change to a sub-account refreshes the list. */
function useListMutation<A, R>(mutationFn: (arg: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSettled: () => client.invalidateQueries({ queryKey: [...KEY, 'list'] }) });
}

export const useCreateSubAccount = () => useListMutation(createSubAccount);
export const useUpdateSubAccount = () => useListMutation(updateSubAccount);
export const useSetSubAccountState = () => useListMutation(setSubAccountState);
export const useResetSubAccountPassword = () => useListMutation(resetSubAccountPassword);
export const useDeleteSubAccount = () => useListMutation(deleteSubAccount);
