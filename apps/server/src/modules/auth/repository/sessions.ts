import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';

/** A new session with its first refresh token. */
export interface NewSession {
  id: string;
  tenantId: number;
  userId: number;
  ip: string;
  userAgent: string;
  refreshHash: string;
  refreshExpiresAt: Date;
}

/** A new SMS code (its hash only). */
export interface NewSmsCode {
  mobile: string;
  purpose: string;
  codeHash: string;
  expiresAt: Date;
}

/** A new account: its tenant and its first user (the main account). */
export interface NewAccount {
  kind: 'individual' | 'enterprise';
  username: string;
  mobile: string;
  passwordHash: string;
}

/**
 * Every statement of signing in and out: the accounts a sign-in looks up (`users` with their `tenants`),
 * `sessions` and `refresh_tokens`, the `sms_codes` of registration and SMS sign-in, and the new tenant and user
 * of a registration.
 */
export class AuthRepository {
  constructor(private db: Db) {}

  /**
   * Runs `work` in one transaction with a repository bound to it, and the transaction itself for what other
   * sections do in it (their own repositories, the system log).
   */
  transaction<T>(work: (repo: AuthRepository, trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new AuthRepository(trx), trx));
  }

  /** Opens a session with its refresh token, in one transaction. */
  openSession(s: NewSession): Promise<void> {
    return new TenantScope(this.db, s.tenantId).transaction(async (tx) => {
      await tx
        .insertInto('sessions', {
          id: s.id,
          user_id: s.userId,
          ip: s.ip,
          user_agent: s.userAgent,
          revoked_at: null,
          revoke_reason: null,
        })
        .execute();
      await tx.db
        .insertInto('refresh_tokens')
        .values({ token_hash: s.refreshHash, session_id: s.id, expires_at: s.refreshExpiresAt, used_at: null })
        .execute();
    });
  }

  /** The account a login names: by user name (case aside) or by mobile number. */
  findForLogin(subject: string, typed: string) {
    return this.db
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id', 'u.tenant_id', 'u.username', 'u.is_super', 'u.password_hash', 'u.state', 't.auth_status'])
      .where((eb) => eb.or([eb(sql`lower(u.username)`, '=', subject), eb('u.mobile', '=', typed)]))
      .executeTakeFirst();
  }

  /** The account of a user id, with its tenant's certification status. */
  findForSignIn(userId: number) {
    return this.db
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id', 'u.tenant_id', 'u.username', 'u.is_super', 'u.state', 't.auth_status'])
      .where('u.id', '=', userId)
      .executeTakeFirst();
  }

  /** Whether a user of any tenant has this mobile number. */
  async mobileTaken(mobile: string): Promise<boolean> {
    return !!(await this.db.selectFrom('users').select('id').where('mobile', '=', mobile).executeTakeFirst());
  }

  /** A user whose name (case aside) or mobile number is the one asked for. */
  findClash(username: string, mobile: string) {
    return this.db
      .selectFrom('users')
      .select(['username', 'mobile'])
      .where((eb) => eb.or([eb(sql`lower(username)`, '=', username.toLowerCase()), eb('mobile', '=', mobile)]))
      .executeTakeFirst();
  }

  async insertSmsCode(c: NewSmsCode): Promise<void> {
    await this.db
      .insertInto('sms_codes')
      .values({ mobile: c.mobile, purpose: c.purpose, code_hash: c.codeHash, expires_at: c.expiresAt, used_at: null })
      .execute();
  }

  /**
   * Counts a try on the newest unused code of the number and purpose, if it is fresh and has tries left;
   * answers it (its id and hash), counted, in the same statement.
   */
  takeSmsCode(mobile: string, purpose: string, maxAttempts: number) {
    return this.db
      .updateTable('sms_codes')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', (eb) =>
        eb
          .selectFrom('sms_codes')
          .select('id')
          .where('mobile', '=', mobile)
          .where('purpose', '=', purpose)
          .where('used_at', 'is', null)
          .orderBy('created_at', 'desc')
          .limit(1),
      )
      .where('used_at', 'is', null)
      .where('attempts', '<', maxAttempts)
      .where('expires_at', '>', new Date())
      .returning(['id', 'code_hash'])
      .executeTakeFirst();
  }

  /** Marks a code used; answers whether it was still unused. */
  async useSmsCode(id: number): Promise<boolean> {
    const used = await this.db
      .updateTable('sms_codes')
      .set({ used_at: new Date() })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(used.numUpdatedRows) === 1;
  }

  /** Adds a tenant; answers its id. */
  async insertTenant(kind: NewAccount['kind'], name: string): Promise<number> {
    const tenant = await this.db.insertInto('tenants').values({ kind, name }).returning('id').executeTakeFirstOrThrow();
    return tenant.id;
  }

  /** Adds the main account of a new tenant. */
  insertMainUser(tenantId: number, a: Omit<NewAccount, 'kind'>) {
    return new TenantScope(this.db, tenantId)
      .insertInto('users', {
        username: a.username,
        mobile: a.mobile,
        password_hash: a.passwordHash,
        is_super: 1,
      })
      .returning(['id', 'tenant_id', 'username', 'is_super'])
      .executeTakeFirstOrThrow();
  }

  /** A refresh token with its session and account, the token's row locked until the transaction ends. */
  findRefreshForUpdate(tokenHash: string) {
    return this.db
      .selectFrom('refresh_tokens as r')
      .innerJoin('sessions as s', 's.id', 'r.session_id')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select([
        'r.session_id',
        'r.expires_at',
        'r.used_at',
        's.revoked_at',
        'u.id',
        'u.tenant_id',
        'u.username',
        'u.is_super',
        'u.state',
        't.auth_status',
      ])
      .where('r.token_hash', '=', tokenHash)
      .forUpdate('r')
      .executeTakeFirst();
  }

  /** Ends a session, saying why. */
  async revokeSession(sessionId: string, reason: string): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: new Date(), revoke_reason: reason })
      .where('id', '=', sessionId)
      .execute();
  }

  /** Rotates a session's refresh token: the old one used, the session touched, the next one stored. */
  async rotateRefresh(sessionId: string, oldHash: string, nextHash: string, expiresAt: Date): Promise<void> {
    await this.db
      .updateTable('refresh_tokens')
      .set({ used_at: new Date() })
      .where('token_hash', '=', oldHash)
      .execute();
    await this.db.updateTable('sessions').set({ last_active_at: new Date() }).where('id', '=', sessionId).execute();
    await this.db
      .insertInto('refresh_tokens')
      .values({ token_hash: nextHash, session_id: sessionId, expires_at: expiresAt, used_at: null })
      .execute();
  }
}

const hash = '9f2c4e1a7b3d5f608e1c2a4b6d8f0e1a3c5e7f9b1d3f5a7c9e1b3d5f7a9c1e3b';
const sessionId = '5b0f4c9e-2d1a-4f7e-9a3b-6c8d2e1f0a47';

export const authQueries = defineQueries(AuthRepository, {
  openSession: [
    [
      {
        id: sessionId,
        tenantId: 3,
        userId: 41,
        ip: '203.0.113.7',
        userAgent: 'Mozilla/5.0',
        refreshHash: hash,
        refreshExpiresAt: new Date('2026-03-31T08:00:00Z'),
      },
    ],
  ],
  findForLogin: [['liwei', 'LiWei']],
  findForSignIn: [[41]],
  mobileTaken: [['13800000000']],
  findClash: [['LiWei', '13800000000']],
  insertSmsCode: [
    [{ mobile: '13800000000', purpose: 'register', codeHash: hash, expiresAt: new Date('2026-03-01T08:05:00Z') }],
  ],
  takeSmsCode: [['13800000000', 'register', 5]],
  useSmsCode: [[88]],
  insertTenant: [['enterprise', 'liwei']],
  insertMainUser: [
    [3, { username: 'liwei', mobile: '13800000000', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA' }],
  ],
  findRefreshForUpdate: [[hash]],
  revokeSession: [[sessionId, 'refresh token reuse']],
  rotateRefresh: [[sessionId, hash, hash.replace('9f', '0a'), new Date('2026-03-31T08:00:00Z')]],
});
