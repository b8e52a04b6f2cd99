import { sql, type SelectQueryBuilder } from 'kysely';
import type { DeviceStatus } from '@cpc/contracts/device';
import type { TenantScope } from '../../../db/tenant-scope.ts';
import { inDataScope, type DataAccess } from '../../../lib/data-scope.ts';

/**
 * The pieces the fleet's statements are built from (the list, one device, the map): the caller's devices, their
 * filters and orders. Used by DeviceRepository only.
 */

export const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/**
 * ORDER BY of each sort key. Empty values go last, except that a device never seen counts as the longest silent
 * (first when ascending by last seen); both directions of sn, lastSeen and the default order follow an index.
 */
export const ORDER_SQL = {
  sn: (dir: 'asc' | 'desc') => (dir === 'asc' ? sql`devices.sn asc` : sql`devices.sn desc`),
  lastSeen: (dir: 'asc' | 'desc') =>
    dir === 'asc'
      ? sql`devices.last_seen_at asc nulls first, devices.id asc`
      : sql`devices.last_seen_at desc nulls last, devices.id desc`,
  name: (dir: 'asc' | 'desc') =>
    sql`lower(nullif(devices.name, '')) ${sql.raw(dir)} nulls last, devices.id ${sql.raw(dir)}`,
  battery: (dir: 'asc' | 'desc') => sql`devices.battery ${sql.raw(dir)} nulls last, devices.id ${sql.raw(dir)}`,
  signal: (dir: 'asc' | 'desc') => sql`devices.signal ${sql.raw(dir)} nulls last, devices.id ${sql.raw(dir)}`,
  // the SIM's data left as its triggers keep it on the device (migration 0037); `listPage` reads it in two parts
  dataLeft: (dir: 'asc' | 'desc') => sql`devices.sim_left_mb ${sql.raw(dir)} nulls last, devices.id ${sql.raw(dir)}`,
};

/** A group and every group below it, as a subquery of ids (empty for another tenant's group). */
const subtreeIds = (tenantId: number, groupId: number) => sql<number>`(
  with recursive sub as (
    select id from device_groups where id = ${groupId} and tenant_id = ${tenantId}
    union all
    select c.id from device_groups c join sub on c.parent_id = sub.id where c.tenant_id = ${tenantId}
  ) select id from sub)`;

/** The status and group filters the list and the map share. */
export function fleetFilters<QB extends SelectQueryBuilder<any, any, any>>(
  qb: QB,
  tenantId: number,
  f: { status?: DeviceStatus; groupId?: number },
): QB {
  let q = qb;
  if (f.status) q = q.where('devices.status', '=', f.status) as QB;
  if (f.groupId === 0) q = q.where('devices.group_id', 'is', null) as QB;
  else if (f.groupId) q = q.where(sql<boolean>`devices.group_id in ${subtreeIds(tenantId, f.groupId)}`) as QB;
  return q;
}

/** The tenant's devices the caller's data scope reaches: any other is not found. */
export const scopedDevices = (scope: TenantScope, access: DataAccess) =>
  scope.selectFrom('devices').where(inDataScope(access));

/** A department and every department below it, as a subquery of ids (empty for another tenant's). */
export const departmentSubtree = (tenantId: number, departmentId: number) => sql<number>`(
  select d.id from departments d, departments top
  where top.id = ${departmentId} and top.tenant_id = ${tenantId}
    and d.tenant_id = ${tenantId} and d.path like top.path || '%')`;

/** Devices joined with their model, group and SIM: the columns of the fleet list. */
export function listQuery(scope: TenantScope, access: DataAccess) {
  return scopedDevices(scope, access)
    .innerJoin('device_models as m', 'm.id', 'devices.model_id')
    .leftJoin('device_groups as g', 'g.id', 'devices.group_id')
    .leftJoin('departments as dep', 'dep.id', 'devices.department_id')
    .leftJoin('sims as s', 's.iccid', 'devices.iccid')
    .select([
      'devices.id',
      'devices.sn',
      'devices.name',
      'devices.remark',
      'devices.model_id',
      'm.name as model_name',
      'm.kind as model_kind',
      'devices.group_id',
      'g.name as group_name',
      'devices.department_id',
      'dep.name as department_name',
      'devices.status',
      'devices.paper',
      'devices.battery',
      'devices.signal',
      'devices.firmware',
      sql<number | null>`(s.plan_total_mb - s.used_mb)::float8`.as('sim_left'),
      sql<number | null>`s.plan_total_mb::float8`.as('sim_plan'),
      's.state as sim_state',
      'devices.last_seen_at',
      'devices.connected_at',
      'devices.province',
      'devices.bound_at',
    ]);
}

/** A row of the fleet list. */
export type ListRow = Awaited<ReturnType<ReturnType<typeof listQuery>['executeTakeFirstOrThrow']>>;

/**
 * A page by the SIM's data left, empty values last in both directions: the devices with a value in the index's
 * order (forwards or backwards on `(tenant_id, sim_left_mb, id)`), then those without one by id — two index
 * walks of at most `offset + size` rows each, where one ORDER BY with `nulls last` both ways would need two
 * indexes (or a sort of the whole tenant). The same rows in the same order as `ORDER_SQL.dataLeft`.
 */
export async function dataLeftPage<QB extends SelectQueryBuilder<any, 'devices', any>>(
  qb: QB,
  dir: 'asc' | 'desc',
  offset: number,
  size: number,
): Promise<Array<{ id: number }>> {
  const n = offset + size;
  const [valued, empty] = await Promise.all([
    qb
      .select('devices.id')
      .where('devices.sim_left_mb', 'is not', null)
      .orderBy('devices.sim_left_mb', dir)
      .orderBy('devices.id', dir)
      .limit(n)
      .execute() as Promise<Array<{ id: number }>>,
    qb
      .select('devices.id')
      .where('devices.sim_left_mb', 'is', null)
      .orderBy('devices.id', dir)
      .limit(n)
      .execute() as Promise<Array<{ id: number }>>,
  ]);
  return [...valued, ...empty].slice(offset, n);
}
