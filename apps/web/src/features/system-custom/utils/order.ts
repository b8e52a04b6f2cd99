/** The list with the item at `index` moved one place up (-1) or down (+1); unchanged at either end. */
export function moveItem<T>(list: readonly T[], index: number, step: -1 | 1): T[] {
  const to = index + step;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return [...list];
  const next = [...list];
  [next[index], next[to]] = [next[to], next[index]];
  return next;
}

/** The list with `item` added at the end, or taken out when it is already there. */
export function toggleItem<T>(list: readonly T[], item: T): T[] {
  return list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
}

/**
 * The home screen's cells, page by page: `apps` in order, `columns × rows` a page, the last page padded with
 * empty cells (null) so the grid keeps its shape.
 */
export function desktopPages<T>(apps: readonly T[], columns: number, rows: number): (T | null)[][] {
  const size = Math.max(1, columns) * Math.max(1, rows);
  const pages: (T | null)[][] = [];
  for (let i = 0; i < Math.max(1, apps.length); i += size) {
    const page: (T | null)[] = apps.slice(i, i + size);
    while (page.length < size) page.push(null);
    pages.push(page);
  }
  return pages;
}
