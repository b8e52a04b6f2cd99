import type { MenuNode } from '../menu-model';
import { routeTitle } from '../../lib/menu-routes';

/** A page the search dialog can open: a leaf of the user's menu, titled in the current language. */
export interface MenuSearchItem {
  path: string;
  title: string;
  /** Titles of the groups it sits in, outermost first. */
  trail: string[];
  icon?: string;
  external: boolean;
  /** Where an external link opens (SPEC §3 `meta.target`). */
  target?: string;
}

/** Every page of the menu (groups only lead to their pages), with translated titles. */
export function menuSearchItems(
  nodes: MenuNode[],
  translate: (key: string) => string,
  trail: string[] = [],
): MenuSearchItem[] {
  return nodes.flatMap((node): MenuSearchItem[] => {
    const title = routeTitle(node.meta, translate) || node.key;
    if (node.children?.length) return menuSearchItems(node.children, translate, [...trail, title]);
    const item: MenuSearchItem = { path: node.key, title, trail, external: node.external };
    if (node.meta.icon) item.icon = node.meta.icon;
    if (node.meta.target) item.target = node.meta.target;
    return [item];
  });
}

const normalize = (s: string) => s.toLocaleLowerCase().normalize('NFKC');

/** 0 is best; null when the item does not match the term. */
function termRank(item: MenuSearchItem, term: string): number | null {
  const title = normalize(item.title);
  if (title.startsWith(term)) return 0;
  if (title.includes(term)) return 1;
  if (item.trail.some((t) => normalize(t).includes(term))) return 2;
  if (normalize(item.path).includes(term)) return 3;
  return null;
}

/**
 * The pages matching `query`: every word of it must appear in the title, a group title or the path
 * (case-insensitive). Title matches come first, then the menu's own order.
 */
export function searchMenu(items: MenuSearchItem[], query: string, limit = 20): MenuSearchItem[] {
  const terms = normalize(query).split(/\s+/).filter(Boolean);
  if (!terms.length) return [];
  const ranked: { item: MenuSearchItem; rank: number; order: number }[] = [];
  items.forEach((item, order) => {
    let rank = 0;
    for (const term of terms) {
      const r = termRank(item, term);
      if (r === null) return;
      rank += r;
    }
    ranked.push({ item, rank, order });
  });
  return ranked
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, limit)
    .map((r) => r.item);
}
