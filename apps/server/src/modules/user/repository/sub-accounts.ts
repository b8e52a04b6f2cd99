import { sql } from 'kysely';
import { ADMIN_ROLE, type RoleChoice, type SubAccountListQuery, type SubAccountState } from '@cpc/contracts';
import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { rolesOf } from './account.ts';

/** is_super of the users a main account creates. */
export const SUB_ACCOUNT = 2;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** Who manages: a customer manages its sub-accounts, the platform every user of its own tenant. */
export interface Manager {
  tenantId: number;
  platform: boolean;
}

/** A new managed user. */
export interface NewUser {
  username: string;
  nickname: string;
  mobile: string | null;
  email: string;
  passwordHash: string;
  departmentId: number | null;
}

/** What an administrator changes of a managed user. */
export interface UserChanges {
  nickname: string;
  mobile: string | null;
  email: string;
  department_id: number | null;
}

/**
 * Every statement of the users a caller manages (sub-accounts, staff users): their `users` rows and
 * `user_roles`, with the reads of `roles`, `departments` and `sessions` their views and checks need, and the
 * hand-over of their `objects` and `devices` when one is deleted. Each is pinned to the manager's tenant.
 */
export class SubAccountRepository {
  constructor(private db: Db) {}

  /** Runs `work` in one transaction with a repository bound to it. */
  transaction<T>(work: (repo: SubAccountRepository) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new SubAccountRepository(trx)));
  }

  private scope(tenantId: number) {
    return new TenantScope(this.db, tenantId);
  }

  private managed(m: Manager) {
    const q = this.scope(m.tenantId).selectFrom('users');
    return m.platform ? q : q.where('users.is_super', '=', SUB_ACCOUNT);
  }

  private base(m: Manager) {
    return this.managed(m)
      .leftJoin('departments as dep', 'dep.id', 'users.department_id')
      .select([
        'users.id',
        'users.username',
        'users.nickname',
        'users.mobile',
        'users.email',
        'users.state',
        'users.created_at',
        'users.department_id',
        'users.is_super',
        'dep.name as department_name',
      ])
      .select(rolesOf('users.id').as('roles'))
      .select(
        sql<Date | null>`(select max(s.created_at) from sessions s where s.user_id = users.id)`.as('last_login_at'),
      );
  }

  /** One managed user as the list shows them. */
  findView(m: Manager, id: number) {
    return this.base(m).where('users.id', '=', id).executeTakeFirst();
  }

  /** A page of the managed users that pass the filter, newest first, and how many pass in all. */
  async listPage(m: Manager, q: SubAccountListQuery) {
    let query = this.base(m);
    if (q.state) query = query.where('users.state', '=', q.state);
    if (q.keyword) {
      const like = `%${escapeLike(q.keyword)}%`;
      query = query.where((eb) =>
        eb.or([
          eb('users.username', 'ilike', like),
          eb('users.nickname', 'ilike', like),
          eb('users.mobile', 'like', like),
          eb('users.email', 'ilike', like),
        ]),
      );
    }
    if (q.departmentId)
      query = query.where(
        sql<boolean>`users.department_id in (select d.id from departments d, departments top
          where top.id = ${q.departmentId} and top.tenant_id = ${m.tenantId}
            and d.tenant_id = ${m.tenantId} and d.path like top.path || '%')`,
      );
    if (q.roleId)
      query = query.where(
        sql<boolean>`exists (select 1 from user_roles ur where ur.user_id = users.id and ur.role_id = ${q.roleId})`,
      );
    const [rows, total] = await Promise.all([
      query
        .orderBy('users.created_at', 'desc')
        .orderBy('users.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      query
        .clearSelect()
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** The tenant's roles with their data scopes, by id. */
  listRoles(tenantId: number): Promise<RoleChoice[]> {
    return this.scope(tenantId)
      .selectFrom('roles')
      .select(['roles.id', 'roles.code', 'roles.name', 'roles.data_scope as dataScope'])
      .orderBy('roles.id')
      .execute();
  }

  /** One department of the tenant. */
  findDepartment(tenantId: number, id: number) {
    return this.scope(tenantId)
      .selectFrom('departments')
      .select(['departments.id', 'departments.name', 'departments.path'])
      .where('departments.id', '=', id)
      .executeTakeFirst();
  }

  /** Whether a user of any tenant (other than `exceptId`) has this name, case aside. */
  async usernameTaken(username: string, exceptId?: number): Promise<boolean> {
    let q = this.db
      .selectFrom('users')
      .select('id')
      .where(sql`lower(username)`, '=', username.toLowerCase());
    if (exceptId) q = q.where('id', '!=', exceptId);
    return !!(await q.executeTakeFirst());
  }

  /** Whether a user of any tenant (other than `exceptId`) has this mobile number. */
  async mobileTaken(mobile: string, exceptId?: number): Promise<boolean> {
    let q = this.db.selectFrom('users').select('id').where('mobile', '=', mobile);
    if (exceptId) q = q.where('id', '!=', exceptId);
    return !!(await q.executeTakeFirst());
  }

  /** Adds a sub-account with its roles, in one transaction; answers its id. */
  insertSubAccount(tenantId: number, u: NewUser, roleIds: number[]): Promise<number> {
    return this.scope(tenantId).transaction(async (scope) => {
      const row = await scope
        .insertInto('users', {
          username: u.username,
          nickname: u.nickname,
          mobile: u.mobile,
          email: u.email,
          password_hash: u.passwordHash,
          is_super: SUB_ACCOUNT,
          department_id: u.departmentId,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const roleId of roleIds)
        await scope.insertInto('user_roles', { user_id: row.id, role_id: roleId }).execute();
      return row.id;
    });
  }

  /** A managed user with their role ids and every permission their roles hold. */
  findTarget(m: Manager, id: number) {
    return this.managed(m)
      .select([
        'users.id',
        'users.nickname',
        'users.mobile',
        'users.email',
        'users.state',
        'users.department_id',
        sql<
          number[]
        >`coalesce((select array_agg(ur.role_id::int order by ur.role_id) from user_roles ur where ur.user_id = users.id), '{}')`.as(
          'role_ids',
        ),
        sql<
          string[]
        >`coalesce((select array_agg(distinct p) from user_roles ur join roles r on r.id = ur.role_id, unnest(r.permissions) p where ur.user_id = users.id), '{}')`.as(
          'permissions',
        ),
      ])
      .where('users.id', '=', id)
      .executeTakeFirst();
  }

  /** The id of the tenant's Admin role, if it has one. */
  async findAdminRoleId(tenantId: number): Promise<number | null> {
    const r = await this.scope(tenantId)
      .selectFrom('roles')
      .select('roles.id')
      .where('roles.code', '=', ADMIN_ROLE)
      .executeTakeFirst();
    return r?.id ?? null;
  }

  /** The id of the tenant's Admin role, its row locked until the transaction ends. */
  async lockAdminRole(tenantId: number): Promise<number | null> {
    const r = await this.scope(tenantId)
      .selectFrom('roles')
      .select('roles.id')
      .where('roles.code', '=', ADMIN_ROLE)
      .forUpdate()
      .executeTakeFirst();
    return r?.id ?? null;
  }

  /** The active users holding the role. */
  async activeHolders(tenantId: number, roleId: number): Promise<number[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('user_roles')
      .innerJoin('users as u', 'u.id', 'user_roles.user_id')
      .select('u.id')
      .where('user_roles.role_id', '=', roleId)
      .where('u.state', '=', 'active')
      .execute();
    return rows.map((r) => r.id);
  }

  async updateUser(tenantId: number, id: number, changes: UserChanges): Promise<void> {
    await this.scope(tenantId).updateTable('users').set(changes).where('users.id', '=', id).execute();
  }

  /** Gives the user exactly these roles. */
  async replaceRoles(tenantId: number, id: number, roleIds: number[]): Promise<void> {
    const scope = this.scope(tenantId);
    await scope.deleteFrom('user_roles').where('user_roles.user_id', '=', id).execute();
    for (const roleId of roleIds) await scope.insertInto('user_roles', { user_id: id, role_id: roleId }).execute();
  }

  async setState(tenantId: number, id: number, state: SubAccountState): Promise<void> {
    await this.scope(tenantId).updateTable('users').set({ state }).where('users.id', '=', id).execute();
  }

  async setPasswordHash(tenantId: number, id: number, hash: string): Promise<void> {
    await this.scope(tenantId).updateTable('users').set({ password_hash: hash }).where('users.id', '=', id).execute();
  }

  /** How many sessions of the user are not ended. */
  async countOpenSessions(tenantId: number, id: number): Promise<number> {
    const open = await this.scope(tenantId)
      .selectFrom('sessions')
      .select(sql<number>`count(*)`.as('n'))
      .where('sessions.user_id', '=', id)
      .where('sessions.revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(open.n);
  }

  /**
   * Deletes the user after handing their uploads to `heirId` and freeing the devices they owned; answers their
   * username (undefined: no such user). Run it in a transaction.
   */
  async deleteUser(tenantId: number, id: number, heirId: number): Promise<string | undefined> {
    const scope = this.scope(tenantId);
    await scope.updateTable('objects').set({ user_id: heirId }).where('objects.user_id', '=', id).execute();
    await scope.updateTable('devices').set({ owner_id: null }).where('devices.owner_id', '=', id).execute();
    const row = await scope
      .deleteFrom('users')
      .where('users.id', '=', id)
      .returning('users.username')
      .executeTakeFirst();
    return row?.username;
  }
}

const customer: Manager = { tenantId: 3, platform: false };
const platform: Manager = { tenantId: 1, platform: true };
const page = { pageNo: 1, pageSize: 20 };

export const subAccountQueries = defineQueries(SubAccountRepository, {
  findView: [
    [customer, 57],
    [platform, 8],
  ],
  listPage: [
    [customer, page],
    [customer, { ...page, state: 'active', keyword: 'li_50%', departmentId: 4, roleId: 12 }],
  ],
  listRoles: [[3]],
  findDepartment: [[3, 4]],
  usernameTaken: [['LiWei'], ['LiWei', 57]],
  mobileTaken: [['13800000000'], ['13800000000', 57]],
  insertSubAccount: [
    {
      args: [
        3,
        {
          username: 'liwei',
          nickname: 'Li Wei',
          mobile: '13800000000',
          email: 'li.wei@example.com',
          passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA',
          departmentId: 4,
        },
        [12, 13],
      ],
      results: [[{ id: 57 }]],
    },
  ],
  findTarget: [[customer, 57]],
  findAdminRoleId: [[1]],
  lockAdminRole: [[1]],
  activeHolders: [[1, 1]],
  updateUser: [[3, 57, { nickname: 'Li Wei', mobile: null, email: 'li.wei@example.com', department_id: 4 }]],
  replaceRoles: [[3, 57, [12, 13]]],
  setState: [[3, 57, 'disabled']],
  setPasswordHash: [[3, 57, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA']],
  countOpenSessions: [[3, 57]],
  deleteUser: [[3, 57, 41]],
});
