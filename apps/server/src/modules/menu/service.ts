import {
  filterRoutes,
  type MenuCreateBody,
  type MenuMoveBody,
  type MenuNode,
  type MenuUpdateBody,
  type MenuVersionDetail,
  type MenuVersionView,
  type RouteMeta,
  type RouteRecord,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { badRequest, notFound } from '../../plugins/errors.ts';
import { MenuRepository } from './repository.ts';
import { buildTree, recordFields, snapshot, subtreeIds, validate, type MenuRow } from './tree.ts';

export interface MenuChange {
  id: number;
  version: number;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/** The menu's records as staff edit them. Every change runs alone (the table is locked) and stores a version. */
export class MenuService {
  private repo: MenuRepository;

  constructor(db: Db) {
    this.repo = new MenuRepository(db);
  }

  /** The route records of the database as the console reads them (no ids). */
  async routeTree(): Promise<RouteRecord[]> {
    return toRouteRecords(await this.repo.listRows());
  }

  /** The user's menu: the route records filtered by their guard rules (roles, permissions, admin). */
  async menuFor(user: { admin: boolean; roles: string[]; permissions: string[] }): Promise<RouteRecord[]> {
    return filterRoutes(await this.routeTree(), user);
  }

  /** The live numbers for one user's badges and dots: their unread messages, counted as the bell counts them. */
  async liveCounts(tenantId: number, userId: number): Promise<{ unreadMessages: number }> {
    return { unreadMessages: await this.repo.countUnreadMessages(tenantId, userId) };
  }

  async tree(): Promise<MenuNode[]> {
    return buildTree(await this.repo.listRows());
  }

  /** Runs `change` with the menu locked, then stores the tree it leaves as a new version. */
  private async change(
    userId: number | null,
    note: string,
    change: (tx: MenuRepository, rows: MenuRow[]) => Promise<Omit<MenuChange, 'version'>>,
  ): Promise<MenuChange> {
    return this.repo.transaction(async (tx) => {
      await tx.lock();
      const result = await change(tx, await tx.listRows());
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
      const id = await tx.insertRecord(fields, draft.parent_id, draft.sort);
      return { id, before: {}, after: snapshot({ ...draft, id }) };
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
      await tx.updateRecord(body.id, fields);
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
      await tx.deleteRecord(id);
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
      for (const [sort, r] of order.entries()) await tx.placeRecord(r.id, body.parentId, sort);
      return {
        id: body.id,
        before: { parentId: current.parent_id, sort: current.sort },
        after: { parentId: body.parentId, sort: index },
      };
    });
  }

  async versions(): Promise<MenuVersionView[]> {
    const rows = await this.repo.listVersions();
    return rows.map((r) => ({
      id: r.id,
      createdAt: r.created_at.toISOString(),
      userId: r.user_id,
      username: r.username ?? null,
      note: r.note,
    }));
  }

  async version(id: number): Promise<MenuVersionDetail> {
    const r = await this.repo.findVersion(id);
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
      const tree = await tx.findVersionTree(id);
      if (!tree) throw notFound('menu version');
      await tx.deleteAll();
      const put = async (nodes: MenuNode[], parentId: number | null) => {
        for (const [sort, n] of nodes.entries()) {
          await tx.insertRestored(n, parentId, sort);
          await put(n.children ?? [], n.id);
        }
      };
      await put(tree, null);
      // new records must not take an id the restored ones use
      await tx.resetIdSequence();
      return { id, before: {}, after: { version: id } };
    });
  }
}

/** Stores the current tree as a version; returns its id. */
export async function storeVersion(repo: MenuRepository, userId: number | null, note: string): Promise<number> {
  return repo.insertVersion(userId, note, buildTree(await repo.listRows()));
}

/** The rows as the console's route records: the tree without ids, siblings in their order. */
function toRouteRecords(rows: MenuRow[]): RouteRecord[] {
  const byParent = new Map<number | null, MenuRow[]>();
  for (const r of rows) byParent.set(r.parent_id, [...(byParent.get(r.parent_id) ?? []), r]);
  const build = (parent: number | null): RouteRecord[] =>
    (byParent.get(parent) ?? []).map((r) => {
      const children = build(r.id);
      return {
        path: r.path,
        name: r.name,
        ...(r.component ? { component: r.component } : {}),
        ...(r.redirect ? { redirect: r.redirect } : {}),
        meta: r.meta as unknown as RouteMeta,
        ...(children.length ? { children } : {}),
      };
    });
  return build(null);
}
