import { sql } from 'kysely';
import {
  ROUTE_COMPONENTS,
  joinMenuPath,
  type MenuCreateBody,
  type MenuMoveBody,
  type MenuNode,
  type MenuRecordBody,
  type MenuUpdateBody,
  type MenuVersionDetail,
  type MenuVersionView,
  type RouteMeta,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { badRequest, notFound } from '../../plugins/errors.ts';

type Tx = Db;

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

export async function loadRows(db: Db): Promise<MenuRow[]> {
  const rows = await db.selectFrom('menus').selectAll().orderBy('sort').orderBy('id').execute();
  return rows.map((r) => ({ ...r, meta: r.meta as unknown as RouteMeta }));
}

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
function subtreeIds(rows: MenuRow[], id: number): Set<number> {
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

function recordFields(b: MenuRecordBody) {
  return {
    path: b.path,
    name: b.name,
    component: b.component || null,
    redirect: b.redirect || null,
    meta: cleanMeta(b.meta as RouteMeta),
  };
}

const snapshot = (r: MenuRow) => ({
  parentId: r.parent_id,
  path: r.path,
  name: r.name,
  component: r.component,
  redirect: r.redirect,
  meta: r.meta,
  sort: r.sort,
});

export interface MenuChange {
  id: number;
  version: number;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/** The menu's records as staff edit them. Every change runs alone (the table is locked) and stores a version. */
export class MenuService {
  constructor(private db: Db) {}

  async tree(): Promise<MenuNode[]> {
    return buildTree(await loadRows(this.db));
  }

  /** Runs `change` with the menu locked, then stores the tree it leaves as a new version. */
  private async change(
    userId: number | null,
    note: string,
    change: (tx: Tx, rows: MenuRow[]) => Promise<Omit<MenuChange, 'version'>>,
  ): Promise<MenuChange> {
    return this.db.transaction().execute(async (tx) => {
      await sql`lock table menus in share row exclusive mode`.execute(tx);
      const result = await change(tx, await loadRows(tx));
      const version = await storeVersion(tx, userId, note);
      return { ...result, version };
    });
  }

  create(userId: number, body: MenuCreateBody): Promise<MenuChange> {
    return this.change(userId, `create ${body.name}`, async (tx, rows) => {
      if (body.parentId !== null && !rows.some((r) => r.id === body.parentId)) throw notFound('menu item');
      const siblings = rows.filter((r) => r.parent_id === body.parentId);
      const fields = recordFields(body);
      const draft: MenuRow = {
        id: -1,
        parent_id: body.parentId,
        sort: Math.max(-1, ...siblings.map((s) => s.sort)) + 1,
        ...fields,
      };
      validate([...rows, draft], new Set([-1]));
      const row = await tx
        .insertInto('menus')
        .values({ ...fields, parent_id: draft.parent_id, sort: draft.sort, meta: JSON.stringify(fields.meta) })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: row.id, before: {}, after: snapshot({ ...draft, id: row.id }) };
    });
  }

  update(userId: number, body: MenuUpdateBody): Promise<MenuChange> {
    return this.change(userId, `update ${body.name}`, async (tx, rows) => {
      const current = rows.find((r) => r.id === body.id);
      if (!current) throw notFound('menu item');
      const fields = recordFields(body);
      const next: MenuRow = { ...current, ...fields };
      // a new path moves the full paths of every record below it too
      validate(
        rows.map((r) => (r.id === body.id ? next : r)),
        subtreeIds(rows, body.id),
        { rows, field: 'path' },
      );
      await tx
        .updateTable('menus')
        .set({ ...fields, meta: JSON.stringify(fields.meta) })
        .where('id', '=', body.id)
        .execute();
      return { id: body.id, before: snapshot(current), after: snapshot(next) };
    });
  }

  /** Deletes a record with everything below it. */
  delete(userId: number, id: number): Promise<MenuChange> {
    return this.change(userId, `delete #${id}`, async (tx, rows) => {
      const current = rows.find((r) => r.id === id);
      if (!current) throw notFound('menu item');
      const gone = subtreeIds(rows, id);
      validate(
        rows.filter((r) => !gone.has(r.id)),
        new Set(),
        { rows, field: 'id' },
      );
      await tx.deleteFrom('menus').where('id', '=', id).execute();
      return { id, before: { ...snapshot(current), subtree: gone.size }, after: {} };
    });
  }

  /** Drag and drop: under `parentId` (null: the top level), at `index` among its new siblings. */
  move(userId: number, body: MenuMoveBody): Promise<MenuChange> {
    return this.change(userId, `move #${body.id}`, async (tx, rows) => {
      const current = rows.find((r) => r.id === body.id);
      if (!current) throw notFound('menu item');
      if (body.parentId !== null) {
        if (!rows.some((r) => r.id === body.parentId)) throw notFound('menu item');
        if (subtreeIds(rows, body.id).has(body.parentId)) throw badRequest('parentId', 'menu.cycle');
      }
      const siblings = rows
        .filter((r) => r.parent_id === body.parentId && r.id !== body.id)
        .sort((a, b) => a.sort - b.sort || a.id - b.id);
      const index = Math.min(body.index, siblings.length);
      const order = [...siblings.slice(0, index), current, ...siblings.slice(index)];
      const next = rows.map((r) => {
        const at = order.findIndex((o) => o.id === r.id);
        return at < 0 ? r : { ...r, parent_id: body.parentId, sort: at };
      });
      validate(next, subtreeIds(rows, body.id), { rows, field: 'parentId' });
      for (const [sort, r] of order.entries())
        await tx.updateTable('menus').set({ parent_id: body.parentId, sort }).where('id', '=', r.id).execute();
      return {
        id: body.id,
        before: { parentId: current.parent_id, sort: current.sort },
        after: { parentId: body.parentId, sort: index },
      };
    });
  }

  async versions(): Promise<MenuVersionView[]> {
    const rows = await this.db
      .selectFrom('menu_versions as v')
      .leftJoin('users as u', 'u.id', 'v.user_id')
      .select(['v.id', 'v.created_at', 'v.user_id', 'v.note', 'u.username'])
      .orderBy('v.id', 'desc')
      .limit(200)
      .execute();
    return rows.map((r) => ({
      id: r.id,
      createdAt: r.created_at.toISOString(),
      userId: r.user_id,
      username: r.username ?? null,
      note: r.note,
    }));
  }

  async version(id: number): Promise<MenuVersionDetail> {
    const r = await this.db
      .selectFrom('menu_versions as v')
      .leftJoin('users as u', 'u.id', 'v.user_id')
      .select(['v.id', 'v.created_at', 'v.user_id', 'v.note', 'v.tree', 'u.username'])
      .where('v.id', '=', id)
      .executeTakeFirst();
    if (!r) throw notFound('menu version');
    return {
      id: r.id,
      createdAt: r.created_at.toISOString(),
      userId: r.user_id,
      username: r.username ?? null,
      note: r.note,
      tree: r.tree as unknown as MenuNode[],
    };
  }

  /** Puts the tree of version `id` back, ids and all; the rollback is itself a new version. */
  rollback(userId: number, id: number): Promise<MenuChange> {
    return this.change(userId, `rollback to #${id}`, async (tx) => {
      const v = await tx.selectFrom('menu_versions').select('tree').where('id', '=', id).executeTakeFirst();
      if (!v) throw notFound('menu version');
      await tx.deleteFrom('menus').execute();
      const put = async (nodes: MenuNode[], parentId: number | null) => {
        for (const [sort, n] of nodes.entries()) {
          await tx
            .insertInto('menus')
            .values({
              id: n.id,
              parent_id: parentId,
              path: n.path,
              name: n.name,
              component: n.component ?? null,
              redirect: n.redirect ?? null,
              meta: JSON.stringify(n.meta),
              sort,
            })
            .execute();
          await put(n.children ?? [], n.id);
        }
      };
      await put(v.tree as unknown as MenuNode[], null);
      // new records must not take an id the restored ones use
      await sql`select setval(pg_get_serial_sequence('menus', 'id'), greatest((select max(id) from menus), 1))`.execute(
        tx,
      );
      return { id, before: {}, after: { version: id } };
    });
  }
}

/** Stores the current tree as a version; returns its id. */
export async function storeVersion(db: Db, userId: number | null, note: string): Promise<number> {
  const tree = buildTree(await loadRows(db));
  const row = await db
    .insertInto('menu_versions')
    .values({ user_id: userId, note, tree: JSON.stringify(tree) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
