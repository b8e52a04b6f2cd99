import { ROUTE_COMPONENTS, joinMenuPath, type MenuNode, type MenuRecordBody, type RouteMeta } from '@cpc/contracts';
import { badRequest } from '../../plugins/errors.ts';

/** One row of `menus` as the service works with it. */
export interface MenuRow {
  id: number;
  parent_id: number | null;
  path: string;
  name: string;
  component: string | null;
  redirect: string | null;
  meta: RouteMeta;
  sort: number;
}

const KNOWN_COMPONENTS = new Set<string>(ROUTE_COMPONENTS);
const isExternal = (path: string) => /^(https?:|mailto:|tel:)/i.test(path);

/** Each record's full path: its parent's full path joined with its own (SPEC §3). */
export function fullPaths(rows: MenuRow[]): Map<number, string> {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out = new Map<number, string>();
  const resolve = (r: MenuRow, depth = 0): string => {
    const known = out.get(r.id);
    if (known !== undefined) return known;
    const parent = r.parent_id === null || depth > 100 ? undefined : byId.get(r.parent_id);
    const full = joinMenuPath(parent ? resolve(parent, depth + 1) : '/', r.path);
    out.set(r.id, full);
    return full;
  };
  for (const r of rows) resolve(r);
  return out;
}

/** The tree of rows, siblings in their order, each with its id and full path. */
export function buildTree(rows: MenuRow[]): MenuNode[] {
  const full = fullPaths(rows);
  const byParent = new Map<number | null, MenuRow[]>();
  for (const r of [...rows].sort((a, b) => a.sort - b.sort || a.id - b.id))
    byParent.set(r.parent_id, [...(byParent.get(r.parent_id) ?? []), r]);
  const build = (parent: number | null): MenuNode[] =>
    (byParent.get(parent) ?? []).map((r) => {
      const children = build(r.id);
      return {
        id: r.id,
        fullPath: full.get(r.id) ?? r.path,
        path: r.path,
        name: r.name,
        ...(r.component ? { component: r.component } : {}),
        ...(r.redirect ? { redirect: r.redirect } : {}),
        meta: r.meta,
        ...(children.length ? { children } : {}),
      };
    });
  return build(null);
}

/** A record and everything below it. */
export function subtreeIds(rows: MenuRow[], id: number): Set<number> {
  const ids = new Set([id]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows)
      if (r.parent_id !== null && ids.has(r.parent_id) && !ids.has(r.id)) {
        ids.add(r.id);
        grew = true;
      }
  }
  return ids;
}

/** Where a record's `redirect` and `meta.activeMenu` lead (internal ones only), as full paths. */
function targetsOf(r: MenuRow, full: Map<number, string>): Array<['redirect' | 'meta.activeMenu', string]> {
  const parentFull = r.parent_id === null ? '/' : (full.get(r.parent_id) ?? '/');
  const out: Array<['redirect' | 'meta.activeMenu', string]> = [];
  if (r.redirect && !isExternal(r.redirect)) out.push(['redirect', joinMenuPath(parentFull, r.redirect)]);
  if (r.meta.activeMenu) out.push(['meta.activeMenu', joinMenuPath(parentFull, r.meta.activeMenu)]);
  return out;
}

/**
 * Checks the records `touched` against the whole tree `rows` (as it would be after the change): the page must
 * be one the console has (or none, for a redirect-only record or a link), the full path and the name unique,
 * `redirect` and `meta.activeMenu` must lead to a record's path. With `before` (the tree before the change), a
 * change that leaves another record's redirect or highlight leading nowhere is refused too, naming `field`.
 * Throws a 400 naming the field.
 */
export function validate(rows: MenuRow[], touched: Set<number>, before?: { rows: MenuRow[]; field: string }): void {
  const full = fullPaths(rows);
  const fullSet = new Set(full.values());
  for (const r of rows) {
    if (!touched.has(r.id)) continue;
    const own = full.get(r.id) ?? r.path;
    if (r.component) {
      if (!KNOWN_COMPONENTS.has(r.component))
        throw badRequest('component', 'menu.componentUnknown', { component: r.component });
    } else if (!r.redirect && !isExternal(r.path)) throw badRequest('component', 'menu.componentOrRedirect');
    for (const other of rows) {
      if (other.id === r.id) continue;
      if (full.get(other.id) === own) throw badRequest('path', 'menu.pathTaken', { path: own });
      if (other.name.toLowerCase() === r.name.toLowerCase())
        throw badRequest('name', 'menu.nameTaken', { name: r.name });
    }
    for (const [field, target] of targetsOf(r, full))
      if (!fullSet.has(target)) throw badRequest(field, 'menu.targetMissing', { path: target });
  }
  if (!before) return;
  // the others: what led somewhere before the change must still lead somewhere
  const fullBefore = fullPaths(before.rows);
  const setBefore = new Set(fullBefore.values());
  const old = new Map(before.rows.map((r) => [r.id, r]));
  for (const r of rows) {
    const was = old.get(r.id);
    if (touched.has(r.id) || !was) continue;
    const then = new Map(targetsOf(was, fullBefore));
    for (const [field, target] of targetsOf(r, full)) {
      const previous = then.get(field);
      if (!fullSet.has(target) && previous !== undefined && setBefore.has(previous))
        throw badRequest(before.field, 'menu.stillTargeted', { name: r.name, path: previous });
    }
  }
}

/** Drops empty optional fields, so a form's blanks do not end up in the records. */
function cleanMeta(meta: RouteMeta): RouteMeta {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) {
    if (v === undefined || v === '') continue;
    if (k === 'i18n' && typeof v === 'object' && v && !('zh' in v && v.zh) && !('en' in v && v.en)) continue;
    if (k === 'guard' && Array.isArray(v) && !v.length) continue;
    out[k] = v;
  }
  return out as unknown as RouteMeta;
}

export function recordFields(b: MenuRecordBody) {
  return {
    path: b.path,
    name: b.name,
    component: b.component || null,
    redirect: b.redirect || null,
    meta: cleanMeta(b.meta as RouteMeta),
  };
}

export const snapshot = (r: MenuRow) => ({
  parentId: r.parent_id,
  path: r.path,
  name: r.name,
  component: r.component,
  redirect: r.redirect,
  meta: r.meta,
  sort: r.sort,
});
