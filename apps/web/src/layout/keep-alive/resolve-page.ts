import { matchPath, type Params } from 'react-router';
import type { RouteRecord } from '@cpc/contracts';
import { HOME_PATH, NOT_FOUND_PATH, WHITE_LIST } from '../../config/settings';
import { findRoute, isExternal, isPage, landingPath } from '../../lib/menu-routes';

/** What a location shows inside the layout: one of the user's pages, or where it leads instead. */
export type PageResolution = { kind: 'page'; record: RouteRecord; params: Params } | { kind: 'redirect'; to: string };

/** Enough hops for any real menu; a menu whose redirects loop ends on /404 instead of hanging. */
const MAX_HOPS = 10;

const pathOf = (target: string): string => target.split(/[?#]/)[0] || HOME_PATH;

const landingOrSelf = (record: RouteRecord): string | undefined =>
  isExternal(record.path) || record.meta.hidden ? undefined : isPage(record) ? record.path : landingPath(record);

/** One step: the page at `pathname`, or the next place its record sends to. */
function step(routes: RouteRecord[], pathname: string): PageResolution {
  const record = findRoute(routes, pathname);
  if (!record) {
    // the guard sends a fresh login to '/': a menu without a root record still needs somewhere to land
    if (pathname === HOME_PATH)
      return { kind: 'redirect', to: routes.map(landingOrSelf).find((p): p is string => !!p) ?? NOT_FOUND_PATH };
    return { kind: 'redirect', to: NOT_FOUND_PATH };
  }
  const target = record.redirect ?? (isPage(record) ? undefined : landingPath(record));
  if (target && pathOf(target) !== pathname) return { kind: 'redirect', to: target };
  if (!isPage(record)) return { kind: 'redirect', to: NOT_FOUND_PATH };
  return { kind: 'page', record, params: matchPath({ path: record.path, end: true }, pathname)?.params ?? {} };
}

/**
 * The page a path opens among the user's route records, or the final end of its redirects: `/` leads
 * through `/device` to `/device/index` in one answer, so the console redirects once, not once per record.
 * Unknown paths lead to /404; the public screens (the white list) are not the menu's to resolve.
 */
export function resolvePage(routes: RouteRecord[], pathname: string): PageResolution {
  const first = step(routes, pathname);
  if (first.kind === 'page') return first;
  let to = first.to;
  for (let hops = 0; hops < MAX_HOPS; hops++) {
    const next = pathOf(to);
    if (WHITE_LIST.includes(next)) return { kind: 'redirect', to };
    const after = step(routes, next);
    if (after.kind === 'page') return { kind: 'redirect', to };
    to = after.to;
  }
  return { kind: 'redirect', to: NOT_FOUND_PATH };
}

/** Where the guard sends `pathname` instead, or null when it opens a page (or is a public screen). */
export function menuRedirect(routes: RouteRecord[], pathname: string): string | null {
  if (WHITE_LIST.includes(pathname)) return null;
  const resolved = resolvePage(routes, pathname);
  return resolved.kind === 'redirect' ? resolved.to : null;
}
