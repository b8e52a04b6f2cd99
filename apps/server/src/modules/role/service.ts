import {
  ADMIN_ROLE,
  ALL_PERMISSIONS,
  PERMISSION_CATALOGUE,
  type DataScope,
  type Paged,
  type PermissionSectionView,
  type RoleCopyBody,
  type RoleCreateBody,
  type RoleDeleteBody,
  type RoleListQuery,
  type RoleMember,
  type RoleMemberQuery,
  type RoleUpdateBody,
  type RoleView,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import { ensureDefaultRoles } from './defaults.ts';
import { checkRoleScopeGiven, checkScopeGiven, checkWithinReach, isWider, standingsOf } from './grant-scope.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import { RoleRepository, type MemberRow, type RoleRow } from './repository.ts';

const AUDIENCE = new Map(PERMISSION_CATALOGUE.flatMap((s) => s.permissions.map((e) => [e.code, e.audience] as const)));

/** Who may change any role of the tenant, also their own, and holds every permission the tenant can have. */
export const isPrivileged = (user: AuthUser): boolean =>
  user.admin || (user.tenantKind !== 'platform' && user.isSuper === 1);

/** The codes a caller holds and may therefore grant. */
const heldBy = (user: AuthUser): Set<string> => new Set(user.admin ? ALL_PERMISSIONS : user.permissions);

/**
 * For the screens that give users roles (sub-accounts, staff users): giving a role grants what it holds, so the
 * caller must hold all of it (403 naming the first code it lacks), its data scope must be no wider than the
 * caller's (403), and only the platform Admin gives the Admin role. Roles the user already has (`current`) are
 * kept whatever they hold. Roles of another tenant are simply missing (400 on `roleIds`). Answers the ids without
 * repeats and the data scopes of those roles (what the user will see follows from them).
 */
export async function checkCanGiveRoles(
  user: AuthUser,
  roleIds: number[],
  current: number[] = [],
): Promise<{ ids: number[]; scopes: DataScope[] }> {
  const ids = [...new Set(roleIds)];
  if (!ids.length) return { ids, scopes: [] };
  const rows = await new RoleRepository(user.scope.db).findForGiving(user.tenantId, ids);
  if (rows.length !== ids.length) throw badRequest('roleIds', 'user.roleMissing');
  const answer = { ids, scopes: rows.map((r) => r.data_scope) };
  for (const r of rows) if (!current.includes(r.id)) checkRoleScopeGiven(user, r, 'roleIds');
  if (isPrivileged(user)) return answer;
  const held = heldBy(user);
  for (const r of rows) {
    if (current.includes(r.id)) continue;
    const missing =
      user.tenantKind === 'platform' && r.code === ADMIN_ROLE ? ADMIN_ROLE : r.permissions.find((p) => !held.has(p));
    if (missing) throw new AppError(403, 'user.permissionNotHeld', { permission: missing }, { field: 'roleIds' });
  }
  return answer;
}

/** Tells the consoles of these users that their roles changed: they read their permissions and menu again. */
export function tellPermissionsChanged(events: LiveEvents, tenantId: number, userIds: number[]): void {
  if (userIds.length) events.publish(tenantId, { type: 'permissions', data: { userIds: [...new Set(userIds)] } });
}

/** A user as the members panel shows them. */
const memberView = (r: MemberRow): RoleMember => ({
  id: r.id,
  username: r.username,
  nickname: r.nickname,
  state: r.state,
  main: r.is_super === 1,
});

/**
 * Roles of the caller's tenant (issue 12). Every query goes through the caller's tenant scope: another tenant's
 * role or user is simply not found. What a role holds is read from the database on every request
 * (`loadAuthUser`), so a change counts from its members' next call; their consoles are told at once.
 */
export class RoleService {
  private repo: RoleRepository;

  constructor(
    private db: Db,
    private events: LiveEvents,
  ) {
    this.repo = new RoleRepository(db);
  }

  private isLocked(user: AuthUser, code: string): boolean {
    return user.tenantKind === 'platform' && code === ADMIN_ROLE;
  }

  private view(user: AuthUser, r: RoleRow): RoleView {
    const locked = this.isLocked(user, r.code);
    return {
      id: r.id,
      code: r.code,
      name: r.name,
      description: r.description,
      dataScope: r.data_scope,
      builtin: r.builtin || locked,
      locked,
      permissions: locked ? [...ALL_PERMISSIONS] : r.permissions,
      memberCount: Number(r.member_count),
      createdAt: r.created_at.toISOString(),
      updatedAt: r.updated_at.toISOString(),
    };
  }

  private async row(user: AuthUser, id: number): Promise<RoleRow> {
    const row = await this.repo.findRole(user.tenantId, id);
    if (!row) throw notFound('role');
    return row;
  }

  async list(user: AuthUser, q: RoleListQuery): Promise<Paged<RoleView>> {
    if (user.tenantKind !== 'platform') await ensureDefaultRoles(this.db, user.tenantId);
    const { rows, total } = await this.repo.listPage(user.tenantId, q.keyword, q);
    return { list: rows.map((r) => this.view(user, r)), total };
  }

  async detail(user: AuthUser, id: number): Promise<RoleView> {
    return this.view(user, await this.row(user, id));
  }

  /** The catalogue as this caller sees it: customers the tenant audience only, each code marked when held. */
  catalogue(user: AuthUser): PermissionSectionView[] {
    const held = heldBy(user);
    const staff = user.tenantKind === 'platform';
    return PERMISSION_CATALOGUE.map((s) => ({
      key: s.key,
      name: s.name,
      permissions: s.permissions
        .filter((e) => staff || e.audience === 'tenant')
        .map((e) => ({ code: e.code, name: e.name, audience: e.audience, held: held.has(e.code) })),
    })).filter((s) => s.permissions.length > 0);
  }

  /**
   * The codes of a role as asked, checked: known, meant for this kind of tenant, and — for those `added` — held
   * by the caller (nobody grants what they do not have).
   */
  private checkPermissions(user: AuthUser, permissions: string[], before: string[] = []): string[] {
    const codes = [...new Set(permissions)];
    const held = heldBy(user);
    const had = new Set(before);
    for (const code of codes) {
      const audience = AUDIENCE.get(code as never);
      if (!audience) throw badRequest('permissions', 'role.permissionUnknown', { permission: code });
      if (audience === 'platform' && user.tenantKind !== 'platform')
        throw badRequest('permissions', 'role.permissionPlatformOnly', { permission: code });
      if (!had.has(code) && !held.has(code))
        throw new AppError(403, 'role.permissionNotHeld', { permission: code }, { field: 'permissions' });
    }
    return codes;
  }

  /** A role the caller holds is theirs to keep as it is, unless they are the Admin or the main account. */
  private async checkNotOwn(user: AuthUser, roleId: number): Promise<void> {
    if (isPrivileged(user)) return;
    if (await this.repo.holdsRole(user.tenantId, user.id, roleId)) throw new AppError(403, 'role.ownRole');
  }

  /** Giving a role to users grants what it holds: the caller must hold all of it. */
  private checkCanGive(user: AuthUser, role: RoleRow): void {
    if (this.isLocked(user, role.code)) {
      if (!user.admin) throw new AppError(403, 'role.permissionNotHeld', { permission: ADMIN_ROLE });
      return;
    }
    const held = heldBy(user);
    const missing = role.permissions.find((p) => !held.has(p));
    if (missing) throw new AppError(403, 'role.permissionNotHeld', { permission: missing });
  }

  private static codeTaken(e: unknown): never {
    if ((e as { code?: string }).code === '23505') throw badRequest('code', 'role.codeTaken');
    throw e;
  }

  private async checkCodeFree(user: AuthUser, code: string, exceptId?: number): Promise<void> {
    if (await this.repo.codeTaken(user.tenantId, code, exceptId)) throw badRequest('code', 'role.codeTaken');
  }

  private members(user: AuthUser, roleId: number): Promise<number[]> {
    return this.repo.memberIds(user.tenantId, roleId);
  }

  /** Tells the consoles of these users to read their permissions and menu again. */
  private tell(tenantId: number, userIds: number[]): void {
    tellPermissionsChanged(this.events, tenantId, userIds);
  }

  async create(user: AuthUser, body: RoleCreateBody, ip: string): Promise<RoleView> {
    const permissions = this.checkPermissions(user, body.permissions);
    checkScopeGiven(user, body.dataScope);
    if (user.tenantKind === 'platform' && body.code === ADMIN_ROLE) throw badRequest('code', 'role.codeTaken');
    await this.checkCodeFree(user, body.code);
    const values = {
      code: body.code,
      name: body.name,
      description: body.description,
      data_scope: body.dataScope,
      permissions,
    };
    const id = await this.repo.insertRole(user.tenantId, values).catch(RoleService.codeTaken);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'role.create',
      resource: 'role',
      resourceId: id,
      result: 'ok',
      changes: changedFields({}, values),
    });
    return this.detail(user, id);
  }

  async update(user: AuthUser, body: RoleUpdateBody, ip: string): Promise<RoleView> {
    const before = await this.row(user, body.id);
    const locked = this.isLocked(user, before.code);
    // the Admin role: only an admin renames or describes it; its code and scope stay as they are for everyone
    if (locked && !user.admin) throw new AppError(403, 'role.adminRoleAdminOnly');
    await this.checkNotOwn(user, before.id);
    let permissions: string[];
    if (locked) {
      const asked = new Set(body.permissions);
      const same = asked.size === ALL_PERMISSIONS.length && ALL_PERMISSIONS.every((p) => asked.has(p));
      if (body.code !== before.code || body.dataScope !== before.data_scope)
        throw new AppError(403, 'role.adminCodeScopeLocked');
      if (body.permissions.length && !same) throw new AppError(403, 'role.adminLocked');
      permissions = before.permissions;
    } else {
      permissions = this.checkPermissions(user, body.permissions, before.permissions);
      // a role wider than the caller's own scope is not theirs to change, nor to make wider than their own
      checkRoleScopeGiven(user, before);
      checkScopeGiven(user, body.dataScope);
      await this.checkCodeFree(user, body.code, before.id);
      // what the role gives more reaches its members: each must be within the caller's scope
      const gives =
        isWider(body.dataScope, before.data_scope) || permissions.some((p) => !before.permissions.includes(p));
      if (gives && dataAccessOf(user).scope !== 'all')
        checkWithinReach(
          user,
          await standingsOf(user.scope, await this.members(user, before.id)),
          'role.membersOutsideScope',
        );
    }
    const values = {
      code: body.code,
      name: body.name,
      description: body.description,
      data_scope: body.dataScope,
      permissions,
    };
    await this.repo.updateRole(user.tenantId, before.id, values).catch(RoleService.codeTaken);
    const changes = changedFields({ ...before }, values);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'role.update',
      resource: 'role',
      resourceId: before.id,
      result: 'ok',
      changes,
    });
    if (changes.permissions || changes.code || changes.data_scope)
      this.tell(user.tenantId, await this.members(user, before.id));
    return this.detail(user, before.id);
  }

  async copy(user: AuthUser, body: RoleCopyBody, ip: string): Promise<RoleView> {
    const source = await this.row(user, body.id);
    const permissions = this.isLocked(user, source.code) ? [...ALL_PERMISSIONS] : source.permissions;
    return this.create(
      user,
      {
        name: body.name,
        code: body.code,
        description: source.description,
        dataScope: source.data_scope,
        permissions,
      },
      ip,
    );
  }

  async remove(user: AuthUser, body: RoleDeleteBody, ip: string): Promise<void> {
    const role = await this.row(user, body.id);
    if (this.isLocked(user, role.code)) throw new AppError(403, 'role.adminLocked');
    await this.checkNotOwn(user, role.id);
    const count = Number(role.member_count);
    let target: RoleRow | undefined;
    if (count > 0) {
      if (body.reassignTo === undefined)
        throw new AppError(409, 'role.inUse', { count }, { data: { memberCount: count } });
      if (body.reassignTo === role.id) throw badRequest('reassignTo', 'role.reassignSame');
      target = await this.repo.findRole(user.tenantId, body.reassignTo);
      if (!target) throw notFound('role');
      this.checkCanGive(user, target);
      // the members move to the other role: given by the caller, within the caller's scope
      checkRoleScopeGiven(user, target, 'reassignTo');
      if (dataAccessOf(user).scope !== 'all')
        checkWithinReach(user, await standingsOf(user.scope, await this.members(user, role.id)));
    }
    const moved = await this.repo.deleteRole(user.tenantId, role.id, target?.id);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'role.delete',
      resource: 'role',
      resourceId: role.id,
      result: 'ok',
      changes: changedFields({ code: role.code, name: role.name, permissions: role.permissions }, {}),
      details: target ? { reassignTo: target.id, moved: moved.length } : undefined,
    });
    this.tell(user.tenantId, moved);
  }

  async memberList(user: AuthUser, q: RoleMemberQuery): Promise<Paged<RoleMember>> {
    await this.row(user, q.id);
    const { rows, total } = await this.repo.listMembers(user.tenantId, q.id, q.keyword, q);
    return { list: rows.map(memberView), total };
  }

  /** Users of the tenant not yet in the role, for the members panel's picker (at most 50, by name). */
  async candidates(user: AuthUser, id: number, keyword?: string): Promise<RoleMember[]> {
    await this.row(user, id);
    return (await this.repo.listCandidates(user.tenantId, id, keyword)).map(memberView);
  }

  private async tenantUsers(user: AuthUser, userIds: number[]): Promise<number[]> {
    const ids = [...new Set(userIds)];
    const found = await this.repo.findUserIds(user.tenantId, ids);
    if (found.length !== ids.length) throw badRequest('userIds', 'role.userMissing');
    return ids;
  }

  async addMembers(user: AuthUser, roleId: number, userIds: number[], ip: string): Promise<void> {
    const role = await this.row(user, roleId);
    const ids = await this.tenantUsers(user, userIds);
    if (!isPrivileged(user) && ids.includes(user.id)) throw new AppError(403, 'role.selfMember');
    await this.checkNotOwn(user, role.id);
    this.checkCanGive(user, role);
    checkRoleScopeGiven(user, role);
    if (dataAccessOf(user).scope !== 'all') checkWithinReach(user, await standingsOf(user.scope, ids));
    const added = await this.repo.addMembers(user.tenantId, role.id, ids);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'role.addMembers',
      resource: 'role',
      resourceId: role.id,
      result: 'ok',
      changes: { members: { before: [], after: added } },
    });
    this.tell(user.tenantId, added);
  }

  async removeMembers(user: AuthUser, roleId: number, userIds: number[], ip: string): Promise<void> {
    const role = await this.row(user, roleId);
    const ids = await this.tenantUsers(user, userIds);
    if (this.isLocked(user, role.code) && !user.admin) throw new AppError(403, 'role.adminRoleAdminOnly');
    await this.checkNotOwn(user, role.id);
    // the Admin cannot take the Admin role from itself: the platform would be left without anyone to give it back
    if (this.isLocked(user, role.code) && ids.includes(user.id)) throw new AppError(403, 'role.ownRole');
    const removed = await this.repo.removeMembers(user.tenantId, role.id, ids);
    await audit(this.db, {
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'role.removeMembers',
      resource: 'role',
      resourceId: role.id,
      result: 'ok',
      changes: { members: { before: removed, after: [] } },
    });
    this.tell(user.tenantId, removed);
  }
}
