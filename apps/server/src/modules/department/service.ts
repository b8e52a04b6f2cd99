import type {
  DepartmentAddBody,
  DepartmentEditBody,
  DepartmentNode,
  DepartmentTree,
  DepartmentView,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import { checkPlacement } from '../role/index.ts';
import { DepartmentRepository, type DepartmentRow as Row } from './repository.ts';

const view = (d: Row): DepartmentView => ({ id: d.id, name: d.name, parentId: d.parent_id, sort: d.sort });

/** Unique names among siblings: the index says so; this says it as a field error. */
function sameName(e: unknown): never {
  if ((e as { code?: string }).code === '23505') throw badRequest('name', 'department.nameTaken');
  throw e;
}

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
  private repo: DepartmentRepository;

  constructor(private db: Db) {
    this.repo = new DepartmentRepository(db);
  }

  /**
   * The tree, siblings by sort then name, with the users and devices of each department itself. Every department
   * is listed (the pickers and device screens name them), but the devices counted are those in the caller's data
   * scope, as the device list would show them.
   */
  async tree(user: AuthUser): Promise<DepartmentTree> {
    const rows = await this.repo.treeRows(user.tenantId, dataAccessOf(user));
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

  private static assertNameFree(all: Row[], name: string, parentId: number | null, exceptId?: number): void {
    const lower = name.toLowerCase();
    if (all.some((d) => d.parent_id === parentId && d.id !== exceptId && d.name.toLowerCase() === lower))
      throw badRequest('name', 'department.nameTaken');
  }

  async add({ user, ip }: Actor, body: DepartmentAddBody): Promise<DepartmentView> {
    const parentId = body.parentId ?? null;
    const row = await this.repo
      .transaction(async (repo) => {
        const all = await repo.lockAll(user.tenantId);
        const parent = parentId === null ? null : all.find((d) => d.id === parentId);
        if (parent === undefined) throw badRequest('parentId', 'http.notFound', { what: 'parent department' });
        assertParentInScope(user, body.name, parent);
        DepartmentService.assertNameFree(all, body.name, parentId);
        // a new department goes after its siblings unless told where
        const sort =
          body.sort ??
          Math.min(9999, Math.max(-1, ...all.filter((d) => d.parent_id === parentId).map((d) => d.sort)) + 1);
        return repo.insert(user.tenantId, { name: body.name, parent_id: parentId, sort }, parent?.path ?? '');
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
    const { before, row } = await this.repo
      .transaction(async (repo) => {
        const all = await repo.lockAll(user.tenantId);
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
        // the subtree's paths: the old prefix replaced by the new one, in this same transaction
        if (path !== d.path) await repo.movePaths(user.tenantId, d.path, path);
        const updated = await repo.update(user.tenantId, d.id, {
          name,
          parent_id: parentId,
          ...(body.sort !== undefined ? { sort: body.sort } : {}),
        });
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
    const d = await this.repo.transaction(async (repo) => {
      const all = await repo.lockAll(user.tenantId);
      const d = all.find((x) => x.id === id);
      if (!d) throw notFound('department');
      assertChangeable(user, d);
      const children = all.filter((x) => x.parent_id === id).length;
      if (children) throw new AppError(409, 'department.hasChildren', { n: children });
      const { users, devices } = await repo.memberCounts(user.tenantId, id);
      if (users) throw new AppError(409, 'department.hasUsers', { n: users });
      if (devices) throw new AppError(409, 'department.hasDevices', { n: devices });
      await repo.delete(user.tenantId, id);
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
