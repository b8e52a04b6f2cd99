import { AUTH_STATUS, type ProfileUpdateBody, type ProfileView, type SessionView, type UserInfo } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { Config } from '../../config.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { hashPassword, verifyPassword } from '../../lib/password.ts';
import { hit, unhit } from '../../lib/counters.ts';

import { endSessions, type ClientInfo } from '../../lib/sessions.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import { UserRepository, type Me } from './repository/index.ts';

/** Avatar links are signed for a day: userInfo is fetched at every page load, so they are renewed long before. */
const AVATAR_URL_TTL = 24 * 3600;
/** 138****0000: the personal centre shows the number without handing it out whole. */
export const maskMobile = (mobile: string | null): string | null =>
  mobile
    ? mobile.length >= 7
      ? `${mobile.slice(0, 3)}${'*'.repeat(mobile.length - 7)}${mobile.slice(-4)}`
      : '*'.repeat(mobile.length)
    : null;

/** The signed-in user's account, as the repository pins its statements. */
const meOf = (user: AuthUser): Me => ({ tenantId: user.tenantId, userId: user.id });

export class UserService {
  constructor(
    private db: Db,
    private config: Config,
    private storage: ObjectStorage,
  ) {
    this.repo = new UserRepository(db);
  }

  private repo: UserRepository;

  /** A link the browser can show the avatar from ('' when the user has none). */
  avatarUrl(key: string): string {
    return key ? this.storage.signedUrl(key, AVATAR_URL_TTL) : '';
  }

  async userInfo(user: AuthUser): Promise<UserInfo> {
    const row = await this.repo.findInfo(meOf(user));
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
      dataScope: dataAccessOf(user).scope,
      departmentId: user.departmentId,
    };
  }

  /**
   * Checks the signed-in user's own password (the lock screen, a password change). Wrong answers are counted
   * per session: at LOGIN_MAX_FAILS_ACCOUNT within the window the session ends, so a stolen session cannot be
   * used to guess the password; the user signs in again, behind the login's captcha and throttling, and the new
   * session has its own count. As at the login, the try is counted before the password is checked, in the
   * statement that checks the count, and a right password takes its count back: however many tries come at
   * once, on however many nodes, at most the limit of them are checked.
   */
  async checkPassword(
    user: AuthUser,
    password: string,
    client: ClientInfo,
    field: 'password' | 'oldPassword' = 'password',
  ): Promise<void> {
    const limit = this.config.LOGIN_MAX_FAILS_ACCOUNT;
    const signOut = async () => {
      await this.repo.revokeSession(user.sessionId, 'too many wrong passwords');
      return new AppError(401, 'auth.lockSignedOut');
    };
    const attempt = await hit(this.db, this.config.LOGIN_FAIL_WINDOW * 1000, [
      { bucket: 'password.session', key: user.sessionId },
    ]);
    if (attempt[0].hits > limit) throw await signOut();
    if (await verifyPassword(await this.repo.findPasswordHash(meOf(user)), password)) {
      await unhit(this.db, attempt);
      return;
    }
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: client.ip,
      action: 'password.check',
      result: 'fail',
      subject: user.username.toLowerCase(),
    });
    const left = limit - attempt[0].hits;
    if (left <= 0) throw await signOut();
    throw new AppError(400, field === 'password' ? 'auth.passwordIncorrect' : 'auth.oldPasswordWrong', null, {
      field,
      data: { attemptsLeft: left },
    });
  }

  async changePassword(user: AuthUser, oldPassword: string, password: string, client: ClientInfo): Promise<void> {
    await this.checkPassword(user, oldPassword, client, 'oldPassword');
    await this.repo.setPasswordHash(meOf(user), await hashPassword(password));
    await endSessions(this.db, user.id, 'password changed', user.sessionId);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: client.ip,
      action: 'password.change',
      result: 'ok',
      resource: 'user',
      resourceId: user.id,
      // the field is named so the log shows it changed; audit masks its values (never a hash or a password)
      changes: changedFields({ password: 'old' }, { password: 'new' }),
    });
  }

  async profile(user: AuthUser): Promise<ProfileView> {
    const row = await this.repo.findProfile(meOf(user));
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
    // the values before come back from the update itself (its FROM reads the row as it was): one statement
    const before = await this.repo.updateProfile(meOf(user), { nickname: body.nickname, email: body.email });
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: client.ip,
      action: 'profile.update',
      result: 'ok',
      resource: 'user',
      resourceId: user.id,
      changes: changedFields(before, { nickname: body.nickname, email: body.email }),
    });
    return this.profile(user);
  }

  /** The avatar must be an image this user uploaded (the upload already checked its bytes: jpg/png ≤ 10 MB). */
  async setAvatar(user: AuthUser, key: string, client: ClientInfo): Promise<ProfileView> {
    if (!(await this.repo.ownsObject(meOf(user), key))) throw badRequest('avatarKey', 'upload.imageFirst');
    const before = await this.repo.setAvatar(meOf(user), key);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: client.ip,
      action: 'profile.avatar',
      result: 'ok',
      resource: 'user',
      resourceId: user.id,
      changes: changedFields(before, { avatar: key }),
    });
    return this.profile(user);
  }

  /** Sessions that can still be used: not ended and holding a refresh token that is neither used nor expired. */
  async sessions(user: AuthUser): Promise<SessionView[]> {
    const now = new Date();
    const rows = await this.repo.listLiveSessions(meOf(user), user.sessionId, now);
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
    if (sessionId === user.sessionId) throw badRequest('id', 'user.currentSession');
    if (!(await this.repo.revokeOwnSession(meOf(user), sessionId, 'signed out from the personal centre')))
      throw notFound('session');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip: client.ip,
      action: 'session.revoke',
      result: 'ok',
      resource: 'session',
      resourceId: sessionId,
    });
  }
}
