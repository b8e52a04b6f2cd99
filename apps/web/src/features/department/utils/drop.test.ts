import { describe, expect, it } from 'vitest';
import type { DepartmentNode } from '@cpc/contracts';
import { dropEdits, dropTarget, isWithin } from './drop';

const node = (id: number, sort: number, parentId: number | null, children: DepartmentNode[] = []): DepartmentNode => ({
  id,
  name: `D${id}`,
  parentId,
  sort,
  userCount: 0,
  deviceCount: 0,
  children,
});
// 1 ─ 2 ─ 4
//   └ 3
// 5
const tree = [node(1, 0, null, [node(2, 0, 1, [node(4, 0, 2)]), node(3, 1, 1)]), node(5, 1, null)];

describe('department drops', () => {
  it('puts a department inside another as its first child', () => {
    const t = dropTarget(tree, 5, 3, false, 0);
    expect(t).toEqual({ dragId: 5, parentId: 3, index: 0 });
    expect(dropEdits(tree, t)).toEqual([{ id: 5, parentId: 3, sort: 0 }]);
  });

  it('reorders siblings: only the ones whose place changed are sent', () => {
    const t = dropTarget(tree, 3, 2, true, -1);
    expect(t).toEqual({ dragId: 3, parentId: 1, index: 0 });
    expect(dropEdits(tree, t)).toEqual([
      { id: 3, sort: 0 },
      { id: 2, sort: 1 },
    ]);
  });

  it('moves to the top level after a root, renumbering after it', () => {
    const t = dropTarget(tree, 4, 1, true, 1);
    expect(t).toEqual({ dragId: 4, parentId: null, index: 1 });
    expect(dropEdits(tree, t)).toEqual([
      { id: 4, parentId: null, sort: 1 },
      { id: 5, sort: 2 },
    ]);
  });

  it('knows a drop under itself or below it would be a cycle', () => {
    expect(isWithin(tree, 4, 1)).toBe(true);
    expect(isWithin(tree, 1, 1)).toBe(true);
    expect(isWithin(tree, 5, 1)).toBe(false);
    expect(isWithin(tree, null, 1)).toBe(false);
  });
});
