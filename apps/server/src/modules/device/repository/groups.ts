import { sql } from 'kysely';
import { defineQueries } from '../../../db/query-spec.ts';
import { inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { Repository } from '../../../db/repository.ts';

/** A group as the API shows it. */
export interface GroupRow {
  id: number;
  name: string;
  parent_id: number | null;
  sort: number;
}

/** Every statement of the device groups: one tree per tenant, and the devices counted and ungrouped with it. */
export class DeviceGroupRepository extends Repository {
  /** How many of the device groups `ids` are the tenant's. */
  async countOf(tenantId: number, ids: number[]): Promise<number> {
    const found = await this.scope(tenantId)
      .selectFrom('device_groups')
      .select('device_groups.id')
      .where('device_groups.id', 'in', ids)
      .execute();
    return found.length;
  }

  /** Every group of the tenant, unordered. */
  list(tenantId: number): Promise<GroupRow[]> {
    return this.scope(tenantId)
      .selectFrom('device_groups')
      .select(['device_groups.id', 'device_groups.name', 'device_groups.parent_id', 'device_groups.sort'])
      .execute();
  }

  /** The devices of the data scope per group (null: ungrouped), and how many of them are online. */
  deviceCounts(tenantId: number, access: DataAccess) {
    return this.scope(tenantId)
      .selectFrom('devices')
      .where(inDataScope(access))
      .select([
        'devices.group_id',
        sql<number>`count(*)`.as('n'),
        sql<number>`count(*) filter (where devices.status = 'online')`.as('online'),
      ])
      .groupBy('devices.group_id')
      .execute();
  }

  /** Whether the group is the tenant's. */
  async exists(tenantId: number, id: number): Promise<boolean> {
    const g = await this.scope(tenantId)
      .selectFrom('device_groups')
      .select('device_groups.id')
      .where('device_groups.id', '=', id)
      .executeTakeFirst();
    return g !== undefined;
  }

  /** Whether a sibling under `parentId` (but `exceptId`) has the name, without regard to case. */
  async nameTaken(tenantId: number, name: string, parentId: number | null, exceptId?: number): Promise<boolean> {
    let q = this.scope(tenantId)
      .selectFrom('device_groups')
      .select('device_groups.id')
      .where(sql<boolean>`lower(device_groups.name) = lower(${name})`)
      .where(
        parentId === null
          ? sql<boolean>`device_groups.parent_id is null`
          : sql<boolean>`device_groups.parent_id = ${parentId}`,
      );
    if (exceptId) q = q.where('device_groups.id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  insert(tenantId: number, values: { name: string; parent_id: number | null; sort: number }): Promise<GroupRow> {
    return this.scope(tenantId)
      .insertInto('device_groups', values)
      .returning(['id', 'name', 'parent_id', 'sort'])
      .executeTakeFirstOrThrow();
  }

  /** Every group of the tenant, locked: one tenant's tree changes one edit at a time (no cycle by two moves). */
  lockAll(tenantId: number): Promise<GroupRow[]> {
    return this.scope(tenantId)
      .selectFrom('device_groups')
      .select(['device_groups.id', 'device_groups.parent_id', 'device_groups.name', 'device_groups.sort'])
      .forUpdate()
      .execute();
  }

  update(
    tenantId: number,
    id: number,
    values: { name: string; parent_id: number | null; sort?: number },
  ): Promise<GroupRow> {
    return this.scope(tenantId)
      .updateTable('device_groups')
      .set(values)
      .where('device_groups.id', '=', id)
      .returning(['id', 'name', 'parent_id', 'sort'])
      .executeTakeFirstOrThrow();
  }

  /** The tenant's devices in these groups become ungrouped; answers how many. */
  async ungroupDevices(tenantId: number, groupIds: number[]): Promise<number> {
    const moved = await this.scope(tenantId)
      .updateTable('devices')
      .set({ group_id: null })
      .where('devices.group_id', 'in', groupIds)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows);
  }

  /** Deletes the group (the groups below it go with it: the foreign key cascades). */
  async delete(tenantId: number, id: number): Promise<void> {
    await this.scope(tenantId).deleteFrom('device_groups').where('device_groups.id', '=', id).execute();
  }
}

const access = (scope: DataAccess['scope']): DataAccess => ({
  scope,
  tenantId: 3,
  userId: 12,
  departmentId: 5,
  departmentPath: '1/5/',
});

export const deviceGroupQueries = defineQueries(DeviceGroupRepository, {
  countOf: [[3, [7, 8]]],
  list: [[3]],
  deviceCounts: [
    [3, access('all')],
    [3, access('department')],
    [3, access('own')],
  ],
  exists: [[3, 21]],
  nameTaken: [
    [3, 'Shop floor', null],
    [3, 'Shop floor', 21, 24],
  ],
  insert: [{ args: [3, { name: 'Shop floor', parent_id: 21, sort: 0 }], results: [[{ id: 24 }]] }],
  lockAll: [[3]],
  update: [
    { args: [3, 24, { name: 'Shop floor', parent_id: 21 }], results: [[{ id: 24 }]] },
    { args: [3, 24, { name: 'Shop floor', parent_id: null, sort: 2 }], results: [[{ id: 24 }]] },
  ],
  ungroupDevices: [[3, [21, 24]]],
  delete: [[3, 21]],
});
