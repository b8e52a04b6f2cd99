import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { GroupAddBody, GroupDeleteResult, GroupEditBody, GroupTree, GroupView } from '@cpc/contracts/device';
import { get, post } from '@/lib/request';
import { DEVICE_KEY, invalidateDevices } from './devices';

/** Device groups: a tree per account with device counts (including subgroups). */

export const getGroupTree = () => get<GroupTree>('/device/group/tree');
/** The group dialog shows a duplicate name next to the field: no global message. */
export const addGroup = (body: GroupAddBody) => post<GroupView>('/device/group/add', body, { silent: true });
export const editGroup = (body: GroupEditBody) => post<GroupView>('/device/group/edit', body, { silent: true });
export const deleteGroup = (id: number) => post<GroupDeleteResult>('/device/group/delete', { id });

export const GROUP_TREE_KEY = [...DEVICE_KEY, 'groups'] as const;

export const groupTreeQueryOptions = () => queryOptions({ queryKey: GROUP_TREE_KEY, queryFn: getGroupTree });
export const useGroupTree = () => useQuery(groupTreeQueryOptions());

function useGroupMutation<A, R>(mutationFn: (arg: A) => Promise<R>) {
  const client = useQueryClient();
  // a renamed or deleted group shows in the list's group column too
  return useMutation({ mutationFn, onSuccess: () => invalidateDevices(client) });
}

export const useAddGroup = () => useGroupMutation(addGroup);
export const useEditGroup = () => useGroupMutation(editGroup);
export const useDeleteGroup = () => useGroupMutation(deleteGroup);
