import { randomInt, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import {
  AUTH_STATUS,
  SMS_RESEND_SECONDS,
  type LoginBody,
  type LoginResult,
  type ProfileUpdateBody,
  type ProfileView,
  type RegisterBody,
  type RoleOption,
  type SessionView,
  type SmsSendBody,
  type UserInfo,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { Config } from '../../config.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { audit } from '../../lib/audit.ts';
import type { CaptchaProvider } from '../../lib/captcha.ts';
import type { SmsProvider } from '../../lib/sms.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { hashPassword, verifyPassword } from '../../lib/password.ts';
import { newOpaqueToken, sha256, type AccessTokens } from '../../lib/tokens.ts';

export interface ClientInfo {
  ip: string;
  userAgent: string;
}

export interface IssuedSession {
  result: LoginResult;
  refreshToken: string;
}

const SMS_TTL_MS = 5 * 60_000;
const SMS_MAX_ATTEMPTS = 5;
/** Avatar links are signed for a day: userInfo is fetched at every page load, so they are renewed long before. */
const AVATAR_URL_TTL = 24 * 3600;

/** 138****0000: the personal centre shows the number without handing it out whole. */
export const maskMobile = (mobile: string | null): string | null =>
  mobile ? (mobile.length >= 7 ? `${mobile.slice(0, 3)}${'*'.repeat(mobile.length - 7)}${mobile.slice(-4)}` : '*'.repeat(mobile.length)) : null;

/** The roles of each user, as `[{ id, code, name }]`, for a query over `users`. */
export const rolesOf = (userIdColumn: string) =>
  sql<RoleOption[]>`coalesce((select json_agg(json_build_object('id', r.id, 'code', r.code, 'name', r.name) order by r.id) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = ${sql.ref(userIdColumn)}), '[]'::json)`;

export class UserService {
  constructor(
    private db: Db,
    private config: Config,
    private tokens: AccessTokens,
    private captcha: CaptchaProvider,
    private sms: SmsProvider,
    private storage: ObjectStorage,
  ) {}

  /** A link the browser can show the avatar from ('' when the user has none). */
  avatarUrl(key: string): string {
    return key ? this.storage.signedUrl(key, AVATAR_URL_TTL) : '';
  }

  private async issue(user: { id: number; tenant_id: number; username: string; is_super: number }, status: number, client: ClientInfo): Promise<IssuedSession> {
    const sessionId = randomUUID();
    const refreshToken = newOpaqueToken();
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('sessions').values({ id: sessionId, tenant_id: user.tenant_id, user_id: user.id, ip: client.ip, user_agent: client.userAgent.slice(0, 300), revoked_at: null, revoke_reason: null }).execute();
      await trx.insertInto('refresh_tokens').values({ token_hash: sha256(refreshToken), session_id: sessionId, expires_at: new Date(Date.now() + this.config.REFRESH_TOKEN_TTL * 1000), used_at: null }).execute();
    });
    const token = await this.tokens.sign({ userId: user.id, tenantId: user.tenant_id, sessionId });
    return { refreshToken, result: { token, status, username: user.username, is_super: user.is_super, expiresIn: this.tokens.ttlSeconds } };
  }

  /** Throttles by account and by client address, counting recent failures in the audit log (shared by every node). */
  private async checkThrottle(subject: string, ip: string): Promise<void> {
    const since = new Date(Date.now() - this.config.LOGIN_FAIL_WINDOW * 1000);
    const row = await this.db
      .selectFrom('audit_log')
      .select([
        sql<number>`count(*) filter (where subject = ${subject})`.as('by_subject'),
        sql<number>`count(*) filter (where ip = ${ip})`.as('by_ip'),
      ])
      .where('action', '=', 'login')
      .where('result', '=', 'fail')
      .where('at', '>', since)
      .where((eb) => eb.or([eb('subject', '=', subject), eb('ip', '=', ip)]))
      .executeTakeFirstOrThrow();
    if (Number(row.by_subject) >= this.config.LOGIN_MAX_FAILS_ACCOUNT || Number(row.by_ip) >= this.config.LOGIN_MAX_FAILS_IP) {
      const minutes = Math.ceil(this.config.LOGIN_FAIL_WINDOW / 60);
      throw new AppError(429, `too many failed logins, try again in ${minutes} minutes`, null, { 'retry-after': String(this.config.LOGIN_FAIL_WINDOW) });
    }
  }

  async login(body: LoginBody, client: ClientInfo): Promise<IssuedSession> {
    const subject = body.username.toLowerCase();
    await this.checkThrottle(subject, client.ip);
    await this.captcha.verify(body.captchaId, body.captcha);
    const user = await this.db
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id', 'u.tenant_id', 'u.username', 'u.is_super', 'u.password_hash', 'u.state', 't.auth_status'])
      .where((eb) => eb.or([eb(sql`lower(u.username)`, '=', subject), eb('u.mobile', '=', body.username)]))
      .executeTakeFirst();
    const good = await verifyPassword(user?.password_hash, body.password);
    if (!user || !good || user.state !== 'active') {
      await audit(this.db, { tenantId: user?.tenant_id, userId: user?.id, ip: client.ip, action: 'login', result: 'fail', subject, details: { reason: !user ? 'unknown account' : !good ? 'wrong password' : 'disabled' } });
      throw new AppError(401, 'wrong user name or password');
    }
    const issued = await this.issue(user, user.auth_status, client);
    await audit(this.db, { tenantId: user.tenant_id, userId: user.id, ip: client.ip, action: 'login', result: 'ok', subject });
    return issued;
  }

  async sendSms(body: SmsSendBody, client: ClientInfo): Promise<{ countdown: number }> {
    await this.captcha.verify(body.captchaId, body.captcha);
    if (body.purpose === 'register') {
      const taken = await this.db.selectFrom('users').select('id').where('mobile', '=', body.mobile).executeTakeFirst();
      if (taken) throw badRequest('mobile', 'this mobile number is already registered');
    }
    const last = await this.db
      .selectFrom('sms_codes')
      .select('created_at')
      .where('mobile', '=', body.mobile)
      .where('purpose', '=', body.purpose)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    const wait = last ? SMS_RESEND_SECONDS - Math.floor((Date.now() - last.created_at.getTime()) / 1000) : 0;
    if (wait > 0) throw new AppError(429, `verification code can be resent after ${wait} seconds`, { countdown: wait }, { 'retry-after': String(wait) });
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.db.insertInto('sms_codes').values({ mobile: body.mobile, purpose: body.purpose, code_hash: sha256(`${body.mobile}:${code}`), expires_at: new Date(Date.now() + SMS_TTL_MS), used_at: null }).execute();
    await this.sms.send({ mobile: body.mobile, template: body.purpose, params: { code }, text: `【云打印】您的验证码是 ${code}，5 分钟内有效。Your cloud printing code is ${code}, valid for 5 minutes.` });
    await audit(this.db, { ip: client.ip, action: 'sms.send', result: 'ok', subject: body.mobile, details: { purpose: body.purpose } });
    return { countdown: SMS_RESEND_SECONDS };
  }

  /** Consumes the newest code for the number; wrong tries count, and five end it. */
  private async checkSmsCode(mobile: string, purpose: string, code: string): Promise<void> {
    const row = await this.db
      .selectFrom('sms_codes')
      .selectAll()
      .where('mobile', '=', mobile)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row || row.expires_at < new Date() || row.attempts >= SMS_MAX_ATTEMPTS) throw badRequest('smsCode', 'verification code expired, please get a new one');
    if (row.code_hash !== sha256(`${mobile}:${code}`)) {
      await this.db.updateTable('sms_codes').set({ attempts: row.attempts + 1 }).where('id', '=', row.id).execute();
      throw badRequest('smsCode', 'verification code is wrong');
    }
    const used = await this.db.updateTable('sms_codes').set({ used_at: new Date() }).where('id', '=', row.id).where('used_at', 'is', null).executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) throw badRequest('smsCode', 'verification code expired, please get a new one');
  }

  async register(body: RegisterBody, client: ClientInfo): Promise<IssuedSession> {
    const clash = await this.db
      .selectFrom('users')
      .select(['username', 'mobile'])
      .where((eb) => eb.or([eb(sql`lower(username)`, '=', body.username.toLowerCase()), eb('mobile', '=', body.mobile)]))
      .executeTakeFirst();
    if (clash?.mobile === body.mobile) throw badRequest('mobile', 'this mobile number is already registered');
    if (clash) throw badRequest('username', 'this user name is taken');
    await this.checkSmsCode(body.mobile, 'register', body.smsCode);
    const passwordHash = await hashPassword(body.password);
    const user = await this.db.transaction().execute(async (trx) => {
      const tenant = await trx.insertInto('tenants').values({ kind: body.type, name: body.username }).returning('id').executeTakeFirstOrThrow();
      return trx
        .insertInto('users')
        .values({ tenant_id: tenant.id, username: body.username, mobile: body.mobile, password_hash: passwordHash, is_super: 1 })
        .returning(['id', 'tenant_id', 'username', 'is_super'])
        .executeTakeFirstOrThrow();
    }).catch((e: { code?: string }) => {
      if (e.code === '23505') throw badRequest('username', 'this user name or mobile number is taken');
      throw e;
    });
    await audit(this.db, { tenantId: user.tenant_id, userId: user.id, ip: client.ip, action: 'register', result: 'ok', subject: body.username, details: { type: body.type } });
    return this.issue(user, AUTH_STATUS.notSubmitted, client);
  }

  /** Rotates the refresh token; presenting one already used revokes the whole session (reuse detection). */
  async refresh(refreshToken: string | undefined, client: ClientInfo): Promise<IssuedSession> {
    if (!refreshToken) throw new AppError(401, 'login expired, please log in again');
    const hashOld = sha256(refreshToken);
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('refresh_tokens as r')
        .innerJoin('sessions as s', 's.id', 'r.session_id')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .innerJoin('tenants as t', 't.id', 'u.tenant_id')
        .select(['r.session_id', 'r.expires_at', 'r.used_at', 's.revoked_at', 'u.id', 'u.tenant_id', 'u.username', 'u.is_super', 'u.state', 't.auth_status'])
        .where('r.token_hash', '=', hashOld)
        .forUpdate('r')
        .executeTakeFirst();
      if (!row || row.revoked_at || row.state !== 'active' || row.expires_at < new Date()) throw new AppError(401, 'login expired, please log in again');
      if (row.used_at) {
        await trx.updateTable('sessions').set({ revoked_at: new Date(), revoke_reason: 'refresh token reuse' }).where('id', '=', row.session_id).execute();
        await audit(trx, { tenantId: row.tenant_id, userId: row.id, ip: client.ip, action: 'token.reuse', result: 'denied', resource: 'session', resourceId: row.session_id });
        // The revocation must survive the error below: commit it first.
        return { reuse: true } as const;
      }
      await trx.updateTable('refresh_tokens').set({ used_at: new Date() }).where('token_hash', '=', hashOld).execute();
      await trx.updateTable('sessions').set({ last_active_at: new Date() }).where('id', '=', row.session_id).execute();
      const next = newOpaqueToken();
      await trx.insertInto('refresh_tokens').values({ token_hash: sha256(next), session_id: row.session_id, expires_at: new Date(Date.now() + this.config.REFRESH_TOKEN_TTL * 1000), used_at: null }).execute();
      const token = await this.tokens.sign({ userId: row.id, tenantId: row.tenant_id, sessionId: row.session_id });
      return { refreshToken: next, result: { token, status: row.auth_status, username: row.username, is_super: row.is_super, expiresIn: this.tokens.ttlSeconds } };
    }).then((r) => {
      if ('reuse' in r) throw new AppError(401, 'login expired, please log in again');
      return r;
    });
  }

  /** Ends every session of the user: logout, password change and disabling all come here. */
  async endSessions(userId: number, reason: string, exceptSession?: string): Promise<void> {
    let q = this.db.updateTable('sessions').set({ revoked_at: new Date(), revoke_reason: reason }).where('user_id', '=', userId).where('revoked_at', 'is', null);
    if (exceptSession) q = q.where('id', '!=', exceptSession);
    await q.execute();
  }

  async endSession(user: AuthUser, client: ClientInfo): Promise<void> {
    await this.db.updateTable('sessions').set({ revoked_at: new Date(), revoke_reason: 'expired by user' }).where('id', '=', user.sessionId).execute();
    await audit(this.db, { tenantId: user.tenantId, userId: user.id, ip: client.ip, action: 'session.expire', result: 'ok', resource: 'session', resourceId: user.sessionId });
  }

  async logout(user: AuthUser, client: ClientInfo): Promise<void> {
    await this.endSessions(user.id, 'logout');
    await audit(this.db, { tenantId: user.tenantId, userId: user.id, ip: client.ip, action: 'logout', result: 'ok' });
  }

  async userInfo(user: AuthUser): Promise<UserInfo> {
    const row = await user.scope
      .selectFrom('users')
      .innerJoin('tenants as t', 't.id', 'users.tenant_id')
      .select(['users.id', 'users.username', 'users.mobile', 'users.avatar', 'users.is_super', 't.auth_status', 't.attest_name', 't.kind'])
      .where('users.id', '=', user.id)
      .executeTakeFirstOrThrow();
    return {
      id: row.id,
      username: row.username,
      mobile: row.mobile,
      avatar: this.avatarUrl(row.avatar),
      is_super: row.is_super,
      status: row.kind === 'platform' ? AUTH_STATUS.authenticated : row.auth_status,
      is_authenticate: row.kind === 'platform' || row.auth_status === AUTH_STATUS.authenticated ? 1 : 0,
      attest_name: row.attest_name,
      tenantKind: row.kind,
      admin: user.admin,
      roles: user.roles,
      permissions: user.permissions,
    };
  }

  /**
   * Checks the signed-in user's own password (the lock screen, a password change). Wrong answers count like
   * failed logins: at LOGIN_MAX_FAILS_ACCOUNT within the window (and this session) the session ends, so a stolen
   * session cannot be used to guess the password; the user signs in again, behind the login's captcha and
   * throttling.
   */
  async checkPassword(user: AuthUser, password: string, client: ClientInfo, field: 'password' | 'oldPassword' = 'password'): Promise<void> {
    const since = new Date(Date.now() - this.config.LOGIN_FAIL_WINDOW * 1000);
    const fails = async () =>
      Number(
        (
          await this.db
            .selectFrom('audit_log')
            .select(sql<number>`count(*)`.as('n'))
            .where('user_id', '=', user.id)
            .where('action', '=', 'password.check')
            .where('result', '=', 'fail')
            // counted within this session: a new one comes only through a full login, with its own throttling
            .where('at', '>', sql<Date>`greatest(${since}::timestamptz, (SELECT created_at FROM sessions WHERE id = ${user.sessionId}))`)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const signOut = async () => {
      await this.db.updateTable('sessions').set({ revoked_at: new Date(), revoke_reason: 'too many wrong passwords' }).where('id', '=', user.sessionId).execute();
      return new AppError(401, 'too many wrong passwords: signed out, please log in again');
    };
    if ((await fails()) >= this.config.LOGIN_MAX_FAILS_ACCOUNT) throw await signOut();
    const row = await user.scope.selectFrom('users').select('password_hash').where('users.id', '=', user.id).executeTakeFirstOrThrow();
    if (await verifyPassword(row.password_hash, password)) return;
    await audit(this.db, { tenantId: user.tenantId, userId: user.id, ip: client.ip, action: 'password.check', result: 'fail', subject: user.username.toLowerCase() });
    const left = this.config.LOGIN_MAX_FAILS_ACCOUNT - (await fails());
    if (left <= 0) throw await signOut();
    const message = field === 'password' ? 'please enter the correct password' : 'the old password is wrong';
    throw new AppError(400, `${field}: ${message}`, { fields: [{ field, message }], attemptsLeft: left });
  }

  async changePassword(user: AuthUser, oldPassword: string, password: string, client: ClientInfo): Promise<void> {
    await this.checkPassword(user, oldPassword, client, 'oldPassword');
    await user.scope.updateTable('users').set({ password_hash: await hashPassword(password) }).where('users.id', '=', user.id).execute();
    await this.endSessions(user.id, 'password changed', user.sessionId);
    await audit(this.db, { tenantId: user.tenantId, userId: user.id, ip: client.ip, action: 'password.change', result: 'ok' });
  }

  async profile(user: AuthUser): Promise<ProfileView> {
    const row = await user.scope
      .selectFrom('users')
      .innerJoin('tenants as t', 't.id', 'users.tenant_id')
      .select(['users.id', 'users.username', 'users.nickname', 'users.email', 'users.mobile', 'users.avatar', 'users.is_super', 'users.created_at', 't.kind', 't.name as tenant_name', 't.auth_status', 't.attest_name'])
      .select(rolesOf('users.id').as('roles'))
      .where('users.id', '=', user.id)
      .executeTakeFirstOrThrow();
    return {
      id: row.id,
      username: row.username,
      nickname: row.nickname,
      email: row.email,
      mobile: maskMobile(row.mobile),
      avatar: this.avatarUrl(row.avatar),
      is_super: row.is_super,
      tenantKind: row.kind,
      tenantName: row.tenant_name,
      authStatus: row.kind === 'platform' ? AUTH_STATUS.authenticated : row.auth_status,
      attestName: row.attest_name,
      roles: row.roles,
      createdAt: row.created_at.toISOString(),
    };
  }

  async updateProfile(user: AuthUser, body: ProfileUpdateBody, client: ClientInfo): Promise<ProfileView> {
    await user.scope.updateTable('users').set({ nickname: body.nickname, email: body.email }).where('users.id', '=', user.id).execute();
    await audit(this.db, { tenantId: user.tenantId, userId: user.id, ip: client.ip, action: 'profile.update', result: 'ok', resource: 'user', resourceId: user.id });
    return this.profile(user);
  }

  /** The avatar must be an image this user uploaded (the upload already checked its bytes: jpg/png ≤ 10 MB). */
  async setAvatar(user: AuthUser, key: string, client: ClientInfo): Promise<ProfileView> {
    const owned = await user.scope.selectFrom('objects').select('objects.mime').where('objects.key', '=', key).where('objects.user_id', '=', user.id).executeTakeFirst();
    if (!owned) throw badRequest('avatarKey', 'upload the image first');
    await user.scope.updateTable('users').set({ avatar: key }).where('users.id', '=', user.id).execute();
    await audit(this.db, { tenantId: user.tenantId, userId: user.id, ip: client.ip, action: 'profile.avatar', result: 'ok', resource: 'user', resourceId: user.id });
    return this.profile(user);
  }

  /** Sessions that can still be used: not ended and holding a refresh token that is neither used nor expired. */
  async sessions(user: AuthUser): Promise<SessionView[]> {
    const now = new Date();
    const rows = await user.scope
      .selectFrom('sessions')
      .select(['sessions.id', 'sessions.ip', 'sessions.user_agent', 'sessions.created_at', 'sessions.last_active_at'])
      .where('sessions.user_id', '=', user.id)
      .where('sessions.revoked_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('sessions.id', '=', user.sessionId),
          eb.exists(eb.selectFrom('refresh_tokens as r').select('r.session_id').whereRef('r.session_id', '=', 'sessions.id').where('r.used_at', 'is', null).where('r.expires_at', '>', now)),
        ]),
      )
      .orderBy('sessions.last_active_at', 'desc')
      .limit(100)
      .execute();
    return rows
      .map((r) => ({
        id: r.id,
        ip: r.ip,
        userAgent: r.user_agent,
        createdAt: r.created_at.toISOString(),
        lastActiveAt: r.last_active_at.toISOString(),
        current: r.id === user.sessionId,
      }))
      .sort((a, b) => Number(b.current) - Number(a.current));
  }

  /** Signs out one other session of the caller's own; another user's session is simply not found. */
  async revokeSession(user: AuthUser, sessionId: string, client: ClientInfo): Promise<void> {
    if (sessionId === user.sessionId) throw badRequest('id', 'this is the current session: log out instead');
    const res = await user.scope
      .updateTable('sessions')
      .set({ revoked_at: new Date(), revoke_reason: 'signed out from the personal centre' })
      .where('sessions.id', '=', sessionId)
      .where('sessions.user_id', '=', user.id)
      .where('sessions.revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw notFound('session');
    await audit(this.db, { tenantId: user.tenantId, userId: user.id, ip: client.ip, action: 'session.revoke', result: 'ok', resource: 'session', resourceId: sessionId });
  }
}
