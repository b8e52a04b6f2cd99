import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged, RoleChoice, SubAccountState, SubAccountView } from '@cpc/contracts';
import { DEPARTMENT_TREE_KEY } from '@/lib/department-api';
import { get, post } from '@/lib/request';
import { useSession } from '@/lib/session';

/**
 * The tenant's users (DESIGN §3, issue 12): a customer's sub-accounts under /system/subAccount, the platform's
 * staff users under /system/user; the same shapes, so one page serves both.
 */
const base = () => (useSession.getState().userInfo?.tenantKind === 'platform' ? '/system/user' : '/system/subAccount');

export interface SubAccountListParams {
  pageNo: number;
  pageSize: number;
  keyword?: string;
  state?: SubAccountState;
  /** A department and every department below it. */
  departmentId?: number;
  roleId?: number;
}

export interface SubAccountCreateInput {
  username: string;
  nickname: string;
  mobile: string;
  email: string;
  password: string;
  confirmPassword: string;
  roleIds: number[];
  departmentId: number | null;
}

export interface SubAccountUpdateInput {
  id: number;
  nickname: string;
  mobile: string;
  email: string;
  roleIds: number[];
  departmentId: number | null;
}

export const getSubAccounts = (params: SubAccountListParams) =>
  get<Paged<SubAccountView>>(`${base()}/list`, { ...params, keyword: params.keyword?.trim() || undefined });

export const getSubAccountRoles = () => get<RoleChoice[]>(`${base()}/roles`);

export const createSubAccount = (body: SubAccountCreateInput) => post<SubAccountView>(`${base()}/create`, body);

export const updateSubAccount = (body: SubAccountUpdateInput) => post<SubAccountView>(`${base()}/update`, body);

export const setSubAccountState = (body: { id: number; state: SubAccountState }) =>
  post<SubAccountView>(`${base()}/state`, body);

export const resetSubAccountPassword = (body: { id: number; password: string; confirmPassword: string }) =>
  post<null>(`${base()}/resetPassword`, body);

/** Ends every session of the user: it signs in again with its password. */
export const logoutSubAccount = (id: number) => post<{ sessions: number }>(`${base()}/logout`, { id });

export const deleteSubAccount = (id: number) => post<null>(`${base()}/delete`, { id });

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

/** Every change to a user refreshes the list, and the department tree's member counts. */
function useListMutation<A, R>(mutationFn: (arg: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn,
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: [...KEY, 'list'] }),
        client.invalidateQueries({ queryKey: DEPARTMENT_TREE_KEY }),
      ]),
  });
}

export const useCreateSubAccount = () => useListMutation(createSubAccount);
export const useUpdateSubAccount = () => useListMutation(updateSubAccount);
export const useSetSubAccountState = () => useListMutation(setSubAccountState);
export const useResetSubAccountPassword = () => useListMutation(resetSubAccountPassword);
export const useDeleteSubAccount = () => useListMutation(deleteSubAccount);
export const useLogoutSubAccount = () => useListMutation(logoutSubAccount);
