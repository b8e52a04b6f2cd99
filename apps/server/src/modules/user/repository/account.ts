import { sql } from 'kysely';
import type { RoleOption } from '@cpc/contracts';
import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';

/** The roles of each user, as `[{ id, code, name }]`, for a query over `users`. */
export const rolesOf = (userIdColumn: string) =>
  sql<RoleOption[]>`coalesce(
    (select json_agg(json_build_object('id', r.id, 'code', r.code, 'name', r.name) order by r.id)
     from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = ${sql.ref(userIdColumn)}),
    '[]'::json)`;

/** Whose account: every statement of the personal centre is pinned to the user's tenant and id. */
export interface Me {
  tenantId: number;
  userId: number;
}

/**
 * Every statement of the signed-in user's own account: their `users` row (with their tenant's status and
 * their roles), their `sessions`, and the `objects` they uploaded (an avatar must be one of them).
 */
export class UserRepository {
  constructor(private db: Db) {}

  private scope(me: Me) {
    return new TenantScope(this.db, me.tenantId);
  }

  /** What the console's userInfo says: the user and their tenant's kind and certification. */
  findInfo(me: Me) {
    return this.scope(me)
      .selectFrom('users')
      .innerJoin('tenants as t', 't.id', 'users.tenant_id')
      .select([
        'users.id',
        'users.username',
        'users.mobile',
        'users.avatar',
        'users.is_super',
        't.auth_status',
        't.attest_name',
        't.kind',
      ])
      .where('users.id', '=', me.userId)
      .executeTakeFirstOrThrow();
  }

  /** The personal centre's profile: the user, their tenant and their roles. */
  findProfile(me: Me) {
    return this.scope(me)
      .selectFrom('users')
      .innerJoin('tenants as t', 't.id', 'users.tenant_id')
      .select([
        'users.id',
        'users.username',
        'users.nickname',
        'users.email',
        'users.mobile',
        'users.avatar',
        'users.is_super',
        'users.created_at',
        't.kind',
        't.name as tenant_name',
        't.auth_status',
        't.attest_name',
      ])
      .select(rolesOf('users.id').as('roles'))
      .where('users.id', '=', me.userId)
      .executeTakeFirstOrThrow();
  }

  async findPasswordHash(me: Me): Promise<string> {
    const row = await this.scope(me)
      .selectFrom('users')
      .select('password_hash')
      .where('users.id', '=', me.userId)
      .executeTakeFirstOrThrow();
    return row.password_hash;
  }

  async setPasswordHash(me: Me, hash: string): Promise<void> {
    await this.scope(me).updateTable('users').set({ password_hash: hash }).where('users.id', '=', me.userId).execute();
  }

  /**
   * Sets nickname and e-mail; answers the values before, which come back from the update itself (its FROM
   * reads the row as it was): one statement.
   */
  updateProfile(me: Me, values: { nickname: string; email: string }) {
    return this.scope(me)
      .updateTable('users')
      .from(
        this.db
          .selectFrom('users')
          .select(['id', 'nickname', 'email'])
          .where('id', '=', me.userId)
          .forUpdate()
          .as('old'),
      )
      .set(values)
      .whereRef('users.id', '=', 'old.id')
      .returning(['old.nickname', 'old.email'])
      .executeTakeFirstOrThrow();
  }

  /** Whether the user uploaded the object `key`. */
  async ownsObject(me: Me, key: string): Promise<boolean> {
    const owned = await this.scope(me)
      .selectFrom('objects')
      .select('objects.mime')
      .where('objects.key', '=', key)
      .where('objects.user_id', '=', me.userId)
      .executeTakeFirst();
    return !!owned;
  }

  /** Sets the avatar; answers the one before (read by the same statement). */
  setAvatar(me: Me, key: string) {
    return this.scope(me)
      .updateTable('users')
      .from(this.db.selectFrom('users').select(['id', 'avatar']).where('id', '=', me.userId).forUpdate().as('old'))
      .set({ avatar: key })
      .whereRef('users.id', '=', 'old.id')
      .returning(['old.avatar'])
      .executeTakeFirstOrThrow();
  }

  /** Ends one session, whoever's it is (the caller's own, signed out by its guard). */
  async revokeSession(sessionId: string, reason: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: new Date(), revoke_reason: reason })
      .where('id', '=', sessionId)
      .execute();
  }

  /**
   * The user's sessions that can still be used at `now`, the newest active first (at most 100): not ended and
   * holding a refresh token neither used nor expired, or the current one.
   */
  listLiveSessions(me: Me, currentSessionId: string, now: Date) {
    return this.scope(me)
      .selectFrom('sessions')
      .select(['sessions.id', 'sessions.ip', 'sessions.user_agent', 'sessions.created_at', 'sessions.last_active_at'])
      .where('sessions.user_id', '=', me.userId)
      .where('sessions.revoked_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('sessions.id', '=', currentSessionId),
          eb.exists(
            eb
              .selectFrom('refresh_tokens as r')
              .select('r.session_id')
              .whereRef('r.session_id', '=', 'sessions.id')
              .where('r.used_at', 'is', null)
              .where('r.expires_at', '>', now),
          ),
        ]),
      )
      .orderBy('sessions.last_active_at', 'desc')
      .limit(100)
      .execute();
  }

  /** Ends one open session of the user's own; answers whether there was one. */
  async revokeOwnSession(me: Me, sessionId: string, reason: string): Promise<boolean> {
    const res = await this.scope(me)
      .updateTable('sessions')
      .set({ revoked_at: new Date(), revoke_reason: reason })
      .where('sessions.id', '=', sessionId)
      .where('sessions.user_id', '=', me.userId)
      .where('sessions.revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
}

const me: Me = { tenantId: 3, userId: 41 };
const session = '5b0f4c9e-2d1a-4f7e-9a3b-6c8d2e1f0a47';

export const userQueries = defineQueries(UserRepository, {
  findInfo: [[me]],
  findProfile: [[me]],
  findPasswordHash: [[me]],
  setPasswordHash: [[me, '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA']],
  updateProfile: [[me, { nickname: 'Li Wei', email: 'li.wei@example.com' }]],
  ownsObject: [[me, '2026/03/01/7c1e-avatar.png']],
  setAvatar: [[me, '2026/03/01/7c1e-avatar.png']],
  revokeSession: [[session, 'too many wrong passwords']],
  listLiveSessions: [[me, session, new Date('2026-03-01T08:00:00Z')]],
  revokeOwnSession: [[me, session, 'signed out from the personal centre']],
});
