import {
  type Paged,
  type RoleChoice,
  type RoleOption,
  type SubAccountCreateBody,
  type SubAccountListQuery,
  type SubAccountState,
  type SubAccountUpdateBody,
  type SubAccountView,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, fieldError, notFound } from '../../plugins/errors.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { hashPassword } from '../../lib/password.ts';
import { SubAccountRepository, type Manager } from './repository/index.ts';
import { endSessions } from '../../lib/sessions.ts';
import {
  checkCanGiveRoles,
  checkPlacement,
  checkWithinReach,
  ensureDefaultRoles,
  isPrivileged,
  standingsOf,
  tellPermissionsChanged,
  type Placement,
  type Standing,
} from '../role/index.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';

/** Whom the caller manages: the repository pins its statements to this. */
const managerOf = (user: AuthUser): Manager => ({ tenantId: user.tenantId, platform: user.tenantKind === 'platform' });

/**
 * The users a caller manages (issue 12): a customer's sub-accounts (is_super = 2; its main account is never
 * among them), or the platform's staff users (every user of the platform tenant). A main account or a user with
 * `system:user:edit` manages them, with these guards:
 * - no one changes their own roles or department, disables, deletes, resets or logs out themself here;
 * - no one grants a role holding a permission they do not hold, nor manages a user who holds one (so a
 *   password reset cannot become a way to act as a more powerful user);
 * - no one gives a data scope wider than their own, places a user in a department outside it, nor manages a
 *   user who sees more than they do (`role/grant-scope.ts`);
 * - the last active holder of the platform's `Admin` role is never disabled, deleted or stripped of it (409).
 * Every query goes through the caller's tenant scope, so another tenant's user id is simply not found (404).
 */
export class SubAccountService {
  constructor(
    private db: Db,
    private events?: LiveEvents,
  ) {
    this.repo = new SubAccountRepository(db);
  }

  private repo: SubAccountRepository;

  private view(r: {
    id: number;
    username: string;
    nickname: string;
    mobile: string | null;
    email: string;
    state: SubAccountState;
    created_at: Date;
    department_id: number | null;
    department_name: string | null;
    is_super: number;
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
      departmentId: r.department_id,
      departmentName: r.department_name,
      isSuper: r.is_super,
      createdAt: r.created_at.toISOString(),
      lastLoginAt: r.last_login_at ? new Date(r.last_login_at).toISOString() : null,
    };
  }

  private async one(user: AuthUser, id: number): Promise<SubAccountView> {
    const row = await this.repo.findView(managerOf(user), id);
    if (!row) throw notFound(user.tenantKind === 'platform' ? 'user' : 'sub-account');
    return this.view(row);
  }

  async list(user: AuthUser, q: SubAccountListQuery): Promise<Paged<SubAccountView>> {
    const { rows, total } = await this.repo.listPage(managerOf(user), q);
    return { list: rows.map((r) => this.view(r)), total };
  }

  private async ensureDefaultRoles(user: AuthUser): Promise<void> {
    if (user.tenantKind === 'platform') return;
    await ensureDefaultRoles(this.db, user.tenantId);
  }

  /**
   * The roles of the caller's tenant, with the data scope of each: the forms offer only those no wider than the
   * caller's own scope (the others are refused by `checkRoleScopeGiven`).
   */
  async roles(user: AuthUser): Promise<RoleChoice[]> {
    await this.ensureDefaultRoles(user);
    return this.repo.listRoles(user.tenantId);
  }

  /** The department a user is to be placed in (400 when it is not the tenant's), null for none. */
  private async checkDepartment(user: AuthUser, departmentId: number | null | undefined): Promise<Placement | null> {
    if (departmentId === null || departmentId === undefined) return null;
    const d = await this.repo.findDepartment(user.tenantId, departmentId);
    if (!d) throw badRequest('departmentId', 'http.notFound', { what: 'department' });
    return d;
  }

  /**
   * A caller whose scope is narrower than `all` leaves the user within it: placed where the caller may place
   * users, and — with the roles and department it will have — seeing no more than the caller (403 otherwise).
   */
  private checkAfter(user: AuthUser, after: Standing, placement: Placement | null, placementChanged: boolean): void {
    if (dataAccessOf(user).scope === 'all') return;
    if (placementChanged) checkPlacement(user, placement);
    checkWithinReach(user, [after]);
  }

  /** User names are unique across the platform (they log in with them), mobile numbers too. */
  private async checkUnique(username: string | null, mobile: string | null, exceptId?: number): Promise<void> {
    if (username && (await this.repo.usernameTaken(username, exceptId)))
      throw badRequest('username', 'auth.usernameTaken');
    if (mobile && (await this.repo.mobileTaken(mobile, exceptId))) throw badRequest('mobile', 'auth.mobileTaken');
  }

  private static uniqueViolation(e: unknown): never {
    if ((e as { code?: string }).code === '23505') throw badRequest('username', 'auth.usernameOrMobileTaken');
    throw e;
  }

  async create(user: AuthUser, body: SubAccountCreateBody, ip: string): Promise<SubAccountView> {
    await this.ensureDefaultRoles(user);
    const { ids: roleIds, scopes } = await checkCanGiveRoles(user, body.roleIds);
    const placement = await this.checkDepartment(user, body.departmentId);
    this.checkAfter(
      user,
      {
        id: 0,
        username: body.username,
        main: false,
        scopes,
        departmentId: placement?.id ?? null,
        departmentPath: placement?.path ?? null,
      },
      placement,
      true,
    );
    const mobile = body.mobile || null;
    await this.checkUnique(body.username, mobile);
    const passwordHash = await hashPassword(body.password);
    const id = await this.repo
      .insertSubAccount(
        user.tenantId,
        {
          username: body.username,
          nickname: body.nickname,
          mobile,
          email: body.email,
          passwordHash,
          departmentId: body.departmentId ?? null,
        },
        roleIds,
      )
      .catch(SubAccountService.uniqueViolation);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'user.create',
      result: 'ok',
      resource: 'user',
      resourceId: id,
      changes: changedFields(
        {},
        {
          username: body.username,
          nickname: body.nickname,
          mobile,
          email: body.email,
          departmentId: body.departmentId ?? null,
          roleIds,
          // said to be set, never shown
          password: '***',
        },
      ),
    });
    return this.one(user, id);
  }

  /**
   * The target as the caller may manage it: one of the managed users (404 otherwise), and one holding no
   * permission the caller lacks (403). `self` says whether the caller may act on its own account here.
   */
  private async target(user: AuthUser, id: number, self: 'allowed' | 'refused') {
    const row = await this.repo.findTarget(managerOf(user), id);
    if (!row) throw notFound(user.tenantKind === 'platform' ? 'user' : 'sub-account');
    if (id === user.id && self === 'refused') throw new AppError(409, 'user.selfState');
    if (!isPrivileged(user) && id !== user.id) {
      const missing = row.permissions.find((p) => !user.permissions.includes(p));
      if (missing) throw new AppError(403, 'user.permissionNotHeld', { permission: missing });
    }
    // nor one who sees more than the caller: acting as them (a new password) would widen the caller's scope
    const [standing] = await standingsOf(user.scope, [id]);
    if (id !== user.id && dataAccessOf(user).scope !== 'all') checkWithinReach(user, [standing]);
    return { ...row, standing };
  }

  /**
   * Refuses (409) when the user is an active holder of the platform's Admin role and no other active user holds
   * it. Runs inside the change's transaction with the Admin role row locked, so two changes cannot each leave
   * the other as the last one and both pass.
   */
  private async keepAnAdmin(user: AuthUser, tx: SubAccountRepository, id: number): Promise<void> {
    if (user.tenantKind !== 'platform') return;
    const admin = await tx.lockAdminRole(user.tenantId);
    if (admin === null) return;
    const holders = await tx.activeHolders(user.tenantId, admin);
    if (holders.some((h) => h === id) && !holders.some((h) => h !== id)) throw new AppError(409, 'user.lastAdmin');
  }

  private async adminRoleId(user: AuthUser): Promise<number | null> {
    if (user.tenantKind !== 'platform') return null;
    return this.repo.findAdminRoleId(user.tenantId);
  }

  async update(user: AuthUser, body: SubAccountUpdateBody, ip: string): Promise<SubAccountView> {
    const before = await this.target(user, body.id, 'allowed');
    const requested = [...new Set(body.roleIds)].sort((a, b) => a - b);
    const departmentId = body.departmentId === undefined ? before.department_id : body.departmentId;
    // one's own roles and department decide one's own rights and data scope: never changed by oneself
    if (body.id === user.id && (requested.join() !== before.role_ids.join() || departmentId !== before.department_id))
      throw new AppError(403, 'user.selfRoles');
    const { ids: roleIds, scopes } = await checkCanGiveRoles(user, requested, before.role_ids);
    const placement = await this.checkDepartment(user, departmentId);
    if (body.id !== user.id)
      this.checkAfter(
        user,
        { ...before.standing, scopes, departmentId, departmentPath: placement?.path ?? null },
        placement,
        departmentId !== before.department_id,
      );
    const mobile = body.mobile || null;
    await this.checkUnique(null, mobile, body.id);
    const adminRole = await this.adminRoleId(user);
    await this.repo
      .transaction(async (tx) => {
        if (adminRole !== null && before.role_ids.includes(adminRole) && !roleIds.includes(adminRole))
          await this.keepAnAdmin(user, tx, body.id);
        const changes = { nickname: body.nickname, mobile, email: body.email, department_id: departmentId };
        await tx.updateUser(user.tenantId, body.id, changes);
        await tx.replaceRoles(user.tenantId, body.id, roleIds);
      })
      .catch(SubAccountService.uniqueViolation);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'user.update',
      result: 'ok',
      resource: 'user',
      resourceId: body.id,
      changes: changedFields(
        {
          nickname: before.nickname,
          mobile: before.mobile,
          email: before.email,
          departmentId: before.department_id,
          roleIds: before.role_ids,
        },
        { nickname: body.nickname, mobile, email: body.email, departmentId, roleIds: requested },
      ),
    });
    // the user's console reloads its permissions and menu at once (the server already applies them)
    if (this.events && roleIds.join() !== before.role_ids.join())
      tellPermissionsChanged(this.events, user.tenantId, [body.id]);
    return this.one(user, body.id);
  }

  /** Disabling ends every session of the user at once; it can no longer log in. */
  async setState(user: AuthUser, id: number, state: SubAccountState, ip: string): Promise<SubAccountView> {
    const before = await this.target(user, id, 'refused');
    await this.repo.transaction(async (tx) => {
      if (state === 'disabled') await this.keepAnAdmin(user, tx, id);
      await tx.setState(user.tenantId, id, state);
    });
    if (state === 'disabled') await endSessions(this.db, id, 'disabled by an administrator');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: state === 'disabled' ? 'user.disable' : 'user.enable',
      result: 'ok',
      resource: 'user',
      resourceId: id,
      changes: changedFields({ state: before.state }, { state }),
    });
    return this.one(user, id);
  }

  /** A new password from an administrator; the user's sessions end so only the new one works. */
  async resetPassword(user: AuthUser, id: number, password: string, ip: string): Promise<void> {
    await this.target(user, id, 'refused');
    await this.repo.setPasswordHash(user.tenantId, id, await hashPassword(password));
    await endSessions(this.db, id, 'password reset by an administrator');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'user.resetPassword',
      result: 'ok',
      resource: 'user',
      resourceId: id,
      changes: { password: { before: '***', after: '***' } },
    });
  }

  /** Ends every session of the user (force logout); it signs in again with its password. */
  async logout(user: AuthUser, id: number, ip: string): Promise<number> {
    await this.target(user, id, 'refused');
    const open = await this.repo.countOpenSessions(user.tenantId, id);
    await endSessions(this.db, id, 'logged out by an administrator');
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'user.logout',
      result: 'ok',
      resource: 'user',
      resourceId: id,
      details: { sessions: open },
    });
    return open;
  }

  /** Files the user uploaded stay with the tenant: they pass to the caller that deletes it. */
  async remove(user: AuthUser, id: number, ip: string): Promise<void> {
    const before = await this.target(user, id, 'refused');
    const username = await this.repo
      .transaction(async (tx) => {
        await this.keepAnAdmin(user, tx, id);
        const name = await tx.deleteUser(user.tenantId, id, user.id);
        if (name === undefined) throw notFound('sub-account');
        return name;
      })
      .catch((e: unknown) => {
        // records of other sections that keep their author (work orders, identity submissions…)
        if ((e as { code?: string }).code === '23503')
          throw new AppError(400, 'user.subAccountOwnsRecords', null, {
            data: { fields: [fieldError('id', 'user.subAccountOwnsRecords')] },
          });
        throw e;
      });
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'user.delete',
      result: 'ok',
      resource: 'user',
      resourceId: id,
      changes: changedFields(
        { username, nickname: before.nickname, mobile: before.mobile, email: before.email, state: before.state },
        {},
      ),
    });
  }
}
