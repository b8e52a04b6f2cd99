import { useMemo } from 'react';
import type { DataScope, DepartmentNode } from '@cpc/contracts';
import { useSession } from './session';

/**
 * What the signed-in user may do with the department tree and with placing users, by its data scope (the server
 * refuses the rest with 403, so the screens hide or disable it):
 * - `all`: anything;
 * - `department`: change (rename, move, delete) the departments strictly below its own, add departments under its
 *   own or below, and place users in its own department or below (never in none);
 * - `own`: change nothing in the tree, and place users in its own department or in none.
 */
export interface DepartmentReach {
  scope: DataScope;
  /** Rename, move or delete this department. */
  canChange: (id: number) => boolean;
  /** Add a department under this one, or move one under it. */
  canAddUnder: (id: number) => boolean;
  /** Add a department at the top level, or move one there. */
  canAddTop: boolean;
  /** Put a user in this department. */
  canPlaceIn: (id: number) => boolean;
  /** Leave a user in no department. */
  canPlaceInNone: boolean;
}

/** The ids of a department and of every department below it, in the loaded tree (empty when it is not there). */
export function subtreeIds(tree: DepartmentNode[], rootId: number | null): Set<number> {
  const out = new Set<number>();
  if (rootId === null) return out;
  const collect = (n: DepartmentNode) => {
    out.add(n.id);
    n.children.forEach(collect);
  };
  const find = (nodes: DepartmentNode[]): boolean =>
    nodes.some((n) => (n.id === rootId ? (collect(n), true) : find(n.children)));
  find(tree);
  return out;
}

export function departmentReach(
  tree: DepartmentNode[],
  scope: DataScope,
  departmentId: number | null,
): DepartmentReach {
  if (scope === 'all') {
    const yes = () => true;
    return { scope, canChange: yes, canAddUnder: yes, canAddTop: true, canPlaceIn: yes, canPlaceInNone: true };
  }
  const no = () => false;
  if (scope === 'own')
    return {
      scope,
      canChange: no,
      canAddUnder: no,
      canAddTop: false,
      canPlaceIn: (id) => id === departmentId,
      canPlaceInNone: true,
    };
  const mine = subtreeIds(tree, departmentId);
  return {
    scope,
    canChange: (id) => id !== departmentId && mine.has(id),
    canAddUnder: (id) => mine.has(id),
    canAddTop: false,
    canPlaceIn: (id) => mine.has(id),
    canPlaceInNone: false,
  };
}

/** The signed-in user's reach over this tree (`all` until the user info is loaded: the server decides anyway). */
export function useDepartmentReach(tree: DepartmentNode[] | undefined): DepartmentReach {
  const scope = useSession((s) => s.userInfo?.dataScope ?? 'all');
  const departmentId = useSession((s) => s.userInfo?.departmentId ?? null);
  return useMemo(() => departmentReach(tree ?? [], scope, departmentId), [tree, scope, departmentId]);
}
