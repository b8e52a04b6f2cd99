import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DepartmentNode } from '@cpc/contracts';
import { useLiveEvents } from './live-events';
import { get } from './request';

/**
 * The tenant's department tree (issue 12). In lib, not a feature: the department screen edits it, and the
 * user and device forms pick from it.
 */
export const DEPARTMENT_TREE_KEY = ['department', 'tree'] as const;

export const getDepartmentTree = () => get<DepartmentNode[]>('/system/department/tree');

export const departmentTreeQueryOptions = () =>
  queryOptions({ queryKey: DEPARTMENT_TREE_KEY, queryFn: getDepartmentTree, staleTime: 30_000 });

/** The tree, read again when someone changes it (the live `department` event). */
export function useDepartmentTree(enabled = true) {
  const client = useQueryClient();
  useLiveEvents({ department: () => void client.invalidateQueries({ queryKey: DEPARTMENT_TREE_KEY }) }, enabled);
  return useQuery({ ...departmentTreeQueryOptions(), enabled });
}

/** The name of a department by id, from the loaded tree. */
export function departmentNames(tree: DepartmentNode[] | undefined): Map<number, string> {
  const out = new Map<number, string>();
  const walk = (nodes: DepartmentNode[]) => {
    for (const n of nodes) {
      out.set(n.id, n.name);
      walk(n.children);
    }
  };
  walk(tree ?? []);
  return out;
}
