import { sql } from 'kysely';
import {
  PERMISSIONS,
  type Paged,
  type RoleOption,
  type SubAccountCreateBody,
  type SubAccountListQuery,
  type SubAccountState,
  type SubAccountUpdateBody,
  type SubAccountView,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, fieldError, notFound } from '../../plugins/errors.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { hashPassword } from '../../lib/password.ts';
import { rolesOf } from './service.ts';
import { endSessions } from '../../lib/sessions.ts';

/** is_super of the users a main account creates (DESIGN §3). */
const SUB_ACCOUNT = 2;

/**
 * Roles every customer tenant starts with, so a sub-account can be given device rights before the tenant
 * has defined roles of its own. Created on first use, never overwritten.
 */
export const DEFAULT_CUSTOMER_ROLES = [
  {
    code: 'operator',
    name: 'Operator',
    permissions: [
      PERMISSIONS.deviceView,
      PERMISSIONS.deviceEdit,
      PERMISSIONS.deviceReboot,
      PERMISSIONS.deviceShutdown,
      PERMISSIONS.deviceTask,
    ],
  },
  { code: 'viewer', name: 'Viewer', permissions: [PERMISSIONS.deviceView] },
];

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/**
 * The main account (is_super = 1) manages its own tenant's sub-accounts (is_super = 2). Every query goes
 * through the caller's tenant scope, so another tenant's user id is simply not found (404).
 */
export class SubAccountService {
  constructor(private db: Db) {}

  private base(scope: TenantScope) {
    return scope
      .selectFrom('users')
      .where('users.is_super', '=', SUB_ACCOUNT)
      .select([
        'users.id',
        'users.username',
        'users.nickname',
        'users.mobile',
        'users.email',
        'users.state',
        'users.created_at',
      ])
      .select(rolesOf('users.id').as('roles'))
      .select(
        sql<Date | null>`(select max(s.created_at) from sessions s where s.user_id = users.id)`.as('last_login_at'),
      );
  }

  private view(r: {
    id: number;
    username: string;
    nickname: string;
    mobile: string | null;
    email: string;
    state: SubAccountState;
    created_at: Date;
    roles: RoleOption[];
    last_login_at: Date | null;
  }): SubAccountView {
    return {
      id: r.id,
      username: r.username,
      nickname: r.nickname,
      mobile: r.mobile,
      email: r.email,
      state: r.state,
      roles: r.roles,
      createdAt: r.created_at.toISOString(),
      lastLoginAt: r.last_login_at ? new Date(r.last_login_at).toISOString() : null,
    };
  }

  private async one(scope: TenantScope, id: number): Promise<SubAccountView> {
    const row = await this.base(scope).where('users.id', '=', id).executeTakeFirst();
    if (!row) throw notFound('sub-account');
    return this.view(row);
  }

  async list(user: AuthUser, q: SubAccountListQuery): Promise<Paged<SubAccountView>> {
    let query = this.base(user.scope);
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
    return { list: rows.map((r) => this.view(r)), total: Number(total.n) };
  }

  private async ensureDefaultRoles(user: AuthUser): Promise<void> {
    if (user.tenantKind === 'platform') return;
    for (const r of DEFAULT_CUSTOMER_ROLES) {
      await this.db
        .insertInto('roles')
        .values({ tenant_id: user.tenantId, code: r.code, name: r.name, permissions: r.permissions })
        .onConflict((oc) => oc.columns(['tenant_id', 'code']).doNothing())
        .execute();
    }
  }

  /** The roles of the caller's tenant a sub-account may be given. */
  async roles(user: AuthUser): Promise<RoleOption[]> {
    await this.ensureDefaultRoles(user);
    return user.scope
      .selectFrom('roles')
      .select(['roles.id', 'roles.code', 'roles.name'])
      .orderBy('roles.id')
      .execute();
  }

  private async checkRoles(user: AuthUser, roleIds: number[]): Promise<number[]> {
    const ids = [...new Set(roleIds)];
    if (!ids.length) return ids;
    const found = await user.scope.selectFrom('roles').select('roles.id').where('roles.id', 'in', ids).execute();
    if (found.length !== ids.length) throw badRequest('roleIds', 'user.roleMissing');
    return ids;
  }

  /** User names are unique across the platform (they log in with them), mobile numbers too. */
  private async checkUnique(username: string | null, mobile: string | null, exceptId?: number): Promise<void> {
    if (username) {
      let q = this.db
        .selectFrom('users')
        .select('id')
        .where(sql`lower(username)`, '=', username.toLowerCase());
      if (exceptId) q = q.where('id', '!=', exceptId);
      if (await q.executeTakeFirst()) throw badRequest('username', 'auth.usernameTaken');
    }
    if (mobile) {
      let q = this.db.selectFrom('users').select('id').where('mobile', '=', mobile);
      if (exceptId) q = q.where('id', '!=', exceptId);
      if (await q.executeTakeFirst()) throw badRequest('mobile', 'auth.mobileTaken');
    }
  }

  private static uniqueViolation(e: unknown): never {
    if ((e as { code?: string }).code === '23505') throw badRequest('username', 'auth.usernameOrMobileTaken');
    throw e;
  }

  async create(user: AuthUser, body: SubAccountCreateBody, ip: string): Promise<SubAccountView> {
    await this.ensureDefaultRoles(user);
    const roleIds = await this.checkRoles(user, body.roleIds);
    const mobile = body.mobile || null;
    await this.checkUnique(body.username, mobile);
    const passwordHash = await hashPassword(body.password);
    const id = await user.scope
      .transaction(async (scope) => {
        const row = await scope
          .insertInto('users', {
            username: body.username,
            nickname: body.nickname,
            mobile,
            email: body.email,
            password_hash: passwordHash,
            is_super: SUB_ACCOUNT,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        for (const roleId of roleIds)
          await scope.insertInto('user_roles', { user_id: row.id, role_id: roleId }).execute();
        await audit(scope.db, {
          tenantId: user.tenantId,
          userId: user.id,
          ip,
          action: 'subAccount.create',
          result: 'ok',
          resource: 'user',
          resourceId: row.id,
          changes: changedFields(
            {},
            { username: body.username, nickname: body.nickname, mobile, email: body.email, roleIds, password: '***' },
          ),
        });
        return row.id;
      })
      .catch(SubAccountService.uniqueViolation);
    return this.one(user.scope, id);
  }

  /** The sub-account as it is (for the system log's before → after); 404 when the tenant has none of that id. */
  private async exists(user: AuthUser, id: number) {
    const row = await user.scope
      .selectFrom('users')
      .select(['users.id', 'users.nickname', 'users.mobile', 'users.email', 'users.state'])
      .select(
        sql<
          number[]
        >`coalesce((select array_agg(ur.role_id order by ur.role_id) from user_roles ur where ur.user_id = users.id), '{}')`.as(
          'roleIds',
        ),
      )
      .where('users.id', '=', id)
      .where('users.is_super', '=', SUB_ACCOUNT)
      .executeTakeFirst();
    if (!row) throw notFound('sub-account');
    return row;
  }

  async update(user: AuthUser, body: SubAccountUpdateBody, ip: string): Promise<SubAccountView> {
    const before = await this.exists(user, body.id);
    const roleIds = await this.checkRoles(user, body.roleIds);
    const mobile = body.mobile || null;
    await this.checkUnique(null, mobile, body.id);
    await user.scope
      .transaction(async (scope) => {
        await scope
          .updateTable('users')
          .set({ nickname: body.nickname, mobile, email: body.email })
          .where('users.id', '=', body.id)
          .where('users.is_super', '=', SUB_ACCOUNT)
          .execute();
        await scope.deleteFrom('user_roles').where('user_roles.user_id', '=', body.id).execute();
        for (const roleId of roleIds)
          await scope.insertInto('user_roles', { user_id: body.id, role_id: roleId }).execute();
        await audit(scope.db, {
          tenantId: user.tenantId,
          userId: user.id,
          ip,
          action: 'subAccount.update',
          result: 'ok',
          resource: 'user',
          resourceId: body.id,
          changes: changedFields(before, {
            nickname: body.nickname,
            mobile,
            email: body.email,
            roleIds: [...roleIds].sort((a, b) => a - b),
          }),
        });
      })
      .catch(SubAccountService.uniqueViolation);
    return this.one(user.scope, body.id);
  }

  /** Disabling ends every session of the sub-account at once; it can no longer log in. */
  async setState(user: AuthUser, id: number, state: SubAccountState, ip: string): Promise<SubAccountView> {
    const before = await this.exists(user, id);
    await user.scope
      .updateTable('users')
      .set({ state })
      .where('users.id', '=', id)
      .where('users.is_super', '=', SUB_ACCOUNT)
      .execute();
    if (state === 'disabled') await endSessions(this.db, id, 'disabled by the main account');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: state === 'disabled' ? 'subAccount.disable' : 'subAccount.enable',
      result: 'ok',
      resource: 'user',
      resourceId: id,
      changes: changedFields(before, { state }),
    });
    return this.one(user.scope, id);
  }

  /** A new password from the main account; the sub-account's sessions end so only the new one works. */
  async resetPassword(user: AuthUser, id: number, password: string, ip: string): Promise<void> {
    await this.exists(user, id);
    await user.scope
      .updateTable('users')
      .set({ password_hash: await hashPassword(password) })
      .where('users.id', '=', id)
      .where('users.is_super', '=', SUB_ACCOUNT)
      .execute();
    await endSessions(this.db, id, 'password reset by the main account');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'subAccount.resetPassword',
      result: 'ok',
      resource: 'user',
      resourceId: id,
      changes: changedFields({ password: 'old' }, { password: 'new' }),
    });
  }

  /** Files the sub-account uploaded stay with the tenant: they pass to the main account that deletes it. */
  async remove(user: AuthUser, id: number, ip: string): Promise<void> {
    const before = await this.exists(user, id);
    await user.scope
      .transaction(async (scope) => {
        await scope.updateTable('objects').set({ user_id: user.id }).where('objects.user_id', '=', id).execute();
        const row = await scope
          .deleteFrom('users')
          .where('users.id', '=', id)
          .where('users.is_super', '=', SUB_ACCOUNT)
          .returning('users.username')
          .executeTakeFirst();
        if (!row) throw notFound('sub-account');
        const { id: _id, ...fields } = before;
        await audit(scope.db, {
          tenantId: user.tenantId,
          userId: user.id,
          ip,
          action: 'subAccount.delete',
          result: 'ok',
          resource: 'user',
          resourceId: id,
          changes: changedFields({ username: row.username, ...fields }, {}),
        });
      })
      .catch((e: unknown) => {
        // records of other sections that keep their author (work orders, identity submissions…)
        if ((e as { code?: string }).code === '23503')
          throw new AppError(400, 'user.subAccountOwnsRecords', null, {
            data: { fields: [fieldError('id', 'user.subAccountOwnsRecords')] },
          });
        throw e;
      });
  }
}
