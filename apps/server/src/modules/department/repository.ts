import { sql } from 'kysely';
import { defineQueries } from '../../db/query-spec.ts';
import { inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { Repository } from '../../db/repository.ts';

/** A department as the tree's edits read it: `path` holds the ancestors' ids and its own, each followed by '/'. */
export interface DepartmentRow {
  id: number;
  name: string;
  parent_id: number | null;
  sort: number;
  path: string;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

const COLUMNS = ['id', 'name', 'parent_id', 'sort', 'path'] as const;

/**
 * Every statement of the department module: the `departments` tree of a tenant, and the counts of the users and
 * devices filed under a department.
 */
export class DepartmentRepository extends Repository {
  /**
   * Every department of the tenant with the number of its users and of its devices in the caller's data scope
   * (`access`), unordered.
   */
  treeRows(tenantId: number, access: DataAccess) {
    const seen = inDataScope(access, 'd');
    return this.scope(tenantId)
      .selectFrom('departments')
      .select([
        'departments.id',
        'departments.name',
        'departments.parent_id',
        'departments.sort',
        sql<number>`(select count(*) from users u where u.department_id = departments.id and u.tenant_id = ${tenantId})`.as(
          'users',
        ),
        sql<number>`(select count(*) from devices d where d.department_id = departments.id and d.tenant_id = ${tenantId} and ${seen})`.as(
          'devices',
        ),
      ])
      .execute();
  }

  /** Every department of the tenant, locked: one tenant's tree changes one edit at a time (no cycle by two moves). */
  lockAll(tenantId: number): Promise<DepartmentRow[]> {
    return this.scope(tenantId)
      .selectFrom('departments')
      .select(['departments.id', 'departments.name', 'departments.parent_id', 'departments.sort', 'departments.path'])
      .forUpdate()
      .execute();
  }

  /** Adds a department under the one whose path is `parentPath` ('' at the top) and sets its own path. */
  async insert(
    tenantId: number,
    values: { name: string; parent_id: number | null; sort: number },
    parentPath: string,
  ): Promise<DepartmentRow> {
    const scope = this.scope(tenantId);
    const inserted = await scope.insertInto('departments', values).returning(['id']).executeTakeFirstOrThrow();
    return scope
      .updateTable('departments')
      .set({ path: `${parentPath}${inserted.id}/` })
      .where('departments.id', '=', inserted.id)
      .returning([...COLUMNS])
      .executeTakeFirstOrThrow();
  }

  /** A moved subtree's paths: the prefix `from` replaced by `to` in the department's and every one below. */
  async movePaths(tenantId: number, from: string, to: string): Promise<void> {
    await this.scope(tenantId)
      .updateTable('departments')
      .set({ path: sql<string>`${to} || substr(departments.path, ${from.length + 1})` })
      .where('departments.path', 'like', `${escapeLike(from)}%`)
      .execute();
  }

  /** Renames, moves or reorders one department (its path is set by movePaths). */
  update(
    tenantId: number,
    id: number,
    values: { name: string; parent_id: number | null; sort?: number },
  ): Promise<DepartmentRow> {
    return this.scope(tenantId)
      .updateTable('departments')
      .set(values)
      .where('departments.id', '=', id)
      .returning([...COLUMNS])
      .executeTakeFirstOrThrow();
  }

  /** How many users and devices are filed under the department itself. */
  async memberCounts(tenantId: number, id: number): Promise<{ users: number; devices: number }> {
    const scope = this.scope(tenantId);
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
    return { users: Number(users.n), devices: Number(devices.n) };
  }

  async delete(tenantId: number, id: number): Promise<void> {
    await this.scope(tenantId).deleteFrom('departments').where('departments.id', '=', id).execute();
  }
}

const access = (scope: DataAccess['scope']): DataAccess => ({
  scope,
  tenantId: 7,
  userId: 41,
  departmentId: 5,
  departmentPath: '1/5/',
});

export const departmentQueries = defineQueries(DepartmentRepository, {
  treeRows: [
    [7, access('all')],
    [7, access('department')],
    [7, access('own')],
  ],
  lockAll: [[7]],
  insert: [{ args: [7, { name: 'Sales East', parent_id: 5, sort: 3 }, '1/5/'], results: [[{ id: 12 }], [{ id: 12 }]] }],
  movePaths: [[7, '1/5/12/', '1/9/12/']],
  update: [
    [7, 12, { name: 'Sales East', parent_id: 9 }],
    [7, 12, { name: 'Sales East', parent_id: 9, sort: 2 }],
  ],
  memberCounts: [{ args: [7, 12], results: [[{ n: '0' }], [{ n: '2' }]] }],
  delete: [[7, 12]],
});
