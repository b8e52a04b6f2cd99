import { sql, type RawBuilder } from 'kysely';
import type { ProfileApplyState } from '@cpc/contracts';
import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { inDataScope } from '../../../lib/data-scope.ts';
import { inScope, type DevicesInScope } from './profiles.ts';

/** A row of the per-device state joined with its device, group, versions, profile and task (`stateQuery`). */
export interface DeviceStateRow {
  device_id: string;
  profile_id: string | null;
  source: 'device' | 'group' | null;
  source_group_id: string | null;
  desired_version_id: string | null;
  applied_version_id: string | null;
  drift: boolean;
  drift_fields: string[] | null;
  task_id: string | null;
  reported_at: Date | null;
  updated_at: Date;
  sn: string;
  device_name: string;
  status: string;
  group_name: string | null;
  desired_version: number | null;
  applied_version: number | null;
  task_state: string | null;
  task_error: string | null;
  profile_name: string | null;
}

const STATE_FILTER: Record<ProfileApplyState, RawBuilder<boolean>> = {
  none: sql<boolean>`x.task_state IS NULL`,
  queued: sql<boolean>`x.task_state IN ('queued', 'sent', 'timeout')`,
  delivered: sql<boolean>`x.task_state IN ('delivered', 'running')`,
  applied: sql<boolean>`x.task_state = 'succeeded'`,
  failed: sql<boolean>`x.task_state IN ('failed', 'expired', 'canceled')`,
};

/**
 * What the console reads of profiles and devices: lists and counts within the caller's data scope (joined with
 * devices, groups, tasks and users), a device's state and the assignments that could apply to it.
 */
export class ProfileReadRepository {
  constructor(private readonly db: Db) {}

  private scope(tenantId: number) {
    return new TenantScope(this.db, tenantId);
  }

  /** A page of profiles, most recently changed first; `part`: the latest version has that part. */
  async listProfiles(tenantId: number, q: { keyword?: string; part?: string; pageNo: number; pageSize: number }) {
    let base = this.scope(tenantId).selectFrom('custom_profiles');
    if (q.keyword) base = base.where('custom_profiles.name', 'ilike', `%${q.keyword.replace(/[\\%_]/g, '\\$&')}%`);
    if (q.part)
      base = base.where(
        sql<boolean>`exists (select 1 from (select v.settings from custom_profile_versions v
          where v.profile_id = custom_profiles.id order by v.version desc nulls last limit 1) lv
          where lv.settings ? ${q.part})`,
      );
    const total = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .selectAll('custom_profiles')
      .orderBy('custom_profiles.updated_at', 'desc')
      .orderBy('custom_profiles.id', 'desc')
      .limit(q.pageSize)
      .offset((q.pageNo - 1) * q.pageSize)
      .execute();
    return { rows, total: Number(total.n) };
  }

  /** Devices (within the scope) and groups assigned each profile. */
  async assignmentCounts(tenantId: number, ids: number[], devices: DevicesInScope) {
    const { rows } = await sql<{ profile_id: string; devices: string; groups: string }>`
      SELECT a.profile_id, count(a.device_id) FILTER (WHERE ${inScope(devices)}) AS devices, count(a.group_id) AS groups
      FROM custom_profile_assignments a LEFT JOIN devices ON devices.id = a.device_id
      WHERE a.tenant_id = ${tenantId} AND a.profile_id = ANY(${ids}::bigint[]) GROUP BY a.profile_id`.execute(this.db);
    return rows;
  }

  /** Devices (within the scope) each profile governs, applied, failed and drifted. */
  async stateCounts(tenantId: number, ids: number[], devices: DevicesInScope) {
    const { rows } = await sql<{
      profile_id: string;
      devices: string;
      applied: string;
      failed: string;
      drifted: string;
    }>`
      SELECT s.profile_id, count(*) AS devices,
        count(*) FILTER (WHERE s.applied_version_id = s.desired_version_id AND t.state = 'succeeded') AS applied,
        count(*) FILTER (WHERE t.state IN ('failed', 'expired', 'canceled')) AS failed,
        count(*) FILTER (WHERE s.drift) AS drifted
      FROM device_profile_state s JOIN devices ON devices.id = s.device_id
      LEFT JOIN device_tasks t ON t.id = s.task_id
      WHERE s.tenant_id = ${tenantId} AND s.profile_id = ANY(${ids}::bigint[]) AND ${inScope(devices)}
      GROUP BY s.profile_id`.execute(this.db);
    return rows;
  }

  async userNames(ids: number[]) {
    return this.db.selectFrom('users').select(['id', 'username']).where('id', 'in', ids).execute();
  }

  /** A profile's assignments, oldest first (devices outside the scope left out). */
  async assignmentsOf(tenantId: number, profileId: number, devices: DevicesInScope) {
    const { rows } = await sql<{
      device_id: string | null;
      group_id: string | null;
      created_at: Date;
      device_name: string | null;
      sn: string | null;
      group_name: string | null;
    }>`
      SELECT a.device_id, a.group_id, a.created_at, devices.name AS device_name, devices.sn, g.name AS group_name
      FROM custom_profile_assignments a
      LEFT JOIN devices ON devices.id = a.device_id
      LEFT JOIN device_groups g ON g.id = a.group_id
      WHERE a.tenant_id = ${tenantId} AND a.profile_id = ${profileId}
        AND (a.device_id IS NULL OR ${inScope(devices)})
      ORDER BY a.created_at, a.id`.execute(this.db);
    return rows;
  }

  private stateQuery(tenantId: number, devices: DevicesInScope) {
    return sql`
      SELECT s.*, devices.sn, devices.name AS device_name, devices.status, g.name AS group_name,
        dv.version AS desired_version, av.version AS applied_version, t.state AS task_state, t.error AS task_error,
        dv.part_hashes AS desired_parts, p.name AS profile_name
      FROM device_profile_state s JOIN devices ON devices.id = s.device_id AND devices.tenant_id = s.tenant_id
      LEFT JOIN device_groups g ON g.id = s.source_group_id
      LEFT JOIN custom_profile_versions dv ON dv.id = s.desired_version_id
      LEFT JOIN custom_profile_versions av ON av.id = s.applied_version_id
      LEFT JOIN custom_profiles p ON p.id = s.profile_id
      LEFT JOIN device_tasks t ON t.id = s.task_id
      WHERE s.tenant_id = ${tenantId} AND ${inScope(devices)}`;
  }

  /** A page of the devices a profile governs (by serial number), filtered by apply state and drift. */
  async profileDevices(
    tenantId: number,
    devices: DevicesInScope,
    q: { id: number; state?: ProfileApplyState; drift?: boolean; pageNo: number; pageSize: number },
  ): Promise<{ rows: DeviceStateRow[]; total: number }> {
    const where = [sql<boolean>`x.profile_id = ${q.id}`];
    if (q.state) where.push(STATE_FILTER[q.state]);
    if (q.drift !== undefined) where.push(sql<boolean>`x.drift = ${q.drift}`);
    const cond = sql.join(where, sql` AND `);
    const states = this.stateQuery(tenantId, devices);
    const total = await sql<{ n: string }>`SELECT count(*) AS n FROM (${states}) x WHERE ${cond}`.execute(this.db);
    const { rows } = await sql<DeviceStateRow>`SELECT * FROM (${states}) x WHERE ${cond}
      ORDER BY x.sn LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(this.db);
    return { rows, total: Number(total.rows[0]?.n ?? 0) };
  }

  /** One device's state row (undefined: none, or the device is outside the scope). */
  async deviceState(tenantId: number, devices: DevicesInScope, deviceId: number): Promise<DeviceStateRow | undefined> {
    const { rows } = await sql<DeviceStateRow>`SELECT * FROM (${this.stateQuery(tenantId, devices)}) x
      WHERE x.device_id = ${deviceId}`.execute(this.db);
    return rows[0];
  }

  /** A device of the tenant within the caller's data scope. */
  async deviceInScope(tenantId: number, deviceId: number, devices: DevicesInScope) {
    return this.scope(tenantId)
      .selectFrom('devices')
      .select(['devices.id', 'devices.group_id'])
      .where('devices.id', '=', deviceId)
      .where(inScope(devices))
      .executeTakeFirst();
  }

  /** Every assignment that could apply to a device: its own (depth 0), then its groups' upwards, nearest first. */
  async candidatesOf(tenantId: number, deviceId: number, groupId: number | null) {
    const { rows } = await sql<{
      depth: number;
      group_id: string | null;
      group_name: string | null;
      profile_id: string;
      profile_name: string;
    }>`
      WITH RECURSIVE chain AS (
        SELECT g.id AS gid, g.parent_id, 1 AS depth FROM device_groups g WHERE g.id = ${groupId} AND g.tenant_id = ${tenantId}
        UNION ALL
        SELECT g.id, g.parent_id, c.depth + 1 FROM chain c JOIN device_groups g ON g.id = c.parent_id
        WHERE c.depth < 64
      )
      SELECT 0 AS depth, NULL::bigint AS group_id, NULL::text AS group_name, a.profile_id, p.name AS profile_name
      FROM custom_profile_assignments a JOIN custom_profiles p ON p.id = a.profile_id
      WHERE a.tenant_id = ${tenantId} AND a.device_id = ${deviceId}
      UNION ALL
      SELECT c.depth, c.gid, g.name, a.profile_id, p.name FROM chain c
      JOIN device_groups g ON g.id = c.gid
      JOIN custom_profile_assignments a ON a.group_id = c.gid AND a.tenant_id = ${tenantId}
      JOIN custom_profiles p ON p.id = a.profile_id
      ORDER BY depth`.execute(this.db);
    return rows;
  }

  /** The customer's applications: one row per package name, its latest upload. */
  async latestApps(tenantId: number) {
    const { rows } = await sql<{ identifier: string; name: string; version_name: string }>`
      SELECT DISTINCT ON (identifier) identifier, name, version_name FROM packages
      WHERE tenant_id = ${tenantId} AND kind = 'app' AND deleted_at IS NULL
      ORDER BY identifier, version_code DESC, id DESC`.execute(this.db);
    return rows;
  }
}

/** A caller whose data scope is its department's subtree (the devices condition the console's calls carry). */
const DEPARTMENT_SCOPE = inDataScope({
  scope: 'department',
  tenantId: 3,
  userId: 7,
  departmentId: 5,
  departmentPath: '1/5/',
});

export const readQueries = defineQueries(ProfileReadRepository, {
  listProfiles: [
    { args: [3, { pageNo: 1, pageSize: 20 }], results: [[{ n: '2' }]] },
    { args: [3, { keyword: 'desk_1%', part: 'wallpaper', pageNo: 2, pageSize: 20 }], results: [[{ n: '0' }]] },
  ],
  assignmentCounts: [
    [3, [12, 13], undefined],
    [3, [12, 13], DEPARTMENT_SCOPE],
  ],
  stateCounts: [
    [3, [12, 13], undefined],
    [3, [12, 13], DEPARTMENT_SCOPE],
  ],
  userNames: [[[7, 8]]],
  assignmentsOf: [
    [3, 12, undefined],
    [3, 12, DEPARTMENT_SCOPE],
  ],
  profileDevices: [
    [3, undefined, { id: 12, pageNo: 1, pageSize: 20 }],
    [3, DEPARTMENT_SCOPE, { id: 12, state: 'failed', drift: true, pageNo: 2, pageSize: 20 }],
  ],
  deviceState: [[3, DEPARTMENT_SCOPE, 101]],
  deviceInScope: [
    [3, 101, undefined],
    [3, 101, DEPARTMENT_SCOPE],
  ],
  candidatesOf: [[3, 101, 21]],
  latestApps: [[3]],
});
