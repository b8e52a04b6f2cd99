import { sql } from 'kysely';
import type {
  DepartmentAddBody,
  DepartmentEditBody,
  DepartmentNode,
  DepartmentTree,
  DepartmentView,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { dataAccessOf, inDataScope } from '../../lib/data-scope.ts';
import { checkPlacement } from '../role/index.ts';

interface Row {
  id: number;
  name: string;
  parent_id: number | null;
  sort: number;
  path: string;
}

const view = (d: Row): DepartmentView => ({ id: d.id, name: d.name, parentId: d.parent_id, sort: d.sort });

/** Unique names among siblings: the index says so; this says it as a field error. */
function sameName(e: unknown): never {
  if ((e as { code?: string }).code === '23505') throw badRequest('name', 'department.nameTaken');
  throw e;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

export interface Actor {
  user: AuthUser;
  ip: string;
}

/**
 * Changing the tree within one's data scope: moving a department moves its devices with it, so a caller who sees
 * less than the whole account (`dataAccessOf`) could otherwise pull another department's devices into its own
 * subtree, or rename, move and delete what it does not see. `all` changes anything; `department` changes only
 * the departments strictly below its own (not its own node) and puts them only under its own department or
 * below; `own` changes nothing. The caller's path comes from its sign-in: a concurrent move of its own department
 * can only make it refuse (the stale prefix names an ancestry that no longer exists), never widen.
 */
function assertChangeable(user: AuthUser, d: { name: string; path: string }): void {
  const me = dataAccessOf(user);
  if (me.scope === 'all') return;
  if (me.scope === 'own') throw new AppError(403, 'department.ownScopeReadOnly', { department: d.name });
  const mine = me.departmentPath ?? '\0';
  if (d.path === mine) throw new AppError(403, 'department.ownDepartment', { department: d.name });
  if (!d.path.startsWith(mine)) throw new AppError(403, 'department.outsideScope', { department: d.name });
}

/** 403 unless the caller may put the department `name` under `parent` (null: the top level). */
function assertParentInScope(user: AuthUser, name: string, parent: Row | null): void {
  const me = dataAccessOf(user);
  if (me.scope === 'all') return;
  if (me.scope === 'own') throw new AppError(403, 'department.ownScopeReadOnly', { department: name });
  if (!parent) throw new AppError(403, 'department.topLevelInScope', { department: name }, { field: 'parentId' });
  // the same rule as placing a user: the caller's department or one below it
  checkPlacement(user, parent, 'parentId');
}

/**
 * The department tree of a tenant (issue 12). `path` holds the ancestors' ids and the department's own, each
 * followed by '/', so "this department and below" is one prefix match (the data scope `department`); a move
 * rewrites the paths of the moved subtree in the same transaction as the move.
 */
export class DepartmentService {
  constructor(private db: Db) {}

  /**
   * The tree, siblings by sort then name, with the users and devices of each department itself. Every department
   * is listed (the pickers and device screens name them), but the devices counted are those in the caller's data
   * scope, as the device list would show them.
   */
  async tree(user: AuthUser): Promise<DepartmentTree> {
    const seen = inDataScope(dataAccessOf(user), 'd');
    const rows = await user.scope
      .selectFrom('departments')
      .select([
        'departments.id',
        'departments.name',
        'departments.parent_id',
        'departments.sort',
        sql<number>`(select count(*) from users u where u.department_id = departments.id and u.tenant_id = ${user.tenantId})`.as(
          'users',
        ),
        sql<number>`(select count(*) from devices d where d.department_id = departments.id and d.tenant_id = ${user.tenantId} and ${seen})`.as(
          'devices',
        ),
      ])
      .execute();
    const byParent = new Map<number | null, typeof rows>();
    for (const d of rows) byParent.set(d.parent_id, [...(byParent.get(d.parent_id) ?? []), d]);
    const build = (parent: number | null): DepartmentNode[] =>
      (byParent.get(parent) ?? [])
        .sort((a, b) => a.sort - b.sort || a.name.localeCompare(b.name) || a.id - b.id)
        .map((d) => ({
          id: d.id,
          name: d.name,
          parentId: d.parent_id,
          sort: d.sort,
          userCount: Number(d.users),
          deviceCount: Number(d.devices),
          children: build(d.id),
        }));
    return build(null);
  }

  /** Every department of the tenant, locked: one tenant's tree changes one edit at a time (no cycle by two moves). */
  private locked(scope: TenantScope): Promise<Row[]> {
    return scope
      .selectFrom('departments')
      .select(['departments.id', 'departments.name', 'departments.parent_id', 'departments.sort', 'departments.path'])
      .forUpdate()
      .execute();
  }

  private static assertNameFree(all: Row[], name: string, parentId: number | null, exceptId?: number): void {
    const lower = name.toLowerCase();
    if (all.some((d) => d.parent_id === parentId && d.id !== exceptId && d.name.toLowerCase() === lower))
      throw badRequest('name', 'department.nameTaken');
  }

  async add({ user, ip }: Actor, body: DepartmentAddBody): Promise<DepartmentView> {
    const parentId = body.parentId ?? null;
    const row = await user.scope
      .transaction(async (scope) => {
        const all = await this.locked(scope);
        const parent = parentId === null ? null : all.find((d) => d.id === parentId);
        if (parent === undefined) throw badRequest('parentId', 'http.notFound', { what: 'parent department' });
        assertParentInScope(user, body.name, parent);
        DepartmentService.assertNameFree(all, body.name, parentId);
        // a new department goes after its siblings unless told where
        const sort =
          body.sort ??
          Math.min(9999, Math.max(-1, ...all.filter((d) => d.parent_id === parentId).map((d) => d.sort)) + 1);
        const inserted = await scope
          .insertInto('departments', { name: body.name, parent_id: parentId, sort })
          .returning(['id'])
          .executeTakeFirstOrThrow();
        return scope
          .updateTable('departments')
          .set({ path: `${parent?.path ?? ''}${inserted.id}/` })
          .where('departments.id', '=', inserted.id)
          .returning(['id', 'name', 'parent_id', 'sort', 'path'])
          .executeTakeFirstOrThrow();
      })
      .catch(sameName);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'department.create',
      result: 'ok',
      resource: 'department',
      resourceId: row.id,
      changes: changedFields({}, { name: row.name, parentId: row.parent_id, sort: row.sort }),
    });
    return view(row);
  }

  /** Rename, move (refused under itself or below it) and reorder; a move rewrites the subtree's paths. */
  async edit({ user, ip }: Actor, body: DepartmentEditBody): Promise<DepartmentView> {
    const { before, row } = await user.scope
      .transaction(async (scope) => {
        const all = await this.locked(scope);
        const d = all.find((x) => x.id === body.id);
        if (!d) throw notFound('department');
        assertChangeable(user, d);
        const parentId = body.parentId === undefined ? d.parent_id : body.parentId;
        let parentPath = '';
        if (parentId === null && d.parent_id !== null) assertParentInScope(user, d.name, null);
        if (parentId !== null) {
          const parent = all.find((x) => x.id === parentId);
          if (!parent) throw badRequest('parentId', 'http.notFound', { what: 'parent department' });
          if (parentId !== d.parent_id) assertParentInScope(user, d.name, parent);
          if (parent.path.startsWith(d.path)) throw badRequest('parentId', 'department.cycle');
          parentPath = parent.path;
        }
        const name = body.name ?? d.name;
        if (name.toLowerCase() !== d.name.toLowerCase() || parentId !== d.parent_id)
          DepartmentService.assertNameFree(all, name, parentId, d.id);
        const path = `${parentPath}${d.id}/`;
        if (path !== d.path) {
          // the subtree's paths: the old prefix replaced by the new one, in this same transaction
          await scope
            .updateTable('departments')
            .set({ path: sql<string>`${path} || substr(departments.path, ${d.path.length + 1})` })
            .where('departments.path', 'like', `${escapeLike(d.path)}%`)
            .execute();
        }
        const updated = await scope
          .updateTable('departments')
          .set({ name, parent_id: parentId, ...(body.sort !== undefined ? { sort: body.sort } : {}) })
          .where('departments.id', '=', d.id)
          .returning(['id', 'name', 'parent_id', 'sort', 'path'])
          .executeTakeFirstOrThrow();
        return { before: d, row: updated };
      })
      .catch(sameName);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'department.update',
      result: 'ok',
      resource: 'department',
      resourceId: row.id,
      changes: changedFields(
        { name: before.name, parentId: before.parent_id, sort: before.sort },
        { name: row.name, parentId: row.parent_id, sort: row.sort },
      ),
    });
    return view(row);
  }

  /** Only an empty department goes: no departments below it, no users and no devices in it (409 says which). */
  async remove({ user, ip }: Actor, id: number): Promise<void> {
    const d = await user.scope.transaction(async (scope) => {
      const all = await this.locked(scope);
      const d = all.find((x) => x.id === id);
      if (!d) throw notFound('department');
      assertChangeable(user, d);
      const children = all.filter((x) => x.parent_id === id).length;
      if (children) throw new AppError(409, 'department.hasChildren', { n: children });
      const [users, devices] = await Promise.all([
        scope
          .selectFrom('users')
          .select(sql<number>`count(*)`.as('n'))
          .where('users.department_id', '=', id)
          .executeTakeFirstOrThrow(),
        scope
          .selectFrom('devices')
          .select(sql<number>`count(*)`.as('n'))
          .where('devices.department_id', '=', id)
          .executeTakeFirstOrThrow(),
      ]);
      if (Number(users.n)) throw new AppError(409, 'department.hasUsers', { n: Number(users.n) });
      if (Number(devices.n)) throw new AppError(409, 'department.hasDevices', { n: Number(devices.n) });
      await scope.deleteFrom('departments').where('departments.id', '=', id).execute();
      return d;
    });
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'department.delete',
      result: 'ok',
      resource: 'department',
      resourceId: id,
      changes: changedFields({ name: d.name, parentId: d.parent_id, sort: d.sort }, {}),
    });
  }
}
