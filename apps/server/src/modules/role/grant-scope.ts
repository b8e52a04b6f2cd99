import type { DataScope } from '@cpc/contracts';
import { keyed, type Keyed } from '@cpc/contracts/messages';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError } from '../../plugins/errors.ts';
import { dataAccessOf, widestScope, type DataAccess } from '../../lib/data-scope.ts';
import { RoleRepository } from './repository.ts';

/**
 * Giving data scope: nobody gives more than they see. Whoever creates, edits or gives a role, or places a user in
 * a department, does it within their own data scope (`dataAccessOf`: the Admin and a main account `all`):
 * - a role's scope is at most the caller's (own < department < all);
 * - `department`: users are placed in the caller's department or one below it (never in none), and the users
 *   whose roles or department change are inside that subtree with a scope no wider than `department`;
 * - `own`: users are placed in the caller's department or in none, and the users changed have scope `own` and
 *   sit in the caller's department or in none — an own-scoped caller never makes anyone who sees more than
 *   their own devices.
 * A user the caller may manage is one "within reach": what they see is part of what the caller sees, so acting
 * as them (a password reset) gains nothing either.
 */

const RANK: Record<DataScope, number> = { own: 0, department: 1, all: 2 };

/** The scope's name, said in the caller's language. */
const SCOPE_NAME: Record<DataScope, Keyed> = {
  all: keyed('role.scopeName.all'),
  department: keyed('role.scopeName.department'),
  own: keyed('role.scopeName.own'),
};

export const isWider = (scope: DataScope, than: DataScope): boolean => RANK[scope] > RANK[than];

/** What decides a user's data scope: its roles' scopes, whether it is a main account or Admin, its department. */
export interface Standing {
  id: number;
  username: string;
  /** A customer's main account or a holder of the platform's Admin role: `all` whatever its roles say. */
  main: boolean;
  scopes: DataScope[];
  departmentId: number | null;
  departmentPath: string | null;
}

/** The scope a user with this standing has (the same rule as `dataAccessOf`). */
export function scopeOf(s: Standing): DataScope {
  if (s.main) return 'all';
  const scope = widestScope(s.scopes);
  return scope === 'department' && !s.departmentPath ? 'own' : scope;
}

/** Whether all a user with this standing sees is also seen by the caller. */
export function withinReach(me: DataAccess, s: Standing): boolean {
  const scope = scopeOf(s);
  switch (me.scope) {
    case 'all':
      return true;
    case 'department':
      return scope !== 'all' && !!s.departmentPath && s.departmentPath.startsWith(me.departmentPath ?? '\0');
    case 'own':
      return scope === 'own' && (s.departmentId === null || s.departmentId === me.departmentId);
  }
}

/** The standing of these users of the caller's tenant (missing ones are left out). */
export async function standingsOf(scope: TenantScope, userIds: number[]): Promise<Standing[]> {
  if (!userIds.length) return [];
  const rows = await new RoleRepository(scope.db).standings(scope.tenantId, userIds);
  return rows.map((r) => ({
    id: r.id,
    username: r.username,
    main: r.kind === 'platform' ? r.holds_admin : r.is_super === 1,
    scopes: r.scopes,
    departmentId: r.department_id,
    departmentPath: r.path ?? null,
  }));
}

/** 403 unless `scope` is at most the caller's own. */
export function checkScopeGiven(user: AuthUser, scope: DataScope, field = 'dataScope'): void {
  const own = dataAccessOf(user).scope;
  if (isWider(scope, own))
    throw new AppError(403, 'role.scopeWider', { scope: SCOPE_NAME[scope], own: SCOPE_NAME[own] }, { field });
}

/** 403 unless a role of this scope is the caller's to give. */
export function checkRoleScopeGiven(user: AuthUser, role: { name: string; data_scope: DataScope }, field?: string) {
  const own = dataAccessOf(user).scope;
  if (isWider(role.data_scope, own))
    throw new AppError(
      403,
      'role.roleScopeWider',
      { role: role.name, scope: SCOPE_NAME[role.data_scope], own: SCOPE_NAME[own] },
      field ? { field } : undefined,
    );
}

/** 403 unless each of these users is within the caller's reach (`key` says what the refusal is about). */
export function checkWithinReach(
  user: AuthUser,
  standings: Standing[],
  key: 'user.outsideScope' | 'role.membersOutsideScope' = 'user.outsideScope',
): void {
  const me = dataAccessOf(user);
  const out = standings.find((s) => !withinReach(me, s));
  if (out) throw new AppError(403, key, { user: out.username });
}

/** A department of the caller's tenant, as placing a user in it needs it (null: none). */
export interface Placement {
  id: number;
  name: string;
  path: string;
}

/** 403 unless the caller may put a user in this department (see the rules above). */
export function checkPlacement(user: AuthUser, department: Placement | null, field = 'departmentId'): void {
  const me = dataAccessOf(user);
  if (me.scope === 'all') return;
  if (!department) {
    if (me.scope === 'own') return;
    throw new AppError(403, 'user.departmentRequiredInScope', null, { field });
  }
  const inside =
    me.scope === 'department'
      ? department.path.startsWith(me.departmentPath ?? '\0')
      : department.id === me.departmentId;
  if (!inside) throw new AppError(403, 'user.departmentOutsideScope', { department: department.name }, { field });
}
