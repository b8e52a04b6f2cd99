import { canAccess, type Access, type LiveSource, type RouteMeta, type RouteRecord } from '@cpc/contracts/route';
import type { LiveCounts } from '../lib/menu-live';
import { isExternal, matchRouteChain } from '../lib/menu-routes';

/** One entry of the side menu, before translation and rendering. */
export interface MenuNode {
  key: string;
  meta: RouteMeta;
  external: boolean;
  children?: MenuNode[];
}

/**
 * The menu tree of SPEC §2: hidden records are left out, a `levelHidden` record gives its place to its
 * children, a record whose children are all hidden is a plain item, and guarded records the user may
 * not open are dropped (the server filters too; this keeps a stale menu honest).
 */
export function buildMenu(routes: RouteRecord[], access: Access): MenuNode[] {
  return routes.flatMap((record): MenuNode[] => {
    if (record.meta.hidden || !canAccess(record.meta.guard, access)) return [];
    const children = buildMenu(record.children ?? [], access);
    if (record.meta.levelHidden && children.length) return children;
    const node: MenuNode = { key: record.path, meta: record.meta, external: isExternal(record.path) };
    if (children.length) node.children = children;
    return [node];
  });
}

const isLive = (v: unknown): v is LiveSource => typeof v === 'object' && v !== null && 'source' in v;

/** Whether any record's badge or dot shows a live number (then the console counts them). */
export const usesLiveSource = (routes: RouteRecord[]): boolean =>
  routes.some((r) => isLive(r.meta.badge) || isLive(r.meta.dot) || usesLiveSource(r.children ?? []));

/** The badge an item shows: a literal, or its live source's number (nothing while uncounted or at 0). */
export function shownBadge(meta: RouteMeta, counts: LiveCounts = {}): string | number | undefined {
  const badge = meta.badge;
  if (isLive(badge)) return counts[badge.source] || undefined;
  return badge === '' ? undefined : badge;
}

/** Whether an item shows its red dot: set, or its live source counts more than 0. */
export function shownDot(meta: RouteMeta, counts: LiveCounts = {}): boolean {
  const dot = meta.dot;
  return isLive(dot) ? (counts[dot.source] ?? 0) > 0 : !!dot;
}

/** The nodes with every live badge and dot replaced by what it shows now. */
export function withLiveCounts(nodes: MenuNode[], counts: LiveCounts): MenuNode[] {
  return nodes.map((n) => {
    const meta: RouteMeta = { ...n.meta };
    if (isLive(meta.badge)) {
      const shown = shownBadge(meta, counts);
      if (shown === undefined) delete meta.badge;
      else meta.badge = shown;
    }
    if (isLive(meta.dot)) meta.dot = shownDot(meta, counts);
    return { ...n, meta, ...(n.children ? { children: withLiveCounts(n.children, counts) } : {}) };
  });
}

const leafKeys = (nodes: MenuNode[]): string[] => nodes.flatMap((n) => (n.children ? leafKeys(n.children) : [n.key]));

/** The keys of the groups that contain `key`, outermost first. */
export function groupsOf(nodes: MenuNode[], key: string): string[] {
  for (const node of nodes) {
    if (node.key === key) return [];
    if (node.children) {
      const inner = groupsOf(node.children, key);
      if (inner.length || node.children.some((c) => c.key === key)) return [node.key, ...inner];
    }
  }
  return [];
}

export const groupKeys = (nodes: MenuNode[]): string[] =>
  nodes.flatMap((n) => (n.children ? [n.key, ...groupKeys(n.children)] : []));

/**
 * The item to highlight for `pathname`: the page's `activeMenu`, else the nearest record of the page's
 * chain that is in the menu (hidden detail pages light up their parent).
 */
export function selectedKey(nodes: MenuNode[], routes: RouteRecord[], pathname: string): string | undefined {
  const keys = new Set(leafKeys(nodes));
  const chain = matchRouteChain(routes, pathname);
  const active = chain.at(-1)?.meta.activeMenu;
  if (active) {
    if (keys.has(active)) return active;
    const inside = [...keys].find((k) => k.startsWith(`${active}/`));
    if (inside) return inside;
  }
  const reversed = [...chain].reverse();
  for (const record of reversed) if (keys.has(record.path)) return record.path;
  // a levelHidden group's own path: its lifted child stands in for it
  for (const record of reversed) {
    const inside = record.path !== '/' && [...keys].find((k) => k.startsWith(`${record.path}/`));
    if (inside) return inside;
  }
  return undefined;
}

export function findNode(nodes: MenuNode[], key: string): MenuNode | undefined {
  for (const node of nodes) {
    if (node.key === key) return node;
    const inner = node.children && findNode(node.children, key);
    if (inner) return inner;
  }
  return undefined;
}

/** The first-level item that holds `key` (itself when it is first-level). */
export const topKeyOf = (nodes: MenuNode[], key: string): string | undefined =>
  groupsOf(nodes, key)[0] ?? (nodes.some((n) => n.key === key) ? key : undefined);

/** Where a click on `node` leads inside the console: itself, or its first page that is not an external link. */
export function landingKey(node: MenuNode): string | undefined {
  if (!node.children) return node.external ? undefined : node.key;
  for (const child of node.children) {
    const key = landingKey(child);
    if (key) return key;
  }
  return undefined;
}

/** Whether a first-level item opens the column layout's second column (SPEC §3 `noColumn` says no). */
export const opensColumn = (node: MenuNode | undefined): node is MenuNode & { children: MenuNode[] } =>
  !!node?.children?.length && !node.meta.noColumn;
