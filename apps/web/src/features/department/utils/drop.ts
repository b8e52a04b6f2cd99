import type { DepartmentEditBody, DepartmentNode } from '@cpc/contracts';

/** Where a dragged department lands: under `parentId`, at `index` among its new siblings. */
export interface DropTarget {
  dragId: number;
  parentId: number | null;
  index: number;
}

/** The parent of each department and the siblings under each parent, in the tree's order. */
function indexTree(tree: DepartmentNode[]) {
  const parentOf = new Map<number, number | null>();
  const children = new Map<number | null, number[]>();
  const walk = (nodes: DepartmentNode[], parent: number | null) => {
    children.set(
      parent,
      nodes.map((n) => n.id),
    );
    for (const n of nodes) {
      parentOf.set(n.id, parent);
      walk(n.children, n.id);
    }
  };
  walk(tree, null);
  return { parentOf, children };
}

/**
 * antd Tree's drop, as a target: `dropToGap` false puts it inside `targetId` (first child); otherwise before
 * (`position` -1) or after (1) `targetId` among that node's siblings.
 */
export function dropTarget(
  tree: DepartmentNode[],
  dragId: number,
  targetId: number,
  dropToGap: boolean,
  position: -1 | 0 | 1,
): DropTarget {
  const { parentOf, children } = indexTree(tree);
  if (!dropToGap) return { dragId, parentId: targetId, index: 0 };
  const parentId = parentOf.get(targetId) ?? null;
  const siblings = (children.get(parentId) ?? []).filter((id) => id !== dragId);
  const at = siblings.indexOf(targetId);
  return { dragId, parentId, index: position < 0 ? at : at + 1 };
}

/** Whether `id` is `ancestorId` or lies below it (a drop there would make a cycle: the server refuses it too). */
export function isWithin(tree: DepartmentNode[], id: number | null, ancestorId: number): boolean {
  const { parentOf } = indexTree(tree);
  for (let p = id; p !== null && p !== undefined; p = parentOf.get(p) ?? null) if (p === ancestorId) return true;
  return false;
}

/**
 * The edits a drop needs: the dragged department's parent (when it changes) and the sort of every sibling at its
 * new place whose position changed, numbered 0, 1, 2… in the new order.
 */
export function dropEdits(tree: DepartmentNode[], target: DropTarget): DepartmentEditBody[] {
  const { parentOf, children } = indexTree(tree);
  const siblings = (children.get(target.parentId) ?? []).filter((id) => id !== target.dragId);
  siblings.splice(Math.max(0, Math.min(target.index, siblings.length)), 0, target.dragId);
  const sortOf = new Map<number, number>();
  const walk = (nodes: DepartmentNode[]) => {
    for (const n of nodes) {
      sortOf.set(n.id, n.sort);
      walk(n.children);
    }
  };
  walk(tree);
  const edits: DepartmentEditBody[] = [];
  siblings.forEach((id, sort) => {
    const moved = id === target.dragId && parentOf.get(id) !== target.parentId;
    if (moved) edits.unshift({ id, parentId: target.parentId, sort });
    else if (sortOf.get(id) !== sort) edits.push({ id, sort });
  });
  return edits;
}
