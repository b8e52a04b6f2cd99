import { sql, type RawBuilder } from 'kysely';
import { defineQueries, skip } from '../../../db/query-spec.ts';
import { deviceInScope, inDataScope, type DataAccess } from '../../../lib/data-scope.ts';

import type {
  FenceChanges,
  FenceCountRow,
  FenceDevicesFilter,
  FenceDeviceStateRow,
  FenceEventsFilter,
  FenceRow,
  FenceValues,
} from './rows.ts';
import { Repository } from '../../../db/repository.ts';
import { countDevicesOf, countGroupsOf } from '../../device/index.ts';

export type * from './rows.ts';
export { FenceStateRepository, type DeviceFenceRow, type DueChangeRow } from './state.ts';

const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/**
 * Every statement of the fence module's management and reading: `fences`, `fence_targets`, `fence_events` and the
 * state rows an edit clears; what they read of devices and device groups (the targets, in the reader's data
 * scope) and the positions of a device's track. The evaluation of location reports is in `./state.ts`.
 */
export class FenceRepository extends Repository {
  /** The tenant's fence (not deleted), or undefined. */
  findFence(tenantId: number, id: number): Promise<FenceRow | undefined> {
    return this.scope(tenantId)
      .selectFrom('fences')
      .selectAll('fences')
      .where('fences.id', '=', id)
      .where('fences.deleted_at', 'is', null)
      .executeTakeFirst() as unknown as Promise<FenceRow | undefined>;
  }

  /** The target devices of fences (direct, and through their groups and sub-groups) in the data scope `access`. */
  private targetDevices(
    tenantId: number,
    access: DataAccess,
    fenceIds: number[],
  ): RawBuilder<{ fence_id: number; device_id: number }> {
    return sql<{ fence_id: number; device_id: number }>`(
      WITH RECURSIVE g AS (
        SELECT t.fence_id, t.group_id AS id FROM fence_targets t
        WHERE t.tenant_id = ${tenantId} AND t.fence_id = ANY(${fenceIds}::bigint[]) AND t.group_id IS NOT NULL
        UNION
        SELECT g.fence_id, c.id FROM device_groups c JOIN g ON c.parent_id = g.id WHERE c.tenant_id = ${tenantId}
      ),
      td AS (
        SELECT t.fence_id, t.device_id FROM fence_targets t
        WHERE t.tenant_id = ${tenantId} AND t.fence_id = ANY(${fenceIds}::bigint[]) AND t.device_id IS NOT NULL
        UNION
        SELECT g.fence_id, dv.id FROM g JOIN devices dv ON dv.group_id = g.id AND dv.tenant_id = ${tenantId}
      )
      SELECT td.fence_id, td.device_id FROM td JOIN devices devices ON devices.id = td.device_id
      WHERE devices.tenant_id = ${tenantId} AND ${inDataScope(access, 'devices')})`;
  }

  /** A page of the tenant's fences (by name, by enabled), newest first; how many match. */
  async listPage(tenantId: number, q: { pageNo: number; pageSize: number; keyword?: string; enabled?: boolean }) {
    let base = this.scope(tenantId).selectFrom('fences').where('fences.deleted_at', 'is', null);
    if (q.keyword) base = base.where('fences.name', 'ilike', likeOf(q.keyword));
    if (q.enabled !== undefined) base = base.where('fences.enabled', '=', q.enabled);
    const [rows, total] = await Promise.all([
      base
        .selectAll('fences')
        .orderBy('fences.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute() as unknown as Promise<FenceRow[]>,
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: total.n };
  }

  /** Per fence: its target devices in the data scope, and how many of them are inside and outside. */
  async counts(tenantId: number, access: DataAccess, fenceIds: number[]): Promise<FenceCountRow[]> {
    const { rows } = await sql<FenceCountRow>`
      SELECT x.fence_id, count(*)::int AS devices,
        count(*) FILTER (WHERE s.side = 'inside')::int AS inside,
        count(*) FILTER (WHERE s.side = 'outside')::int AS outside
      FROM ${this.targetDevices(tenantId, access, fenceIds)} x
      LEFT JOIN fence_device_state s ON s.fence_id = x.fence_id AND s.device_id = x.device_id
      GROUP BY x.fence_id`.execute(this.db);
    return rows;
  }

  /** The explicit targets of fences: groups, and the devices in the data scope (the others stay hidden). */
  targets(tenantId: number, access: DataAccess, fenceIds: number[]) {
    return this.scope(tenantId)
      .selectFrom('fence_targets')
      .select(['fence_targets.fence_id', 'fence_targets.device_id', 'fence_targets.group_id'])
      .where('fence_targets.fence_id', 'in', fenceIds)
      .where(sql<boolean>`(fence_targets.device_id IS NULL OR ${deviceInScope(access, 'fence_targets.device_id')})`)
      .orderBy('fence_targets.id')
      .execute();
  }

  /** The tenant's devices of `ids` in the data scope: id, serial number, name; by id. */
  devicesByIds(tenantId: number, access: DataAccess, ids: number[]) {
    return this.scope(tenantId)
      .selectFrom('devices')
      .select(['devices.id', 'devices.sn', 'devices.name'])
      .where('devices.id', 'in', ids)
      .where(inDataScope(access))
      .orderBy('devices.id')
      .execute();
  }

  /** The tenant's device groups of `ids`: id and name; by id. */
  groupsByIds(tenantId: number, ids: number[]) {
    return this.scope(tenantId)
      .selectFrom('device_groups')
      .select(['device_groups.id', 'device_groups.name'])
      .where('device_groups.id', 'in', ids)
      .orderBy('device_groups.id')
      .execute();
  }

  /** The conditions of the devices page: the side in the fence and the serial number or name. */
  private deviceFilter(q: FenceDevicesFilter) {
    const side =
      q.side === undefined ? sql`true` : q.side === 'unknown' ? sql`s.side IS NULL` : sql`s.side = ${q.side}`;
    const kw = q.keyword ? likeOf(q.keyword) : null;
    return sql`${side} AND (${kw}::text IS NULL OR d.sn ILIKE ${kw} OR d.name ILIKE ${kw})`;
  }

  /** A page of a fence's target devices in the data scope with their state, by id (each row has the total). */
  async devicePage(tenantId: number, access: DataAccess, q: FenceDevicesFilter): Promise<FenceDeviceStateRow[]> {
    const { rows } = await sql<FenceDeviceStateRow>`
      SELECT d.id, d.sn, d.name, d.status, d.lat, d.lng, d.located_at, s.side, s.since, s.pending_side, s.pending_since,
        count(*) OVER ()::int AS total
      FROM ${this.targetDevices(tenantId, access, [q.id])} x
      JOIN devices d ON d.id = x.device_id
      LEFT JOIN fence_device_state s ON s.fence_id = x.fence_id AND s.device_id = x.device_id
      WHERE ${this.deviceFilter(q)}
      ORDER BY d.id
      LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(this.db);
    return rows;
  }

  /** How many target devices the devices page's filter matches (asked when a page past the end is empty). */
  async deviceCount(tenantId: number, access: DataAccess, q: FenceDevicesFilter): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM ${this.targetDevices(tenantId, access, [q.id])} x
      JOIN devices d ON d.id = x.device_id
      LEFT JOIN fence_device_state s ON s.fence_id = x.fence_id AND s.device_id = x.device_id
      WHERE ${this.deviceFilter(q)}`.execute(this.db);
    return rows[0]?.n ?? 0;
  }

  /** A page of the fence events of devices in the data scope, newest first; how many match. */
  async eventPage(tenantId: number, access: DataAccess, q: FenceEventsFilter) {
    let base = this.scope(tenantId)
      .selectFrom('fence_events')
      .innerJoin('fences', 'fences.id', 'fence_events.fence_id')
      .innerJoin('devices', 'devices.id', 'fence_events.device_id')
      .where(deviceInScope(access, 'fence_events.device_id'));
    if (q.fenceId) base = base.where('fence_events.fence_id', '=', q.fenceId);
    if (q.deviceId) base = base.where('fence_events.device_id', '=', q.deviceId);
    if (q.kind) base = base.where('fence_events.kind', '=', q.kind);
    if (q.from) base = base.where('fence_events.at', '>=', new Date(q.from));
    if (q.to) base = base.where('fence_events.at', '<', new Date(q.to));
    const [rows, total] = await Promise.all([
      base
        .select([
          'fence_events.id',
          'fence_events.fence_id',
          'fences.name as fence_name',
          'fence_events.device_id',
          'devices.sn',
          'devices.name as device_name',
          'fence_events.kind',
          'fence_events.at',
          'fence_events.lat',
          'fence_events.lng',
        ])
        .orderBy('fence_events.at', 'desc')
        .orderBy('fence_events.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: total.n };
  }

  /** The tenant's device in the data scope with its last position, or undefined. */
  deviceInReach(tenantId: number, access: DataAccess, deviceId: number) {
    return this.scope(tenantId)
      .selectFrom('devices')
      .select(['devices.id', 'devices.lat', 'devices.lng', 'devices.located_at'])
      .where('devices.id', '=', deviceId)
      .where(inDataScope(access))
      .executeTakeFirst();
  }

  /** The device's stored positions of the last `hours`, oldest first (at most 20,000). */
  track(deviceId: number, hours: number) {
    return this.db
      .selectFrom('device_positions')
      .select(['at', 'lat', 'lng', 'accuracy_m'])
      .where('device_id', '=', deviceId)
      .where('at', '>', sql<Date>`now() - make_interval(hours => ${hours})`)
      .orderBy('at')
      .limit(20_000)
      .execute();
  }

  /** How many of the devices `ids` are the tenant's and in the data scope. */
  countDevicesInReach(tenantId: number, access: DataAccess, ids: number[]): Promise<number> {
    return countDevicesOf(this.db, tenantId, ids, inDataScope(access));
  }

  /** How many of the device groups `ids` are the tenant's. */
  countGroups(tenantId: number, ids: number[]): Promise<number> {
    return countGroupsOf(this.db, tenantId, ids);
  }

  /**
   * Sets a fence's device targets to `deviceIds` as far as the data scope reaches: a device target outside it
   * (set by someone who sees it) is kept.
   */
  async replaceDeviceTargets(tenantId: number, access: DataAccess, fenceId: number, deviceIds: number[]) {
    const scope = this.scope(tenantId);
    await scope
      .deleteFrom('fence_targets')
      .where('fence_targets.fence_id', '=', fenceId)
      .where('fence_targets.device_id', 'is not', null)
      .where(
        sql<boolean>`fence_targets.device_id IN (SELECT devices.id FROM devices WHERE devices.tenant_id = ${tenantId} AND ${inDataScope(access)})`,
      )
      .execute();
    const kept = await scope
      .selectFrom('fence_targets')
      .select('fence_targets.device_id')
      .where('fence_targets.fence_id', '=', fenceId)
      .where('fence_targets.device_id', 'is not', null)
      .execute();
    const have = new Set(kept.map((k) => Number(k.device_id)));
    const add = deviceIds.filter((d) => !have.has(d));
    if (add.length)
      await scope
        .insertInto(
          'fence_targets',
          add.map((device_id) => ({ fence_id: fenceId, device_id })),
        )
        .execute();
  }

  /** Sets a fence's group targets to `groupIds`. */
  async replaceGroupTargets(tenantId: number, fenceId: number, groupIds: number[]) {
    const scope = this.scope(tenantId);
    await scope
      .deleteFrom('fence_targets')
      .where('fence_targets.fence_id', '=', fenceId)
      .where('fence_targets.group_id', 'is not', null)
      .execute();
    if (groupIds.length)
      await scope
        .insertInto(
          'fence_targets',
          groupIds.map((group_id) => ({ fence_id: fenceId, group_id })),
        )
        .execute();
  }

  /** Waits for the tenant's other fence creations: the count of its fences stays true until this one commits. */
  async lockCreation(tenantId: number): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(16030, ${tenantId}::int)`.execute(this.db);
  }

  /** How many fences the tenant has (not deleted). */
  async countLive(tenantId: number): Promise<number> {
    const { n } = await this.scope(tenantId)
      .selectFrom('fences')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('fences.deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return n;
  }

  /** Adds a fence; returns its id. */
  async insertFence(tenantId: number, values: FenceValues): Promise<number> {
    const row = await this.scope(tenantId).insertInto('fences', values).returning('id').executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** Applies an edit to the fence if it is still at `version` (not deleted); its new version, or undefined. */
  async updateFence(tenantId: number, id: number, version: number, changes: FenceChanges): Promise<number | undefined> {
    const row = await this.scope(tenantId)
      .updateTable('fences')
      .set({ ...changes, version: sql<number>`version + 1`, updated_at: sql<Date>`now()` })
      .where('fences.id', '=', id)
      .where('fences.deleted_at', 'is', null)
      .where('fences.version', '=', version)
      .returning('version')
      .executeTakeFirst();
    return row?.version;
  }

  /** Devices no longer targeted by the fence (in any data scope) lose their state in it. */
  async dropUntargetedState(tenantId: number, access: DataAccess, fenceId: number): Promise<void> {
    const all: DataAccess = { ...access, scope: 'all' };
    await sql`
      DELETE FROM fence_device_state s WHERE s.fence_id = ${fenceId}
      AND s.device_id NOT IN (SELECT x.device_id FROM ${this.targetDevices(tenantId, all, [fenceId])} x)`.execute(
      this.db,
    );
  }

  /** Forgets the pending side changes in the fence (a new shape or dwell judges them again from the next report). */
  async clearPending(fenceId: number): Promise<void> {
    await sql`UPDATE fence_device_state SET pending_side = NULL, pending_since = NULL, pending_lat = NULL, pending_lng = NULL
            WHERE fence_id = ${fenceId} AND pending_side IS NOT NULL`.execute(this.db);
  }

  /** The tenant's fences of `ids` that are not deleted: id and name. */
  liveNames(tenantId: number, ids: number[]) {
    return this.scope(tenantId)
      .selectFrom('fences')
      .select(['fences.id', 'fences.name'])
      .where('fences.id', 'in', ids)
      .where('fences.deleted_at', 'is', null)
      .execute();
  }

  /** Marks the fences deleted and drops the devices' state in them. */
  async softDelete(tenantId: number, ids: number[]): Promise<void> {
    await this.scope(tenantId)
      .updateTable('fences')
      .set({ deleted_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
      .where('fences.id', 'in', ids)
      .execute();
    await this.db.deleteFrom('fence_device_state').where('fence_id', 'in', ids).execute();
  }
}

const department: DataAccess = { scope: 'department', tenantId: 3, userId: 7, departmentId: 5, departmentPath: '1/5/' };
const all: DataAccess = { scope: 'all', tenantId: 3, userId: 2, departmentId: null, departmentPath: null };
const fenceValues: FenceValues = {
  name: 'Warehouse 2',
  shape: '{"type":"circle","center":[121.4737,31.2304],"radiusM":300}',
  min_lng: 121.4705,
  min_lat: 31.2277,
  max_lng: 121.4769,
  max_lat: 31.2331,
  schedule: '{"kind":"always"}',
  alert_on: 'both',
  dwell_s: 60,
  enabled: true,
  created_by: 7,
};

export const queries = defineQueries(FenceRepository, {
  findFence: [[3, 12]],
  listPage: [
    [3, { pageNo: 1, pageSize: 20 }],
    [3, { pageNo: 2, pageSize: 20, keyword: 'dock_1', enabled: true }],
  ],
  counts: [
    [3, all, [12, 13]],
    [3, department, [12]],
  ],
  targets: [
    [3, all, [12, 13]],
    [3, department, [12]],
  ],
  devicesByIds: [[3, department, [41, 42]]],
  groupsByIds: [[3, [4, 9]]],
  devicePage: [
    [3, all, { id: 12, pageNo: 1, pageSize: 20 }],
    [3, department, { id: 12, pageNo: 2, pageSize: 20, side: 'unknown', keyword: 'PR-' }],
    [3, all, { id: 12, pageNo: 1, pageSize: 20, side: 'inside' }],
  ],
  deviceCount: [[3, department, { id: 12, pageNo: 3, pageSize: 20, side: 'outside', keyword: 'PR-' }]],
  eventPage: [
    [3, all, { pageNo: 1, pageSize: 20 }],
    [
      3,
      department,
      {
        pageNo: 1,
        pageSize: 20,
        fenceId: 12,
        deviceId: 41,
        kind: 'leave',
        from: '2026-01-01T00:00:00.000Z',
        to: '2026-01-08T00:00:00.000Z',
      },
    ],
  ],
  deviceInReach: [[3, department, 41]],
  track: [[41, 24]],
  countDevicesInReach: skip('the device module counts them (countDevicesOf / countGroupsOf)'),
  countGroups: skip('the device module counts them (countDevicesOf / countGroupsOf)'),
  replaceDeviceTargets: [{ args: [3, department, 12, [41, 42]], results: [[], [{ device_id: 41 }]] }],
  replaceGroupTargets: [
    [3, 12, [4, 9]],
    [3, 12, []],
  ],
  lockCreation: [[3]],
  countLive: [{ args: [3], results: [[{ n: 4 }]] }],
  insertFence: [{ args: [3, fenceValues], results: [[{ id: 12 }]] }],
  updateFence: [
    [3, 12, 2, { name: 'Warehouse 2 east', enabled: false }],
    [3, 12, 2, { shape: fenceValues.shape, min_lng: 121.4705, min_lat: 31.2277, max_lng: 121.4769, max_lat: 31.2331 }],
  ],
  dropUntargetedState: [[3, department, 12]],
  clearPending: [[12]],
  liveNames: [[3, [12, 13]]],
  softDelete: [[3, [12, 13]]],
});
