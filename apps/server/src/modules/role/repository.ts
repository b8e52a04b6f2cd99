import { sql, type Selectable } from 'kysely';
import { ADMIN_ROLE, type DataScope } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { Users } from '../../db/generated.ts';
import { defineQueries } from '../../db/query-spec.ts';
import { TenantScope } from '../../db/tenant-scope.ts';

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** A role as the service works with it, with how many users hold it. */
export interface RoleRow {
  id: number;
  code: string;
  name: string;
  description: string;
  data_scope: DataScope;
  builtin: boolean;
  permissions: string[];
  created_at: Date;
  updated_at: Date;
  member_count: number | string;
}

/** What a role says, as written. */
export interface RoleValues {
  code: string;
  name: string;
  description: string;
  data_scope: DataScope;
  permissions: string[];
}

type MemberState = Selectable<Users>['state'];

/** A user as the members panel lists them. */
export interface MemberRow {
  id: number;
  username: string;
  nickname: string;
  state: MemberState;
  is_super: number;
}

/** A user's standing as a row: their department, kind of tenant and the data scopes of their roles. */
export interface StandingRow {
  id: number;
  username: string;
  is_super: number;
  department_id: number | null;
  path: string | null;
  kind: string;
  scopes: DataScope[];
  holds_admin: boolean;
}

/** A role every customer tenant starts with. */
export interface DefaultRole {
  code: string;
  name: string;
  description: string;
  permissions: string[];
}

export interface Page {
  pageNo: number;
  pageSize: number;
}

/**
 * Every statement on roles and who holds them (`roles`, `user_roles`), and the reads of `users` the members
 * panel and the scope checks need. Each is pinned to one tenant: another tenant's role or user is not found.
 */
export class RoleRepository {
  constructor(private db: Db) {}

  private scope(tenantId: number) {
    return new TenantScope(this.db, tenantId);
  }

  private base(tenantId: number) {
    return this.scope(tenantId)
      .selectFrom('roles')
      .select([
        'roles.id',
        'roles.code',
        'roles.name',
        'roles.description',
        'roles.data_scope',
        'roles.builtin',
        'roles.permissions',
        'roles.created_at',
        'roles.updated_at',
      ])
      .select(sql<string>`(select count(*) from user_roles ur where ur.role_id = roles.id)`.as('member_count'));
  }

  /** One role of the tenant with its member count. */
  findRole(tenantId: number, id: number): Promise<RoleRow | undefined> {
    return this.base(tenantId).where('roles.id', '=', id).executeTakeFirst();
  }

  /** A page of the tenant's roles (builtin first), matching the keyword in name or code, and how many match. */
  async listPage(
    tenantId: number,
    keyword: string | undefined,
    page: Page,
  ): Promise<{ rows: RoleRow[]; total: number }> {
    let query = this.base(tenantId);
    if (keyword) {
      const like = `%${escapeLike(keyword)}%`;
      query = query.where((eb) => eb.or([eb('roles.name', 'ilike', like), eb('roles.code', 'ilike', like)]));
    }
    const [rows, total] = await Promise.all([
      query
        .orderBy('roles.builtin', 'desc')
        .orderBy('roles.id')
        .limit(page.pageSize)
        .offset((page.pageNo - 1) * page.pageSize)
        .execute(),
      query
        .clearSelect()
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** The tenant's roles of these ids, with what they hold (missing ones are left out). */
  findForGiving(tenantId: number, ids: number[]) {
    return this.scope(tenantId)
      .selectFrom('roles')
      .select(['roles.id', 'roles.code', 'roles.name', 'roles.permissions', 'roles.data_scope'])
      .where('roles.id', 'in', ids)
      .execute();
  }

  /** Whether the user holds the role. */
  async holdsRole(tenantId: number, userId: number, roleId: number): Promise<boolean> {
    const own = await this.scope(tenantId)
      .selectFrom('user_roles')
      .select('user_roles.role_id')
      .where('user_roles.user_id', '=', userId)
      .where('user_roles.role_id', '=', roleId)
      .executeTakeFirst();
    return !!own;
  }

  /** Whether a role of the tenant (other than `exceptId`) has this code, case aside. */
  async codeTaken(tenantId: number, code: string, exceptId?: number): Promise<boolean> {
    let q = this.scope(tenantId)
      .selectFrom('roles')
      .select('roles.id')
      .where(sql`lower(roles.code)`, '=', code.toLowerCase());
    if (exceptId) q = q.where('roles.id', '!=', exceptId);
    return !!(await q.executeTakeFirst());
  }

  /** The ids of the role's members. */
  async memberIds(tenantId: number, roleId: number): Promise<number[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('user_roles')
      .select('user_roles.user_id')
      .where('user_roles.role_id', '=', roleId)
      .execute();
    return rows.map((r) => r.user_id);
  }

  /** Adds a role; answers its id. */
  async insertRole(tenantId: number, values: RoleValues): Promise<number> {
    const row = await this.scope(tenantId).insertInto('roles', values).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }

  async updateRole(tenantId: number, id: number, values: RoleValues): Promise<void> {
    await this.scope(tenantId)
      .updateTable('roles')
      .set({ ...values, updated_at: new Date() })
      .where('roles.id', '=', id)
      .execute();
  }

  /**
   * Deletes a role in one transaction; with `reassignTo`, its members first get that role (those who have it
   * already keep theirs). Answers the members moved.
   */
  deleteRole(tenantId: number, roleId: number, reassignTo?: number): Promise<number[]> {
    return this.scope(tenantId).transaction(async (scope) => {
      const tx = new RoleRepository(scope.db);
      let userIds: number[] = [];
      if (reassignTo !== undefined) {
        userIds = await tx.memberIds(tenantId, roleId);
        if (userIds.length)
          await scope
            .insertInto(
              'user_roles',
              userIds.map((u) => ({ user_id: u, role_id: reassignTo })),
            )
            .onConflict((oc) => oc.columns(['user_id', 'role_id']).doNothing())
            .execute();
      }
      await scope.deleteFrom('user_roles').where('user_roles.role_id', '=', roleId).execute();
      await scope.deleteFrom('roles').where('roles.id', '=', roleId).execute();
      return userIds;
    });
  }

  /** A page of the role's members, by id, matching the keyword in username or nickname, and how many match. */
  async listMembers(
    tenantId: number,
    roleId: number,
    keyword: string | undefined,
    page: Page,
  ): Promise<{ rows: MemberRow[]; total: number }> {
    let query = this.scope(tenantId)
      .selectFrom('users')
      .innerJoin('user_roles as ur', 'ur.user_id', 'users.id')
      .where('ur.role_id', '=', roleId);
    if (keyword) {
      const like = `%${escapeLike(keyword)}%`;
      query = query.where((eb) => eb.or([eb('users.username', 'ilike', like), eb('users.nickname', 'ilike', like)]));
    }
    const [rows, total] = await Promise.all([
      query
        .select(['users.id', 'users.username', 'users.nickname', 'users.state', 'users.is_super'])
        .orderBy('users.id')
        .limit(page.pageSize)
        .offset((page.pageNo - 1) * page.pageSize)
        .execute(),
      query.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** Users of the tenant not in the role, by username, at most 50, matching the keyword. */
  listCandidates(tenantId: number, roleId: number, keyword?: string): Promise<MemberRow[]> {
    let query = this.scope(tenantId)
      .selectFrom('users')
      .select(['users.id', 'users.username', 'users.nickname', 'users.state', 'users.is_super'])
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('user_roles as ur')
              .select('ur.user_id')
              .whereRef('ur.user_id', '=', 'users.id')
              .where('ur.role_id', '=', roleId),
          ),
        ),
      );
    if (keyword) {
      const like = `%${escapeLike(keyword)}%`;
      query = query.where((eb) => eb.or([eb('users.username', 'ilike', like), eb('users.nickname', 'ilike', like)]));
    }
    return query.orderBy('users.username').limit(50).execute();
  }

  /** Which of these ids are users of the tenant. */
  async findUserIds(tenantId: number, ids: number[]): Promise<number[]> {
    const found = await this.scope(tenantId)
      .selectFrom('users')
      .select('users.id')
      .where('users.id', 'in', ids)
      .execute();
    return found.map((r) => r.id);
  }

  /** Gives the role to these users; answers those who did not have it. */
  async addMembers(tenantId: number, roleId: number, userIds: number[]): Promise<number[]> {
    const added = await this.scope(tenantId)
      .insertInto(
        'user_roles',
        userIds.map((u) => ({ user_id: u, role_id: roleId })),
      )
      .onConflict((oc) => oc.columns(['user_id', 'role_id']).doNothing())
      .returning('user_id')
      .execute();
    return added.map((a) => a.user_id);
  }

  /** Takes the role from these users; answers those who had it. */
  async removeMembers(tenantId: number, roleId: number, userIds: number[]): Promise<number[]> {
    const removed = await this.scope(tenantId)
      .deleteFrom('user_roles')
      .where('user_roles.role_id', '=', roleId)
      .where('user_roles.user_id', 'in', userIds)
      .returning('user_roles.user_id')
      .execute();
    return removed.map((r) => r.user_id);
  }

  /** The standing rows of these users of the tenant (missing ones are left out). */
  standings(tenantId: number, userIds: number[]): Promise<StandingRow[]> {
    return this.scope(tenantId)
      .selectFrom('users')
      .innerJoin('tenants as t', 't.id', 'users.tenant_id')
      .leftJoin('departments as d', (j) =>
        j.onRef('d.id', '=', 'users.department_id').onRef('d.tenant_id', '=', 'users.tenant_id'),
      )
      .select(['users.id', 'users.username', 'users.is_super', 'users.department_id', 'd.path', 't.kind'])
      .select(
        sql<
          DataScope[]
        >`coalesce((select array_agg(r.data_scope) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = users.id), '{}')`.as(
          'scopes',
        ),
      )
      .select(
        sql<boolean>`exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = users.id and r.code = ${ADMIN_ROLE})`.as(
          'holds_admin',
        ),
      )
      .where('users.id', 'in', [...new Set(userIds)])
      .execute();
  }

  /** Puts in a tenant's default roles; an existing one of that code is only marked builtin. */
  async insertDefaultRoles(tenantId: number, roles: readonly DefaultRole[]): Promise<void> {
    await this.db
      .insertInto('roles')
      .values(
        roles.map((r) => ({
          tenant_id: tenantId,
          code: r.code,
          name: r.name,
          description: r.description,
          permissions: r.permissions,
          builtin: true,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'code']).doUpdateSet({ builtin: true }).where('roles.builtin', '=', false),
      )
      .execute();
  }
}

const page = { pageNo: 2, pageSize: 20 };
const values: RoleValues = {
  code: 'operator',
  name: 'Operator',
  description: 'Runs the devices of the shop',
  data_scope: 'department',
  permissions: ['device:view', 'device:edit'],
};

export const queries = defineQueries(RoleRepository, {
  findRole: [[3, 12]],
  listPage: [
    [3, undefined, page],
    [3, 'oper_50%', page],
  ],
  findForGiving: [[3, [12, 13]]],
  holdsRole: [[3, 41, 12]],
  codeTaken: [
    [3, 'Operator'],
    [3, 'Operator', 12],
  ],
  memberIds: [[3, 12]],
  insertRole: [[3, values]],
  updateRole: [[3, 12, values]],
  deleteRole: [{ args: [3, 12, 13], results: [[{ user_id: 41 }, { user_id: 42 }]] }, [3, 12]],
  listMembers: [
    [3, 12, undefined, page],
    [3, 12, 'li', page],
  ],
  listCandidates: [
    [3, 12],
    [3, 12, 'li'],
  ],
  findUserIds: [[3, [41, 42]]],
  addMembers: [[3, 12, [41, 42]]],
  removeMembers: [[3, 12, [41, 42]]],
  standings: [[3, [41, 42]]],
  insertDefaultRoles: [[3, [{ code: 'viewer', name: 'Viewer', description: '', permissions: ['device:view'] }]]],
});
