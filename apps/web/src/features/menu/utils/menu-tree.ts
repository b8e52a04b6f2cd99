import { joinMenuPath, type MenuNode, type MenuRecordBody } from '@cpc/contracts/menu';
import type { Guard, GuardMode, LiveSource, RouteMeta, RouteRecord } from '@cpc/contracts/route';

export const flattenNodes = (nodes: MenuNode[]): MenuNode[] =>
  nodes.flatMap((n) => [n, ...flattenNodes(n.children ?? [])]);

export const findNode = (nodes: MenuNode[], id: number): MenuNode | undefined =>
  flattenNodes(nodes).find((n) => n.id === id);

/** Where a node is: its parent's id (null at the top) and its place among its siblings. */
export function placeOf(nodes: MenuNode[], id: number, parentId: number | null = null): [number | null, number] | null {
  for (const [i, n] of nodes.entries()) {
    if (n.id === id) return [parentId, i];
    const below = placeOf(n.children ?? [], id, n.id);
    if (below) return below;
  }
  return null;
}

/**
 * An antd Tree drop as a move: onto a node (not into a gap) makes the dragged one its first child; into the gap
 * before (`side` -1) or after (1) a node puts it there among that node's siblings. The index counts the new
 * siblings without the dragged node, as the server does.
 */
export function dropToMove(
  nodes: MenuNode[],
  dragId: number,
  dropId: number,
  intoGap: boolean,
  side: -1 | 1,
): { id: number; parentId: number | null; index: number } | null {
  if (dragId === dropId) return null;
  if (!intoGap) return { id: dragId, parentId: dropId, index: 0 };
  const target = placeOf(nodes, dropId);
  const dragged = placeOf(nodes, dragId);
  if (!target || !dragged) return null;
  const [parentId, at] = target;
  let index = side < 0 ? at : at + 1;
  if (dragged[0] === parentId && dragged[1] < at) index -= 1;
  return { id: dragId, parentId, index };
}

/** The records as the console's menu reads them (absolute paths), for the preview. */
export function toRoutes(nodes: MenuNode[], parent = '/'): RouteRecord[] {
  return nodes.map((n) => {
    const path = joinMenuPath(parent, n.path);
    const children = n.children?.length ? toRoutes(n.children, path) : undefined;
    return {
      path,
      name: n.name,
      ...(n.component ? { component: n.component } : {}),
      ...(n.redirect ? { redirect: joinMenuPath(parent, n.redirect) } : {}),
      meta: n.meta,
      ...(children ? { children } : {}),
    };
  });
}

/** The tree with one node's fields replaced (the form's unsaved values, for the live preview). */
export const replaceNode = (nodes: MenuNode[], id: number, fields: Partial<MenuNode>): MenuNode[] =>
  nodes.map((n) =>
    n.id === id ? { ...n, ...fields } : n.children ? { ...n, children: replaceNode(n.children, id, fields) } : n,
  );

export const FLAGS = [
  'hidden',
  'levelHidden',
  'noClosable',
  'tabHidden',
  'dynamicNewTab',
  'noColumn',
  'breadcrumbHidden',
  'noKeepAlive',
] as const;
type Flag = (typeof FLAGS)[number];

export type GuardKind = 'none' | 'list' | 'object';
export type MarkKind = 'none' | 'literal' | 'live';

/** The form of one record: SPEC §3's fields, with guard, badge and dot split into simple inputs. */
export interface MenuFormValues {
  path: string;
  name: string;
  component?: string;
  redirect?: string;
  title: string;
  zh?: string;
  en?: string;
  icon?: string;
  activeMenu?: string;
  target?: '_blank' | '_self';
  flags: Flag[];
  guardKind: GuardKind;
  guardList: string[];
  guardRoles: string[];
  guardPermissions: string[];
  guardMode: GuardMode;
  badgeKind: MarkKind;
  badgeText?: string;
  badgeSource: LiveSource['source'];
  dotKind: MarkKind;
  dotSource: LiveSource['source'];
}

const isLive = (v: unknown): v is LiveSource => typeof v === 'object' && v !== null && 'source' in v;

export const EMPTY_FORM: MenuFormValues = {
  path: '',
  name: '',
  component: undefined,
  title: '',
  flags: [],
  guardKind: 'none',
  guardList: [],
  guardRoles: [],
  guardPermissions: [],
  guardMode: 'oneOf',
  badgeKind: 'none',
  badgeSource: 'unreadMessages',
  dotKind: 'none',
  dotSource: 'unreadMessages',
};

export function toFormValues(n: MenuNode): MenuFormValues {
  const m = n.meta;
  const guard = m.guard;
  return {
    ...EMPTY_FORM,
    path: n.path,
    name: n.name,
    component: n.component,
    redirect: n.redirect,
    title: m.title ?? '',
    zh: m.i18n?.zh,
    en: m.i18n?.en,
    icon: m.icon,
    activeMenu: m.activeMenu,
    target: m.target,
    flags: FLAGS.filter((f) => m[f]),
    guardKind: !guard ? 'none' : Array.isArray(guard) ? 'list' : 'object',
    guardList: Array.isArray(guard) ? guard : [],
    guardRoles: guard && !Array.isArray(guard) ? (guard.role ?? []) : [],
    guardPermissions: guard && !Array.isArray(guard) ? (guard.permission ?? []) : [],
    guardMode: guard && !Array.isArray(guard) ? (guard.mode ?? 'oneOf') : 'oneOf',
    badgeKind: m.badge === undefined || m.badge === '' ? 'none' : isLive(m.badge) ? 'live' : 'literal',
    badgeText: m.badge !== undefined && !isLive(m.badge) ? String(m.badge) : undefined,
    badgeSource: isLive(m.badge) ? m.badge.source : 'unreadMessages',
    dotKind: !m.dot ? 'none' : isLive(m.dot) ? 'live' : 'literal',
    dotSource: isLive(m.dot) ? m.dot.source : 'unreadMessages',
  };
}

const text = (v: string | undefined) => v?.trim() || undefined;

/** The record a form's values make: empty inputs are left out, numbers stay numbers in a badge. */
export function toRecordBody(v: MenuFormValues): MenuRecordBody {
  const meta: RouteMeta = { title: v.title?.trim() ?? '' };
  if (text(v.zh) || text(v.en)) meta.i18n = { zh: text(v.zh) ?? '', en: text(v.en) ?? '' };
  if (text(v.icon)) meta.icon = text(v.icon);
  if (text(v.activeMenu)) meta.activeMenu = text(v.activeMenu);
  if (v.target) meta.target = v.target;
  for (const f of v.flags ?? []) meta[f] = true;
  let guard: Guard | undefined;
  if (v.guardKind === 'list') guard = v.guardList ?? [];
  if (v.guardKind === 'object') {
    guard = { mode: v.guardMode };
    if (v.guardRoles?.length) guard.role = v.guardRoles;
    if (v.guardPermissions?.length) guard.permission = v.guardPermissions;
  }
  if (guard) meta.guard = guard;
  if (v.badgeKind === 'live') meta.badge = { source: v.badgeSource };
  if (v.badgeKind === 'literal' && text(v.badgeText)) {
    const t = text(v.badgeText) ?? '';
    meta.badge = /^\d{1,6}$/.test(t) ? Number(t) : t;
  }
  if (v.dotKind === 'live') meta.dot = { source: v.dotSource };
  if (v.dotKind === 'literal') meta.dot = true;
  return {
    path: v.path?.trim() ?? '',
    name: v.name?.trim() ?? '',
    ...(text(v.component) ? { component: text(v.component) } : {}),
    ...(text(v.redirect) ? { redirect: text(v.redirect) } : {}),
    meta: meta as MenuRecordBody['meta'],
  };
}

/** The form input a server field error belongs to ('meta.activeMenu' → activeMenu, 'meta.guard.mode' → guardKind). */
export function formFieldOf(serverField: string): keyof MenuFormValues | undefined {
  const [head, sub] = serverField.split('.');
  if (head !== 'meta') return (['path', 'name', 'component', 'redirect'] as const).find((f) => f === head);
  if (sub === 'i18n') return 'zh';
  if (sub === 'guard') return 'guardKind';
  if (sub === 'badge') return 'badgeKind';
  if (sub === 'dot') return 'dotKind';
  return (['title', 'icon', 'activeMenu', 'target'] as const).find((f) => f === sub) ?? 'title';
}
