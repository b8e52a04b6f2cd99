import { randomInt, randomUUID } from 'node:crypto';
import {
  AUTH_STATUS,
  SMS_RESEND_SECONDS,
  type LoginBody,
  type LoginResult,
  type RegisterBody,
  type SmsSendBody,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
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
import { AuthRepository } from './repository/index.ts';

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
  ) {
    this.repo = new AuthRepository(db);
  }

  private repo: AuthRepository;

  private async issue(
    user: { id: number; tenant_id: number; username: string; is_super: number },
    status: number,
    client: ClientInfo,
  ): Promise<IssuedSession> {
    const sessionId = randomUUID();
    const refreshToken = newOpaqueToken();
    await this.repo.openSession({
      id: sessionId,
      tenantId: user.tenant_id,
      userId: user.id,
      ip: client.ip,
      userAgent: client.userAgent.slice(0, 300),
      refreshHash: sha256(refreshToken),
      refreshExpiresAt: new Date(Date.now() + this.config.REFRESH_TOKEN_TTL * 1000),
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
    const user = await this.repo.findForLogin(subject, body.username);
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
    const user = await this.repo.findForSignIn(userId);
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
      if (await this.repo.mobileTaken(body.mobile)) throw badRequest('mobile', 'auth.mobileTaken');
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
    await this.repo.insertSmsCode({
      mobile: body.mobile,
      purpose: body.purpose,
      codeHash: sha256(`${body.mobile}:${code}`),
      expiresAt: new Date(Date.now() + SMS_TTL_MS),
    });
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
    const row = await this.repo.takeSmsCode(mobile, purpose, SMS_MAX_ATTEMPTS);
    if (!row) throw badRequest('smsCode', 'auth.smsCodeExpired');
    if (row.code_hash !== sha256(`${mobile}:${code}`)) throw badRequest('smsCode', 'auth.smsCodeWrong');
    if (!(await this.repo.useSmsCode(row.id))) throw badRequest('smsCode', 'auth.smsCodeExpired');
  }

  async register(body: RegisterBody, client: ClientInfo): Promise<IssuedSession> {
    const clash = await this.repo.findClash(body.username, body.mobile);
    if (clash?.mobile === body.mobile) throw badRequest('mobile', 'auth.mobileTaken');
    if (clash) throw badRequest('username', 'auth.usernameTaken');
    await this.checkSmsCode(body.mobile, 'register', body.smsCode);
    const passwordHash = await hashPassword(body.password);
    const user = await this.repo
      .transaction(async (tx, trx) => {
        const tenantId = await tx.insertTenant(body.type, body.username);
        await ensureDefaultRoles(trx, tenantId);
        // the new account's first user, in the new tenant's scope
        return tx.insertMainUser(tenantId, { username: body.username, mobile: body.mobile, passwordHash });
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
    return this.repo
      .transaction((tx, trx) => this.rotate(tx, trx, hashOld, client))
      .then((r) => {
        if ('reuse' in r) throw new AppError(401, 'auth.loginExpired');
        return r;
      });
  }

  /** The refresh's transaction: the token checked with its row locked, then used and replaced by the next one. */
  private async rotate(
    tx: AuthRepository,
    trx: Db,
    hashOld: string,
    client: ClientInfo,
  ): Promise<IssuedSession | { reuse: true }> {
    const row = await tx.findRefreshForUpdate(hashOld);
    if (!row || row.revoked_at || row.state !== 'active' || row.expires_at < new Date())
      throw new AppError(401, 'auth.loginExpired');
    if (row.used_at) {
      await tx.revokeSession(row.session_id, 'refresh token reuse');
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
    const next = newOpaqueToken();
    const expiresAt = new Date(Date.now() + this.config.REFRESH_TOKEN_TTL * 1000);
    await tx.rotateRefresh(row.session_id, hashOld, sha256(next), expiresAt);
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
  }

  async endSession(user: AuthUser, client: ClientInfo): Promise<void> {
    await this.repo.revokeSession(user.sessionId, 'expired by user');
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
