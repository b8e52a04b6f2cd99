/** Route and menu records (SPEC §3) and the guard rules of SPEC §6, shared by the server's menu filter and the console. */

/** A number the server or the console counts live instead of a literal badge or dot (see `menu.ts`). */
export interface LiveSource {
  source: 'unreadMessages';
}

export interface RouteMeta {
  /** An i18n key of the console ('route.device'). */
  title: string;
  /** Literal titles set by staff; the console prefers them to `title` when present. */
  i18n?: { zh: string; en: string };
  icon?: string;
  hidden?: boolean;
  levelHidden?: boolean;
  noClosable?: boolean;
  tabHidden?: boolean;
  dynamicNewTab?: boolean;
  activeMenu?: string;
  guard?: Guard;
  badge?: string | number | LiveSource;
  dot?: boolean | LiveSource;
  target?: '_blank' | '_self';
  noColumn?: boolean;
  breadcrumbHidden?: boolean;
  noKeepAlive?: boolean;
  isCustomSvg?: boolean;
}

export interface RouteRecord {
  path: string;
  name: string;
  component?: string;
  redirect?: string;
  meta: RouteMeta;
  children?: RouteRecord[];
}

export type GuardMode = 'allOf' | 'oneOf' | 'except';

export type Guard = string[] | { role?: string[]; permission?: string[]; mode?: GuardMode };

export interface Access {
  admin: boolean;
  roles: string[];
  permissions: string[];
}

/**
 * SPEC §6: admin passes everything; a list passes when any of the user's roles or permissions is in it;
 * an object checks its role and permission lists with allOf / oneOf (default) / except.
 */
export function canAccess(guard: Guard | undefined, access: Access): boolean {
  if (!guard) return true;
  if (access.admin) return true;
  const owned = new Set([...access.roles, ...access.permissions]);
  if (Array.isArray(guard)) return guard.length === 0 || guard.some((g) => owned.has(g));
  const wanted = [...(guard.role ?? []), ...(guard.permission ?? [])];
  if (wanted.length === 0) return true;
  switch (guard.mode ?? 'oneOf') {
    case 'allOf':
      return wanted.every((g) => owned.has(g));
    case 'except':
      return !wanted.some((g) => owned.has(g));
    default:
      return wanted.some((g) => owned.has(g));
  }
}

/** Removes the records (and their children) the user may not see. */
export function filterRoutes(routes: RouteRecord[], access: Access): RouteRecord[] {
  return routes
    .filter((r) => canAccess(r.meta.guard, access))
    .map((r) => (r.children ? { ...r, children: filterRoutes(r.children, access) } : r));
}
