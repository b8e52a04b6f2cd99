import { describe, expect, it } from 'vitest';
import type { GroupNode } from '@cpc/contracts/device';
import {
  ALL_KEY,
  UNGROUPED_KEY,
  findGroup,
  groupIdOfKey,
  groupOptions,
  keyOfGroupId,
  pathTo,
  subtreeIds,
} from './group-tree';

const node = (id: number, name: string, children: GroupNode[] = []): GroupNode => ({
  id,
  name,
  parentId: null,
  sort: 0,
  deviceCount: 0,
  onlineCount: 0,
  children,
});
const tree = [node(1, 'East', [node(2, 'Shanghai', [node(3, 'Shop A')]), node(4, 'Hangzhou')]), node(5, 'North')];

describe('the group tree', () => {
  it('turns tree keys into the list filter and back', () => {
    for (const groupId of [undefined, 0, 3]) expect(groupIdOfKey(keyOfGroupId(groupId))).toBe(groupId);
    expect(keyOfGroupId(undefined)).toBe(ALL_KEY);
    expect(keyOfGroupId(0)).toBe(UNGROUPED_KEY);
    expect(groupIdOfKey('nonsense')).toBeUndefined();
  });

  it('finds a group anywhere in the tree, and the path that opens to it', () => {
    expect(findGroup(tree, 3)?.name).toBe('Shop A');
    expect(findGroup(tree, 9)).toBeUndefined();
    expect(pathTo(tree, 3)).toEqual([1, 2, 3]);
    expect(pathTo(tree, 9)).toEqual([]);
  });

  it('keeps a group from being chosen as a parent of itself or of its ancestors', () => {
    const ids = new Set(subtreeIds(findGroup(tree, 1)!));
    expect([...ids].sort()).toEqual([1, 2, 3, 4]);
    const options = groupOptions(tree, ids);
    expect(options[0].disabled).toBe(true);
    expect(options[0].children[0].children[0]).toEqual({ value: 3, title: 'Shop A', disabled: true, children: [] });
    expect(options[1].disabled).toBeUndefined();
  });
});
