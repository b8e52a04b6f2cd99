import { describe, expect, it } from 'vitest';
import { desktopPages, moveItem, toggleItem } from './order';

describe('desktop order', () => {
  it('moves an app one place up or down, and not past either end', () => {
    expect(moveItem(['a', 'b', 'c'], 1, -1)).toEqual(['b', 'a', 'c']);
    expect(moveItem(['a', 'b', 'c'], 1, 1)).toEqual(['a', 'c', 'b']);
    expect(moveItem(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moveItem(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'b', 'c']);
  });

  it('adds a picked app at the end and takes a picked one out', () => {
    expect(toggleItem(['a'], 'b')).toEqual(['a', 'b']);
    expect(toggleItem(['a', 'b'], 'a')).toEqual(['b']);
  });

  it('lays the apps out page by page, the last page padded to the grid', () => {
    expect(desktopPages(['a', 'b', 'c'], 2, 1)).toEqual([
      ['a', 'b'],
      ['c', null],
    ]);
    expect(desktopPages([], 2, 2)).toEqual([[null, null, null, null]]);
    expect(desktopPages(['a', 'b'], 2, 1)).toEqual([['a', 'b']]);
  });
});
