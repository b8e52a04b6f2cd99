import { sql } from 'kysely';
import type { MenuNode, RouteMeta } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { defineQueries } from '../../db/query-spec.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import type { MenuRow } from './tree.ts';

/** The fields of a record as stored (its `meta` as JSON). */
export interface MenuFields {
  path: string;
  name: string;
  component: string | null;
  redirect: string | null;
  meta: RouteMeta;
}

/** A stored version of the menu, with the name of whoever made it. */
export interface MenuVersionRow {
  id: number;
  created_at: Date;
  user_id: number | null;
  note: string;
  username: string | null;
}

/**
 * Every statement of the menu: its records (`menus`), the versions staff roll back to (`menu_versions`), the
 * names the seed has put in (`menu_seeds`), and the unread count its badges show (`messages`).
 */
export class MenuRepository {
  constructor(private db: Db) {}

  /** Runs `work` in one transaction with a repository bound to it. */
  transaction<T>(work: (repo: MenuRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new MenuRepository(trx)));
  }

  /** Locks the records against other changes until the transaction ends (reads go on). */
  async lock(): Promise<void> {
    await sql`lock table menus in share row exclusive mode`.execute(this.db);
  }

  /** Every record, siblings in their order. */
  async listRows(): Promise<MenuRow[]> {
    const rows = await this.db.selectFrom('menus').selectAll().orderBy('sort').orderBy('id').execute();
    return rows.map((r) => ({ ...r, meta: r.meta as unknown as RouteMeta }));
  }

  /** Adds a record under `parentId` at `sort`; answers its id. */
  async insertRecord(f: MenuFields, parentId: number | null, sort: number): Promise<number> {
    const row = await this.db
      .insertInto('menus')
      .values({ ...f, parent_id: parentId, sort, meta: JSON.stringify(f.meta) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async updateRecord(id: number, f: MenuFields): Promise<void> {
    await this.db
      .updateTable('menus')
      .set({ ...f, meta: JSON.stringify(f.meta) })
      .where('id', '=', id)
      .execute();
  }

  /** Deletes a record (those below it go with it: the parent key cascades). */
  async deleteRecord(id: number): Promise<void> {
    await this.db.deleteFrom('menus').where('id', '=', id).execute();
  }

  async placeRecord(id: number, parentId: number | null, sort: number): Promise<void> {
    await this.db.updateTable('menus').set({ parent_id: parentId, sort }).where('id', '=', id).execute();
  }

  /** Empties the menu (before a version is put back). */
  async deleteAll(): Promise<void> {
    await this.db.deleteFrom('menus').execute();
  }

  /** Puts a record of a stored version back, with its own id. */
  async insertRestored(n: MenuNode, parentId: number | null, sort: number): Promise<void> {
    await this.db
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
  }

  /** Moves the id sequence past the restored records, so new records do not take an id they use. */
  async resetIdSequence(): Promise<void> {
    await sql`select setval(pg_get_serial_sequence('menus', 'id'), greatest((select max(id) from menus), 1))`.execute(
      this.db,
    );
  }

  /** Stores a tree as a version; answers its id. */
  async insertVersion(userId: number | null, note: string, tree: MenuNode[]): Promise<number> {
    const row = await this.db
      .insertInto('menu_versions')
      .values({ user_id: userId, note, tree: JSON.stringify(tree) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** The newest 200 versions, newest first. */
  listVersions(): Promise<MenuVersionRow[]> {
    return this.db
      .selectFrom('menu_versions as v')
      .leftJoin('users as u', 'u.id', 'v.user_id')
      .select(['v.id', 'v.created_at', 'v.user_id', 'v.note', 'u.username'])
      .orderBy('v.id', 'desc')
      .limit(200)
      .execute();
  }

  /** One version with its tree. */
  findVersion(id: number): Promise<(MenuVersionRow & { tree: unknown }) | undefined> {
    return this.db
      .selectFrom('menu_versions as v')
      .leftJoin('users as u', 'u.id', 'v.user_id')
      .select(['v.id', 'v.created_at', 'v.user_id', 'v.note', 'v.tree', 'u.username'])
      .where('v.id', '=', id)
      .executeTakeFirst();
  }

  /** The tree of one version only. */
  async findVersionTree(id: number): Promise<MenuNode[] | undefined> {
    const v = await this.db.selectFrom('menu_versions').select('tree').where('id', '=', id).executeTakeFirst();
    return v ? (v.tree as unknown as MenuNode[]) : undefined;
  }

  /** Whether any version is stored. */
  async hasVersion(): Promise<boolean> {
    return !!(await this.db.selectFrom('menu_versions').select('id').limit(1).executeTakeFirst());
  }

  /** The names the seed has ever put in. */
  async seededNames(): Promise<string[]> {
    return (await this.db.selectFrom('menu_seeds').select('name').execute()).map((r) => r.name);
  }

  /** Every record's id by its name. */
  async idsByName(): Promise<Map<string, number>> {
    const rows = await this.db.selectFrom('menus').select(['id', 'name']).execute();
    return new Map(rows.map((r) => [r.name, r.id] as const));
  }

  /** Remembers that the seed of `version` has put `name` in. */
  async insertSeeded(name: string, version: number): Promise<void> {
    await this.db.insertInto('menu_seeds').values({ name, version }).execute();
  }

  /** The user's unread messages, counted as the bell counts them. */
  async countUnreadMessages(tenantId: number, userId: number): Promise<number> {
    const row = await new TenantScope(this.db, tenantId)
      .selectFrom('messages')
      .select(sql<number>`count(*)`.as('n'))
      .where('messages.user_id', '=', userId)
      .where('messages.read_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

const record = {
  path: 'device',
  name: 'DeviceUpgrade',
  component: 'upgrade/device',
  redirect: null,
  meta: { title: 'route.deviceUpgrade', icon: 'upgrade' } as RouteMeta,
};
const node: MenuNode = {
  id: 31,
  fullPath: '/upgrade/device',
  path: 'device',
  name: 'DeviceUpgrade',
  component: 'upgrade/device',
  meta: { title: 'route.deviceUpgrade', icon: 'upgrade' } as RouteMeta,
};

export const queries = defineQueries(MenuRepository, {
  lock: [[]],
  listRows: [[]],
  insertRecord: [[record, 30, 2]],
  updateRecord: [[31, record]],
  deleteRecord: [[31]],
  placeRecord: [[31, null, 4]],
  deleteAll: [[]],
  insertRestored: [[node, 30, 2]],
  resetIdSequence: [[]],
  insertVersion: [[41, 'update DeviceUpgrade', [node]]],
  listVersions: [[]],
  findVersion: [[12]],
  findVersionTree: [[12]],
  hasVersion: [[]],
  seededNames: [[]],
  idsByName: [[]],
  insertSeeded: [['DeviceUpgrade', 5]],
  countUnreadMessages: [[3, 41]],
});
