import { randomInt, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import {
  AUTH_STATUS,
  SMS_RESEND_SECONDS,
  type LoginBody,
  type LoginResult,
  type RegisterBody,
  type SmsSendBody,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import type { Config } from '../../config.ts';
import { AppError, badRequest } from '../../plugins/errors.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { audit } from '../../lib/audit.ts';
import { deviceSummary } from '../../lib/user-agent.ts';
import type { CaptchaProvider } from '../../lib/captcha.ts';
import type { SmsProvider } from '../../lib/sms.ts';
import { hashPassword, verifyPassword } from '../../lib/password.ts';
import { newOpaqueToken, sha256, type AccessTokens } from '../../lib/tokens.ts';
import { addressKey, hit, unhit, type Hit } from '../../lib/counters.ts';
import { endSessions, type ClientInfo } from '../../lib/sessions.ts';
import { ensureDefaultRoles } from '../role/index.ts';

export interface IssuedSession {
  result: LoginResult;
  refreshToken: string;
  /** Whom the session is for (not sent: the routes answer `result`). */
  userId: number;
  tenantId: number;
}

const SMS_TTL_MS = 5 * 60_000;
const SMS_MAX_ATTEMPTS = 5;

/** Signing in and out: captcha-checked login, SMS codes, registration, refresh-token rotation, logout. */
export class AuthService {
  constructor(
    private db: Db,
    private config: Config,
    private tokens: AccessTokens,
    private captcha: CaptchaProvider,
    private sms: SmsProvider,
  ) {}

  private async issue(
    user: { id: number; tenant_id: number; username: string; is_super: number },
    status: number,
    client: ClientInfo,
  ): Promise<IssuedSession> {
    const sessionId = randomUUID();
    const refreshToken = newOpaqueToken();
    await new TenantScope(this.db, user.tenant_id).transaction(async (tx) => {
      await tx
        .insertInto('sessions', {
          id: sessionId,
          user_id: user.id,
          ip: client.ip,
          user_agent: client.userAgent.slice(0, 300),
          revoked_at: null,
          revoke_reason: null,
        })
        .execute();
      await tx.db
        .insertInto('refresh_tokens')
        .values({
          token_hash: sha256(refreshToken),
          session_id: sessionId,
          expires_at: new Date(Date.now() + this.config.REFRESH_TOKEN_TTL * 1000),
          used_at: null,
        })
        .execute();
    });
    const token = await this.tokens.sign({ userId: user.id, tenantId: user.tenant_id, sessionId });
    return {
      refreshToken,
      userId: user.id,
      tenantId: user.tenant_id,
      result: { token, status, username: user.username, is_super: user.is_super, expiresIn: this.tokens.ttlSeconds },
    };
  }

  /**
   * Takes one of the login's attempts before the password is checked: per account (the account the name typed
   * resolves to, whichever of its names was typed; the name itself when it names no account, so probing unknown
   * names is limited too) and per client address. Counting and checking are one statement on counters shared by
   * every node (lib/counters.ts), so of any number of simultaneous attempts at most the limit reach the password
   * check; an attempt refused here gives its counts back, and so does a successful login (`releaseAttempt`):
   * the counts are failed and running checks.
   */
  private async takeAttempt(account: string, ip: string): Promise<Hit[]> {
    const windowMs = this.config.LOGIN_FAIL_WINDOW * 1000;
    const hits = await hit(this.db, windowMs, [
      { bucket: 'login.account', key: account },
      { bucket: 'login.ip', key: addressKey(ip) },
    ]);
    const [byAccount, byIp] = hits;
    const over = [
      byAccount.hits > this.config.LOGIN_MAX_FAILS_ACCOUNT ? byAccount : null,
      byIp.hits > this.config.LOGIN_MAX_FAILS_IP ? byIp : null,
    ].filter((h) => h !== null);
    if (over.length) {
      await unhit(this.db, hits);
      const seconds = Math.max(1, Math.ceil(Math.max(...over.map((h) => h.ttlMs)) / 1000));
      throw new AppError(
        429,
        'auth.loginThrottled',
        { n: Math.ceil(seconds / 60) },
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    return hits;
  }

  private releaseAttempt(hits: Hit[]): Promise<void> {
    return unhit(this.db, hits);
  }

  async login(body: LoginBody, client: ClientInfo): Promise<IssuedSession> {
    const subject = body.username.toLowerCase();
    const device = deviceSummary(client.userAgent);
    // every failed sign-in is in the system log, whatever stopped it (never the password that was tried)
    // (a try the throttle refuses checks no password: it is `login.throttled`, so `login` failures count checks)
    const failed = (reason: string, user?: { id: number; tenant_id: number }) =>
      audit(this.db, {
        tenantId: user?.tenant_id,
        userId: user?.id,
        ip: client.ip,
        action: reason === 'throttled' ? 'login.throttled' : 'login',
        result: reason === 'throttled' ? 'denied' : 'fail',
        subject,
        details: { reason, device },
      });
    // the captcha first: tries without a solved one never hold a count, so a flood of them cannot lock an account
    await this.captcha.verify(body.captchaId, body.captcha).catch(async (e: unknown) => {
      await failed('captcha');
      throw e;
    });
    const user = await this.db
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id', 'u.tenant_id', 'u.username', 'u.is_super', 'u.password_hash', 'u.state', 't.auth_status'])
      .where((eb) => eb.or([eb(sql`lower(u.username)`, '=', subject), eb('u.mobile', '=', body.username)]))
      .executeTakeFirst();
    const attempt = await this.takeAttempt(user ? `user:${user.id}` : `name:${subject}`, client.ip).catch(
      async (e: unknown) => {
        await failed('throttled', user);
        throw e;
      },
    );
    const good = await verifyPassword(user?.password_hash, body.password);
    if (!user || !good || user.state !== 'active') {
      await failed(!user ? 'unknown account' : !good ? 'wrong password' : 'disabled', user);
      throw new AppError(401, 'auth.wrongPassword');
    }
    await this.releaseAttempt(attempt);
    const issued = await this.issue(user, user.auth_status, client);
    await audit(this.db, {
      tenantId: user.tenant_id,
      userId: user.id,
      ip: client.ip,
      action: 'login',
      result: 'ok',
      subject,
      details: { device },
    });
    return issued;
  }

  /** Signs in the account a linked social identity belongs to (social login: the provider vouched for it). */
  async signInAs(userId: number, client: ClientInfo, details: Record<string, unknown>): Promise<IssuedSession> {
    const user = await this.db
      .selectFrom('users as u')
      .innerJoin('tenants as t', 't.id', 'u.tenant_id')
      .select(['u.id', 'u.tenant_id', 'u.username', 'u.is_super', 'u.state', 't.auth_status'])
      .where('u.id', '=', userId)
      .executeTakeFirst();
    if (!user || user.state !== 'active') {
      await audit(this.db, {
        tenantId: user?.tenant_id,
        userId: user?.id,
        ip: client.ip,
        action: 'login',
        result: 'fail',
        subject: user?.username.toLowerCase(),
        details: { ...details, reason: 'disabled' },
      });
      throw new AppError(401, 'auth.wrongPassword');
    }
    const issued = await this.issue(user, user.auth_status, client);
    await audit(this.db, {
      tenantId: user.tenant_id,
      userId: user.id,
      ip: client.ip,
      action: 'login',
      result: 'ok',
      subject: user.username.toLowerCase(),
      details,
    });
    return issued;
  }

  async sendSms(body: SmsSendBody, client: ClientInfo): Promise<{ countdown: number }> {
    await this.captcha.verify(body.captchaId, body.captcha);
    if (body.purpose === 'register') {
      const taken = await this.db.selectFrom('users').select('id').where('mobile', '=', body.mobile).executeTakeFirst();
      if (taken) throw badRequest('mobile', 'auth.mobileTaken');
    }
    // one code per number and purpose in the countdown, counted and checked in one step: simultaneous requests
    // (on any node) send one SMS, not one each
    const [sent] = await hit(this.db, SMS_RESEND_SECONDS * 1000, [
      { bucket: 'sms.resend', key: `${body.purpose}:${body.mobile}` },
    ]);
    if (sent.hits > 1) {
      const wait = Math.max(1, Math.ceil(sent.ttlMs / 1000));
      throw new AppError(
        429,
        'auth.smsCountdown',
        { n: wait },
        { data: { countdown: wait }, headers: { 'retry-after': String(wait) } },
      );
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await this.db
      .insertInto('sms_codes')
      .values({
        mobile: body.mobile,
        purpose: body.purpose,
        code_hash: sha256(`${body.mobile}:${code}`),
        expires_at: new Date(Date.now() + SMS_TTL_MS),
        used_at: null,
      })
      .execute();
    await this.sms.send({
      mobile: body.mobile,
      template: body.purpose,
      params: { code },
      text: `【云打印】您的验证码是 ${code}，5 分钟内有效。Your cloud printing code is ${code}, valid for 5 minutes.`,
    });
    await audit(this.db, {
      ip: client.ip,
      action: 'sms.send',
      result: 'ok',
      subject: body.mobile,
      details: { purpose: body.purpose },
    });
    return { countdown: SMS_RESEND_SECONDS };
  }

  /**
   * Consumes the newest code for the number; every try counts, and five end it. The try is counted before the
   * code is compared, in the statement that checks the count: simultaneous guesses get five comparisons in all.
   */
  private async checkSmsCode(mobile: string, purpose: string, code: string): Promise<void> {
    const row = await this.db
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
      .where('attempts', '<', SMS_MAX_ATTEMPTS)
      .where('expires_at', '>', new Date())
      .returning(['id', 'code_hash'])
      .executeTakeFirst();
    if (!row) throw badRequest('smsCode', 'auth.smsCodeExpired');
    if (row.code_hash !== sha256(`${mobile}:${code}`)) throw badRequest('smsCode', 'auth.smsCodeWrong');
    const used = await this.db
      .updateTable('sms_codes')
      .set({ used_at: new Date() })
      .where('id', '=', row.id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) throw badRequest('smsCode', 'auth.smsCodeExpired');
  }

  async register(body: RegisterBody, client: ClientInfo): Promise<IssuedSession> {
    const clash = await this.db
      .selectFrom('users')
      .select(['username', 'mobile'])
      .where((eb) =>
        eb.or([eb(sql`lower(username)`, '=', body.username.toLowerCase()), eb('mobile', '=', body.mobile)]),
      )
      .executeTakeFirst();
    if (clash?.mobile === body.mobile) throw badRequest('mobile', 'auth.mobileTaken');
    if (clash) throw badRequest('username', 'auth.usernameTaken');
    await this.checkSmsCode(body.mobile, 'register', body.smsCode);
    const passwordHash = await hashPassword(body.password);
    const user = await this.db
      .transaction()
      .execute(async (trx) => {
        const tenant = await trx
          .insertInto('tenants')
          .values({ kind: body.type, name: body.username })
          .returning('id')
          .executeTakeFirstOrThrow();
        await ensureDefaultRoles(trx, tenant.id);
        // the new account's first user, in the new tenant's scope
        return new TenantScope(trx, tenant.id)
          .insertInto('users', {
            username: body.username,
            mobile: body.mobile,
            password_hash: passwordHash,
            is_super: 1,
          })
          .returning(['id', 'tenant_id', 'username', 'is_super'])
          .executeTakeFirstOrThrow();
      })
      .catch((e: { code?: string }) => {
        if (e.code === '23505') throw badRequest('username', 'auth.usernameOrMobileTaken');
        throw e;
      });
    await audit(this.db, {
      tenantId: user.tenant_id,
      userId: user.id,
      ip: client.ip,
      action: 'register',
      result: 'ok',
      subject: body.username,
      details: { type: body.type },
    });
    return this.issue(user, AUTH_STATUS.notSubmitted, client);
  }

  /** Rotates the refresh token; presenting one already used revokes the whole session (reuse detection). */
  async refresh(refreshToken: string | undefined, client: ClientInfo): Promise<IssuedSession> {
    if (!refreshToken) throw new AppError(401, 'auth.loginExpired');
    const hashOld = sha256(refreshToken);
    return this.db
      .transaction()
      .execute(async (trx) => {
        const row = await trx
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
          .where('r.token_hash', '=', hashOld)
          .forUpdate('r')
          .executeTakeFirst();
        if (!row || row.revoked_at || row.state !== 'active' || row.expires_at < new Date())
          throw new AppError(401, 'auth.loginExpired');
        if (row.used_at) {
          await trx
            .updateTable('sessions')
            .set({ revoked_at: new Date(), revoke_reason: 'refresh token reuse' })
            .where('id', '=', row.session_id)
            .execute();
          await audit(trx, {
            tenantId: row.tenant_id,
            userId: row.id,
            ip: client.ip,
            action: 'token.reuse',
            result: 'denied',
            resource: 'session',
            resourceId: row.session_id,
          });
          // The revocation must survive the error below: commit it first.
          return { reuse: true } as const;
        }
        await trx
          .updateTable('refresh_tokens')
          .set({ used_at: new Date() })
          .where('token_hash', '=', hashOld)
          .execute();
        await trx
          .updateTable('sessions')
          .set({ last_active_at: new Date() })
          .where('id', '=', row.session_id)
          .execute();
        const next = newOpaqueToken();
        await trx
          .insertInto('refresh_tokens')
          .values({
            token_hash: sha256(next),
            session_id: row.session_id,
            expires_at: new Date(Date.now() + this.config.REFRESH_TOKEN_TTL * 1000),
            used_at: null,
          })
          .execute();
        const token = await this.tokens.sign({ userId: row.id, tenantId: row.tenant_id, sessionId: row.session_id });
        return {
          refreshToken: next,
          userId: row.id,
          tenantId: row.tenant_id,
          result: {
            token,
            status: row.auth_status,
            username: row.username,
            is_super: row.is_super,
            expiresIn: this.tokens.ttlSeconds,
          },
        };
      })
      .then((r) => {
        if ('reuse' in r) throw new AppError(401, 'auth.loginExpired');
        return r;
      });
  }

  async endSession(user: AuthUser, client: ClientInfo): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ revoked_at: new Date(), revoke_reason: 'expired by user' })
      .where('id', '=', user.sessionId)
      .execute();
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: client.ip,
      action: 'session.expire',
      result: 'ok',
      resource: 'session',
      resourceId: user.sessionId,
    });
  }

  async logout(user: AuthUser, client: ClientInfo): Promise<void> {
    await endSessions(this.db, user.id, 'logout');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: client.ip,
      action: 'logout',
      result: 'ok',
      details: { device: deviceSummary(client.userAgent) },
    });
  }
}
