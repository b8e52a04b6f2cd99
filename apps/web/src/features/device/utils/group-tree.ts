import type { GroupNode } from '@cpc/contracts/device';

/** Keys of the group tree beside the list: every device, those in no group, and each group. */
export const ALL_KEY = 'all';
export const UNGROUPED_KEY = 'ungrouped';
export const groupKey = (id: number) => `g${id}`;

/** The list filter a tree key stands for: undefined for every device, 0 for those in no group. */
export function groupIdOfKey(key: string): number | undefined {
  if (key === UNGROUPED_KEY) return 0;
  const m = /^g(\d+)$/.exec(key);
  return m ? Number(m[1]) : undefined;
}

export const keyOfGroupId = (groupId: number | undefined): string =>
  groupId === undefined ? ALL_KEY : groupId === 0 ? UNGROUPED_KEY : groupKey(groupId);

export function findGroup(nodes: readonly GroupNode[], id: number): GroupNode | undefined {
  for (const n of nodes) {
    if (n.id === id) return n;
    const below = findGroup(n.children, id);
    if (below) return below;
  }
  return undefined;
}

/** Every group's id below (and including) a node: the ids a group may not be moved under. */
export function subtreeIds(node: GroupNode): number[] {
  return [node.id, ...node.children.flatMap(subtreeIds)];
}

/** The group and its ancestors' ids, outermost first: what the tree opens to show a selected group. */
export function pathTo(nodes: readonly GroupNode[], id: number): number[] {
  for (const n of nodes) {
    if (n.id === id) return [n.id];
    const below = pathTo(n.children, id);
    if (below.length) return [n.id, ...below];
  }
  return [];
}

export interface GroupOption {
  value: number;
  title: string;
  disabled?: boolean;
  children: GroupOption[];
}

/** TreeSelect data of the groups; `exclude` (a group being moved, with its subtree) is shown but not choosable. */
export function groupOptions(nodes: readonly GroupNode[], exclude: ReadonlySet<number> = new Set()): GroupOption[] {
  return nodes.map((n) => ({
    value: n.id,
    title: n.name,
    disabled: exclude.has(n.id) || undefined,
    children: groupOptions(n.children, exclude),
  }));
}
