import { sql, type RawBuilder } from 'kysely';
import type { DataScope } from '@cpc/contracts';
import type { AuthUser } from '../plugins/auth.ts';
import type { TenantScope } from '../db/tenant-scope.ts';

/**
 * Data scope (issue 12): which of its tenant's devices (and, when they exist, work orders and orders) a user
 * reaches. Applied in the SQL of every query of those rows, so a row outside the scope is not found (404),
 * exactly like another tenant's.
 *
 * The caller's scope is the widest of its roles' `data_scope`:
 * - the platform's `Admin` and a customer's main account (is_super = 1 outside the platform): `all`;
 * - a user whose roles carry scopes: the widest of them (`all` > `department` > `own`);
 * - a user with no role at all: `own` (only what it bound itself; the narrowest is the safe default).
 * A `department` scope of a user in no department counts as `own`: there is no subtree to see.
 */
export interface DataAccess {
  scope: DataScope;
  tenantId: number;
  userId: number;
  /** The user's department and its path ("1/5/9/"), null for none. */
  departmentId: number | null;
  departmentPath: string | null;
}

const RANK: Record<DataScope, number> = { own: 0, department: 1, all: 2 };

/** The widest of several scopes (`own` for none). */
export function widestScope(scopes: readonly DataScope[]): DataScope {
  return scopes.reduce<DataScope>((w, s) => (RANK[s] > RANK[w] ? s : w), 'own');
}

/** The caller's data scope, from what `loadAuthUser` read with the caller (no query of its own). */
export function dataAccessOf(user: AuthUser): DataAccess {
  const main = user.tenantKind !== 'platform' && user.isSuper === 1;
  let scope: DataScope = user.admin || main ? 'all' : widestScope(user.dataScopes);
  if (scope === 'department' && !user.departmentPath) scope = 'own';
  return {
    tenantId: user.tenantId,
    userId: user.id,
    scope,
    departmentId: user.departmentId,
    departmentPath: user.departmentPath,
  };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/**
 * The condition a row of a table with `department_id` and `owner_id` columns must meet to be in the scope, for
 * `.where(...)` of a Kysely query or inside a `sql` template: `alias` names the table (or its alias) in the query.
 * `department`: the row's department is the user's or one below it (a prefix match on `departments.path`,
 * served by its text_pattern_ops index); `own`: the user bound (created) it.
 */
export function inDataScope(access: DataAccess, alias = 'devices'): RawBuilder<boolean> {
  const department = sql.ref(`${alias}.department_id`);
  const owner = sql.ref(`${alias}.owner_id`);
  switch (access.scope) {
    case 'all':
      return sql<boolean>`true`;
    case 'department':
      return sql<boolean>`${department} in (select dd.id from departments dd where dd.tenant_id = ${access.tenantId} and dd.path like ${`${escapeLike(access.departmentPath ?? '')}%`})`;
    case 'own':
      return sql<boolean>`${owner} = ${access.userId}`;
  }
}

/**
 * The devices condition of a scope narrower than the account, or none for `all` (a query can then skip the
 * condition, and a batch or a profile is the account's whatever it holds).
 */
export const narrowedDevices = (access: DataAccess): RawBuilder<boolean> | undefined =>
  access.scope === 'all' ? undefined : inDataScope(access);

/** Who acts, for a service whose reads and targets are the caller's devices: the account, and its data scope. */
export interface ScopedCaller {
  id: number;
  tenantId: number;
  scope: TenantScope;
  ip: string;
  /** The devices condition when the scope is narrower than the account (`narrowedDevices`). */
  devices?: RawBuilder<boolean>;
}

export const scopedCaller = (u: AuthUser, ip: string): ScopedCaller => ({
  id: u.id,
  tenantId: u.tenantId,
  scope: u.scope,
  ip,
  devices: narrowedDevices(dataAccessOf(u)),
});

/** The department a new row (a device the user binds…) is filed under, and its owner. */
export const ownership = (access: DataAccess) => ({ department_id: access.departmentId, owner_id: access.userId });

/**
 * For rows that point at a device (tasks, status log, telemetry…): `column` holds a device id inside the scope.
 * `true` for the `all` scope, so the common case adds nothing to the plan.
 */
export function deviceInScope(access: DataAccess, column: string): RawBuilder<boolean> {
  if (access.scope === 'all') return sql<boolean>`true`;
  return sql<boolean>`${sql.ref(column)} in (select dv.id from devices dv where dv.tenant_id = ${access.tenantId} and ${inDataScope(access, 'dv')})`;
}
