import { sql, type RawBuilder } from 'kysely';
import type { DataScope } from '@cpc/contracts';
import type { AuthUser } from './auth-user.ts';
import type { TenantScope } from '../db/tenant-scope.ts';
import type { Db } from '../db/database.ts';

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
 * `.where(...)` of a Kysely query or inside a `sql` template: `alias` names the table (or its alias) in the query,
 * `owner` the column of the user the row belongs to (`owner_id` of devices and orders, `user_id` of work orders).
 * `department`: the row's department is the user's or one below it (a prefix match on `departments.path`,
 * served by its text_pattern_ops index); `own`: the user bound (created) it.
 */
export function inDataScope(access: DataAccess, alias = 'devices', owner = 'owner_id'): RawBuilder<boolean> {
  const department = sql.ref(`${alias}.department_id`);
  const ownerRef = sql.ref(`${alias}.${owner}`);
  switch (access.scope) {
    case 'all':
      return sql<boolean>`true`;
    case 'department':
      return sql<boolean>`${department} in (select dd.id from departments dd where dd.tenant_id = ${access.tenantId} and dd.path like ${`${escapeLike(access.departmentPath ?? '')}%`})`;
    case 'own':
      return sql<boolean>`${ownerRef} = ${access.userId}`;
  }
}

/**
 * The same rule from the other side, for a statement about one row (a device, a SIM's device): the active users
 * of `tenantId` who hold `permission` (the main account always) and whose data scope reaches a row filed under
 * `departmentId` and owned by `ownerId` (SQL expressions of the statement; a null reaches only `all`). Each
 * user's scope is the widest of its roles' and a `department` scope without a department is `own`, exactly as
 * `dataAccessOf` reads it. A select of `id` and `tenant_id`, for `join lateral (…) u on true`.
 */
export function readersOf(o: {
  tenantId: RawBuilder<unknown>;
  departmentId: RawBuilder<unknown>;
  ownerId: RawBuilder<unknown>;
  permission: string;
}): RawBuilder<{ id: number; tenant_id: number }> {
  return sql<{ id: number; tenant_id: number }>`
    select r.id, r.tenant_id from (
      select u.id, u.tenant_id, u.is_super, u.department_id,
        coalesce(bool_or(ro.data_scope = 'all'), false) as s_all,
        coalesce(bool_or(ro.data_scope = 'department'), false) as s_dept,
        coalesce(bool_or(${o.permission} = any(ro.permissions)), false) as can_view
      from users u left join user_roles ur on ur.user_id = u.id left join roles ro on ro.id = ur.role_id
      where u.state = 'active' and u.tenant_id = ${o.tenantId}
      group by u.id
    ) r
    where (r.is_super = 1 or r.can_view) and (r.is_super = 1 or r.s_all
      or (r.s_dept and r.department_id is not null and ${o.departmentId} in (
        select dd.id from departments dd, departments me
        where me.id = r.department_id and dd.tenant_id = r.tenant_id and dd.path like me.path || '%'))
      or (not (r.s_dept and r.department_id is not null) and ${o.ownerId} = r.id))`;
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

/**
 * What a live-event stream of a reader narrower than its account holds of its reach, to judge each event in
 * memory by the rule of `inDataScope`: the devices in its scope, their SIMs, and the departments of its subtree
 * (for rows filed like devices: orders, work orders). Read again whenever the account's devices, SIMs,
 * departments, users or roles change (the `scope` signal of plugins/live-events.ts).
 */
export interface ScopeView {
  access: DataAccess;
  devices: Set<number>;
  iccids: Set<string>;
  departments: Set<number>;
}

/** The reader's view, or null for the `all` scope (every event of the account is in it). */
export async function loadScopeView(db: Db, access: DataAccess): Promise<ScopeView | null> {
  if (access.scope === 'all') return null;
  const [devices, sims, departments] = await Promise.all([
    db
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.tenant_id', '=', access.tenantId)
      .where(inDataScope(access))
      .execute(),
    db
      .selectFrom('sims')
      .innerJoin('devices', 'devices.id', 'sims.device_id')
      .select('sims.iccid')
      .where('sims.tenant_id', '=', access.tenantId)
      .where('devices.tenant_id', '=', access.tenantId)
      .where(inDataScope(access))
      .execute(),
    access.scope === 'department'
      ? db
          .selectFrom('departments')
          .select('departments.id')
          .where('departments.tenant_id', '=', access.tenantId)
          .where('departments.path', 'like', `${escapeLike(access.departmentPath ?? '')}%`)
          .execute()
      : Promise.resolve([]),
  ]);
  return {
    access,
    devices: new Set(devices.map((d) => Number(d.id))),
    iccids: new Set(sims.map((s) => s.iccid)),
    departments: new Set(departments.map((d) => Number(d.id))),
  };
}

/** Whether a row filed under `departmentId` and belonging to `ownerId` is in the view (`inDataScope`, in memory). */
export function filedInView(view: ScopeView, departmentId: number | null, ownerId: number | null): boolean {
  switch (view.access.scope) {
    case 'all':
      return true;
    case 'department':
      return departmentId !== null && view.departments.has(departmentId);
    case 'own':
      return ownerId === view.access.userId;
  }
}

/**
 * What a live event is about, beside its data, for readers narrower than their account: the devices it concerns,
 * or the department and owner of the row it is about (an order, a work order). Travels with the event between
 * nodes; never sent to a console.
 */
export interface Reach {
  devices?: readonly number[];
  filed?: { departmentId: number | null; ownerId: number | null };
}

/** Whether an event's reach is in the view: one of its devices is, or the row it is filed as. */
export const reachInView = (view: ScopeView, reach: Reach | undefined): boolean =>
  !!reach &&
  ((reach.devices?.some((id) => view.devices.has(id)) ?? false) ||
    (reach.filed !== undefined && filedInView(view, reach.filed.departmentId, reach.filed.ownerId)));
