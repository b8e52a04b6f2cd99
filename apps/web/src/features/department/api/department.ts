import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DepartmentAddBody, DepartmentEditBody, DepartmentView } from '@cpc/contracts';
import { DEPARTMENT_TREE_KEY } from '@/lib/department-api';
import { post } from '@/lib/request';

/** Changes to the tenant's department tree (issue 12); the tree itself is read through lib/department-api. */
export const addDepartment = (body: DepartmentAddBody) => post<DepartmentView>('/system/department/add', body);
export const editDepartment = (body: DepartmentEditBody) => post<DepartmentView>('/system/department/edit', body);
export const deleteDepartment = (id: number) => post<null>('/system/department/delete', { id });

/** Every change refreshes the tree (and the pickers of the user and device forms that share it). */
function useTreeMutation<A, R>(mutationFn: (arg: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSettled: () => client.invalidateQueries({ queryKey: DEPARTMENT_TREE_KEY }) });
}

export const useAddDepartment = () => useTreeMutation(addDepartment);
export const useEditDepartment = () => useTreeMutation(editDepartment);
export const useDeleteDepartment = () => useTreeMutation(deleteDepartment);
/** A drag: the moved department, then the new order of its siblings, one call each, refreshed once at the end. */
export const useMoveDepartment = () =>
  useTreeMutation(async (edits: DepartmentEditBody[]) => {
    for (const e of edits) await editDepartment(e);
  });
