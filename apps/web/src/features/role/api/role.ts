import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts';
import type {
  PermissionSectionView,
  RoleCopyBody,
  RoleCreateBody,
  RoleDeleteBody,
  RoleMember,
  RoleUpdateBody,
  RoleView,
} from '@cpc/contracts/role';
import { request } from '@/lib/request';

export interface RoleListParams {
  pageNo: number;
  pageSize: number;
  keyword?: string;
}

export const getRoleList = (params: RoleListParams) =>
  request<Paged<RoleView>>({
    url: '/system/role/list',
    method: 'get',
    params: { ...params, keyword: params.keyword?.trim() || undefined },
  });

export const getCatalogue = () => request<PermissionSectionView[]>({ url: '/system/role/permissions', method: 'get' });

/** Silent: the form shows a refusal beside its field. */
export const createRole = (body: RoleCreateBody) =>
  request<RoleView>({ url: '/system/role/create', method: 'post', data: body, silent: true });
export const updateRole = (body: RoleUpdateBody) =>
  request<RoleView>({ url: '/system/role/update', method: 'post', data: body, silent: true });
export const copyRole = (body: RoleCopyBody) =>
  request<RoleView>({ url: '/system/role/copy', method: 'post', data: body, silent: true });
export const deleteRole = (body: RoleDeleteBody) =>
  request<null>({ url: '/system/role/delete', method: 'post', data: body });

export const getMembers = (id: number, pageNo: number, pageSize: number) =>
  request<Paged<RoleMember>>({ url: '/system/role/members', method: 'get', params: { id, pageNo, pageSize } });
export const getCandidates = (id: number, keyword?: string) =>
  request<RoleMember[]>({
    url: '/system/role/candidates',
    method: 'get',
    params: { id, keyword: keyword?.trim() || undefined },
  });
export const addMembers = (id: number, userIds: number[]) =>
  request<null>({ url: '/system/role/addMembers', method: 'post', data: { id, userIds } });
export const removeMembers = (id: number, userIds: number[]) =>
  request<null>({ url: '/system/role/removeMembers', method: 'post', data: { id, userIds } });

const KEY = ['role'] as const;

export const useRoleList = (params: RoleListParams) =>
  useQuery({
    queryKey: [...KEY, 'list', params],
    queryFn: () => getRoleList(params),
    placeholderData: keepPreviousData,
  });

/** The catalogue changes only with a new release: read once per visit. */
export const useCatalogue = () =>
  useQuery({ queryKey: [...KEY, 'catalogue'], queryFn: getCatalogue, staleTime: Infinity });

export const useMembers = (id: number | null, pageNo: number, pageSize: number) =>
  useQuery({
    queryKey: [...KEY, 'members', id, pageNo, pageSize],
    queryFn: () => getMembers(id!, pageNo, pageSize),
    enabled: id !== null,
    placeholderData: keepPreviousData,
  });

export const useCandidates = (id: number | null, keyword: string) =>
  useQuery({
    queryKey: [...KEY, 'candidates', id, keyword],
    queryFn: () => getCandidates(id!, keyword),
    enabled: id !== null,
  });

const useInvalidating = <A, R>(fn: (arg: A) => Promise<R>) => {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => client.invalidateQueries({ queryKey: KEY }) });
};

export const useCreateRole = () => useInvalidating(createRole);
export const useUpdateRole = () => useInvalidating(updateRole);
export const useCopyRole = () => useInvalidating(copyRole);
export const useDeleteRole = () => useInvalidating(deleteRole);
export const useAddMembers = () =>
  useInvalidating((a: { id: number; userIds: number[] }) => addMembers(a.id, a.userIds));
export const useRemoveMembers = () =>
  useInvalidating((a: { id: number; userIds: number[] }) => removeMembers(a.id, a.userIds));
