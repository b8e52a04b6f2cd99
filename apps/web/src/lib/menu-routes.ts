import { matchPath } from 'react-router';
import type { RouteMeta, RouteRecord } from '@cpc/contracts';
import { getLanguage } from './i18n';

/**
 * The server's route records (SPEC §3) as the console uses them: absolute paths, and lookups from a
 * location to the chain of records it is in (for the menu highlight, breadcrumbs and the page title).
 */

/** Component name of a record that only groups its children. */
export const LAYOUT_COMPONENT = 'Layout';

export const isExternal = (path: string): boolean => /^(https?:|mailto:|tel:)/i.test(path);

export function resolvePath(parent: string, path: string): string {
  if (isExternal(path) || path.startsWith('/')) return path;
  const joined = `${parent}/${path}`.replace(/\/{2,}/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class RouteFormatError extends Error {
  override name = 'RouteFormatError';
}

/**
 * Validates the menu the server returned and resolves every path against its parent's.
 * Throws a `RouteFormatError` when it is not a list of records.
 */
export function normalizeRoutes(records: unknown, parent = '/'): RouteRecord[] {
  if (!Array.isArray(records)) throw new RouteFormatError('routes must be a list');
  return records.map((raw): RouteRecord => {
    if (!isRecord(raw) || typeof raw.path !== 'string') throw new RouteFormatError('a route needs a path');
    const path = resolvePath(parent, raw.path);
    const meta = (isRecord(raw.meta) ? raw.meta : {}) as Partial<RouteMeta>;
    const record: RouteRecord = {
      path,
      name: typeof raw.name === 'string' ? raw.name : path,
      meta: { ...meta, title: typeof meta.title === 'string' ? meta.title : '' },
    };
    if (typeof raw.component === 'string') record.component = raw.component;
    if (typeof raw.redirect === 'string') record.redirect = resolvePath(parent, raw.redirect);
    if (raw.children !== undefined) record.children = normalizeRoutes(raw.children, path);
    return record;
  });
}

/**
 * A record's title as the console shows it: the literal title staff set for the language (`meta.i18n`) when
 * there is one, else its i18n key translated.
 */
export function routeTitle(
  meta: Pick<RouteMeta, 'title' | 'i18n'>,
  t: (key: string) => string,
  language = getLanguage(),
): string {
  const literal = meta.i18n?.[language]?.trim();
  return literal || (meta.title ? t(meta.title) : '');
}

export const isPage = (record: RouteRecord): boolean => !!record.component && record.component !== LAYOUT_COMPONENT;

/** Every record, parents before their children. */
export function flattenRoutes(routes: RouteRecord[]): RouteRecord[] {
  return routes.flatMap((r) => [r, ...flattenRoutes(r.children ?? [])]);
}

/** The records from the top level down to the deepest one whose path matches `pathname`; [] when none. */
export function matchRouteChain(routes: RouteRecord[], pathname: string): RouteRecord[] {
  for (const record of routes) {
    const below = matchRouteChain(record.children ?? [], pathname);
    if (below.length) return [record, ...below];
    if (!isExternal(record.path) && matchPath({ path: record.path, end: true }, pathname)) return [record];
  }
  return [];
}

export const findRoute = (routes: RouteRecord[], pathname: string): RouteRecord | undefined =>
  matchRouteChain(routes, pathname).at(-1);

/** Where a record without a page of its own leads: its redirect, else its first child that can be opened. */
export function landingPath(record: RouteRecord): string | undefined {
  if (record.redirect) return record.redirect;
  for (const child of record.children ?? []) {
    if (isExternal(child.path) || child.path.includes(':')) continue;
    if (isPage(child)) return child.path;
    const deeper = landingPath(child);
    if (deeper) return deeper;
  }
  return undefined;
}
