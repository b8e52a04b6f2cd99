import { sql } from 'kysely';
import { OPEN_TASK_STATES } from '@cpc/contracts';
import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { enqueueTasks, type ChangedTask, type TaskSpec } from '../../task/index.ts';
import type { MediaPart, VersionRow } from '../types.ts';

/** The advisory-lock namespace of a tenant's resolution (one resolution per tenant at a time, on any node). */
const LOCK_NS = 0x5c0516;
/** The session advisory lock of the periodic resolution (one node at a time). */
const UPKEEP_LOCK = 0x5c0517;

/** A device's resolved configuration as written by a resolution. */
export interface StateUpsert {
  device_id: number;
  profile_id: number | null;
  source: 'device' | 'group' | null;
  source_group_id: number | null;
  desired_version_id: number | null;
  task_id: string | null;
}

/** What a device reported of its effective configuration. */
export interface ReportValues {
  reported_hash: string;
  reported_parts: string;
  reported_version_id: number | null;
  applied_version_id: number | null;
  drift: boolean;
  drift_fields: string[];
  reported_at: Date;
  updated_at: Date;
}

/**
 * The statements on each device's resolved configuration (`device_profile_state`) and its apply_profile tasks:
 * those of resolution (each device's configuration in `device_profile_state`, its apply_profile tasks) and
 * of the device's side (its report, the media its open task downloads).
 */
export class ProfileStateRepository {
  constructor(private readonly db: Db) {}

  private scope(tenantId: number) {
    return new TenantScope(this.db, tenantId);
  }

  /** The devices the profile gives a version to run. */
  async governedDevices(tenantId: number, profileId: number): Promise<number[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('device_profile_state')
      .select('device_profile_state.device_id')
      .where('device_profile_state.profile_id', '=', profileId)
      .where('device_profile_state.desired_version_id', 'is not', null)
      .execute();
    return rows.map((g) => Number(g.device_id));
  }

  /** How many devices the profile governs (state rows naming it). */
  async countStatesOf(tenantId: number, profileId: number): Promise<number> {
    const n = await this.scope(tenantId)
      .selectFrom('device_profile_state')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('device_profile_state.profile_id', '=', profileId)
      .executeTakeFirstOrThrow();
    return Number(n.n);
  }

  // ----------------------------------------------------------------------------------------------------------
  // Resolution

  /** The tenant's resolution lock, held to the end of the transaction (taken again in it, it just stacks). */
  async lockResolution(tenantId: number): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_NS}::int, ${tenantId}::int)`.execute(this.db);
  }

  /**
   * Each device's winning assignment: its own (depth 0), else its group's, else its parent group's, … (the nearest,
   * at most 64 levels up).
   */
  async resolveAssignments(t: number) {
    const { rows } = await sql<{ device_id: string; profile_id: string; group_id: string | null; depth: number }>`
      WITH RECURSIVE chain AS (
        SELECT d.id AS device_id, d.group_id AS gid, 1 AS depth FROM devices d
        WHERE d.tenant_id = ${t} AND d.group_id IS NOT NULL
        UNION ALL
        SELECT c.device_id, g.parent_id, c.depth + 1 FROM chain c
        JOIN device_groups g ON g.id = c.gid AND g.tenant_id = ${t}
        WHERE g.parent_id IS NOT NULL AND c.depth < 64
      ), candidates AS (
        SELECT a.device_id, 0 AS depth, a.profile_id, NULL::bigint AS group_id
        FROM custom_profile_assignments a JOIN devices d ON d.id = a.device_id AND d.tenant_id = ${t}
        WHERE a.tenant_id = ${t} AND a.device_id IS NOT NULL
        UNION ALL
        SELECT c.device_id, c.depth, a.profile_id, c.gid FROM chain c
        JOIN custom_profile_assignments a ON a.group_id = c.gid AND a.tenant_id = ${t}
      )
      SELECT DISTINCT ON (device_id) device_id, profile_id, group_id, depth FROM candidates
      ORDER BY device_id, depth`.execute(this.db);
    return rows;
  }

  /** Each profile's latest published version. */
  async latestPublished(t: number): Promise<VersionRow[]> {
    const { rows } = await sql<VersionRow>`
      SELECT DISTINCT ON (profile_id) * FROM custom_profile_versions
      WHERE tenant_id = ${t} AND version IS NOT NULL ORDER BY profile_id, version DESC`.execute(this.db);
    return rows;
  }

  /** The tenant's state rows; `mine` is false for a device gone or now of another tenant. */
  async resolvedStates(t: number) {
    const { rows } = await sql<{
      device_id: string;
      profile_id: string | null;
      source: string | null;
      source_group_id: string | null;
      desired_version_id: string | null;
      mine: boolean;
    }>`
      SELECT s.device_id, s.profile_id, s.source, s.source_group_id, s.desired_version_id,
        coalesce(d.tenant_id = s.tenant_id, false) AS mine
      FROM device_profile_state s LEFT JOIN devices d ON d.id = s.device_id
      WHERE s.tenant_id = ${t}`.execute(this.db);
    return rows;
  }

  async deleteStates(tenantId: number, deviceIds: number[]): Promise<void> {
    await this.scope(tenantId).deleteFrom('device_profile_state').where('device_id', 'in', deviceIds).execute();
  }

  /** Cancels the open apply_profile tasks of these devices (superseded); answers the canceled rows. */
  async cancelOpenApplyTasks(tenantId: number, deviceIds: number[]): Promise<ChangedTask[]> {
    return this.scope(tenantId)
      .updateTable('device_tasks')
      .set({
        state: 'canceled',
        error: 'superseded by a newer configuration',
        finished_at: new Date(),
        updated_at: new Date(),
      })
      .where('device_tasks.device_id', 'in', deviceIds)
      .where('device_tasks.type', '=', 'apply_profile')
      .where('device_tasks.state', 'in', OPEN_TASK_STATES)
      .returningAll()
      .execute();
  }

  /** Inserts device tasks in this repository's transaction (announced and dispatched once it committed). */
  enqueueTasks(tenantId: number, specs: TaskSpec[]): Promise<ChangedTask[]> {
    return enqueueTasks(this.scope(tenantId), specs);
  }

  /**
   * Writes each device's resolution. A device that got no new task keeps its task and drift (only where its
   * profile comes from changed); one with a new task starts without drift.
   */
  async upsertStates(tenantId: number, rows: StateUpsert[]): Promise<void> {
    if (!rows.length) return;
    await this.scope(tenantId)
      .insertInto(
        'device_profile_state',
        rows.map((x) => ({ ...x, drift: false, drift_fields: [] as string[], updated_at: new Date() })),
      )
      .onConflict((oc) =>
        oc.column('device_id').doUpdateSet((eb) => ({
          profile_id: eb.ref('excluded.profile_id'),
          source: eb.ref('excluded.source'),
          source_group_id: eb.ref('excluded.source_group_id'),
          desired_version_id: eb.ref('excluded.desired_version_id'),
          task_id: sql`CASE WHEN excluded.task_id IS NULL THEN device_profile_state.task_id ELSE excluded.task_id END`,
          drift: sql`CASE WHEN excluded.task_id IS NULL THEN device_profile_state.drift ELSE false END`,
          drift_fields: sql`CASE WHEN excluded.task_id IS NULL THEN device_profile_state.drift_fields ELSE '{}'::text[] END`,
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }

  /** The tenants that have assignments or device states naming a profile or version. */
  async tenantsToReconcile(): Promise<number[]> {
    const { rows } = await sql<{ tenant_id: string }>`
      SELECT tenant_id FROM custom_profile_assignments
      UNION SELECT tenant_id FROM device_profile_state WHERE profile_id IS NOT NULL OR desired_version_id IS NOT NULL`.execute(
      this.db,
    );
    return rows.map((r) => Number(r.tenant_id));
  }

  /** Runs `work` if this node gets the periodic resolution's session lock (else skips it), releasing it after. */
  async whileUpkeepLockHeld(work: () => Promise<unknown>): Promise<void> {
    await this.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${UPKEEP_LOCK}) AS ok`.execute(conn);
      if (!rows[0]?.ok) return;
      try {
        await work();
      } finally {
        await sql`SELECT pg_advisory_unlock(${UPKEEP_LOCK})`.execute(conn);
      }
    });
  }

  // ----------------------------------------------------------------------------------------------------------
  // The device's side

  /** The apply task `taskId` of the device succeeded: its version is the applied one. */
  async markApplied(deviceId: ChangedTask['device_id'], taskId: string, versionId: number | null): Promise<void> {
    await this.db
      .updateTable('device_profile_state')
      .set({ applied_version_id: versionId, updated_at: new Date() })
      .where('device_id', '=', deviceId)
      .where('task_id', '=', taskId)
      .execute();
  }

  /** What a device's report is judged against: its tenant, state, desired hashes and apply task. */
  async reportContext(deviceId: number, reportedVersionId: number | null) {
    const { rows } = await sql<{
      tenant_id: string;
      profile_id: string | null;
      desired_version_id: string | null;
      has_state: boolean;
      hash: string | null;
      part_hashes: unknown;
      open: boolean;
      reported_version_ok: boolean;
      drift: boolean | null;
      task_state: string | null;
    }>`
      SELECT d.tenant_id, s.profile_id, s.desired_version_id, s.device_id IS NOT NULL AS has_state, v.hash, v.part_hashes,
        s.drift, t.state AS task_state,
        EXISTS (SELECT 1 FROM device_tasks t WHERE t.device_id = d.id AND t.type = 'apply_profile'
          AND t.state IN ('queued', 'sent', 'delivered', 'running', 'timeout')) AS open,
        EXISTS (SELECT 1 FROM custom_profile_versions rv WHERE rv.id = ${reportedVersionId} AND rv.tenant_id = d.tenant_id
          AND rv.version IS NOT NULL) AS reported_version_ok
      FROM devices d
      LEFT JOIN device_profile_state s ON s.device_id = d.id AND s.tenant_id = d.tenant_id
      LEFT JOIN custom_profile_versions v ON v.id = s.desired_version_id
      LEFT JOIN device_tasks t ON t.id = s.task_id
      WHERE d.id = ${deviceId} AND d.tenant_id IS NOT NULL`.execute(this.db);
    return rows[0];
  }

  async saveReport(deviceId: number, tenantId: number, values: ReportValues): Promise<void> {
    await this.db
      .insertInto('device_profile_state')
      .values({ device_id: deviceId, tenant_id: tenantId, ...values })
      .onConflict((oc) => oc.column('device_id').doUpdateSet(values))
      .execute();
  }

  /** The stored media of a part of an open (sent…timeout) apply_profile task. */
  async openTaskMedia(taskId: string, part: MediaPart) {
    const { rows } = await sql<{ m: { key?: string; sha256?: string; mime?: string } | null }>`
      SELECT t.params->'settings'->${part} AS m FROM device_tasks t
      WHERE t.id = ${taskId} AND t.type = 'apply_profile'
        AND t.state IN ('sent', 'delivered', 'running', 'timeout')`.execute(this.db);
    return rows[0]?.m ?? null;
  }
}

const TASK_ID = '5f0c8a4e-2b7d-4c1e-9a63-0d2f8b1e7c45';

export const stateQueries = defineQueries(ProfileStateRepository, {
  governedDevices: [[3, 12]],
  countStatesOf: [{ args: [3, 12], results: [[{ n: '4' }]] }],
  lockResolution: [[3]],
  resolveAssignments: [[3]],
  latestPublished: [[3]],
  resolvedStates: [[3]],
  deleteStates: [[3, [101, 102]]],
  cancelOpenApplyTasks: [[3, [101, 102]]],
  enqueueTasks: [
    [
      3,
      [
        {
          deviceId: 101,
          type: 'apply_profile',
          params: { profileId: 12, versionId: 40, version: 2, hash: 'a3f1c2', settings: {} },
          expireAt: new Date('2026-01-08T00:00:00Z'),
          createdBy: 7,
        },
      ],
    ],
  ],
  upsertStates: [
    [
      3,
      [
        {
          device_id: 101,
          profile_id: 12,
          source: 'group',
          source_group_id: 21,
          desired_version_id: 40,
          task_id: TASK_ID,
        },
        {
          device_id: 102,
          profile_id: null,
          source: null,
          source_group_id: null,
          desired_version_id: null,
          task_id: null,
        },
      ],
    ],
  ],
  tenantsToReconcile: [[]],
  whileUpkeepLockHeld: [
    { args: [async () => undefined], results: [[{ ok: true }]] },
    { args: [async () => undefined], results: [[{ ok: false }]] },
  ],
  markApplied: [[101, TASK_ID, 40]],
  reportContext: [[101, 40]],
  saveReport: [
    [
      101,
      3,
      {
        reported_hash: 'c9d2e1',
        reported_parts: JSON.stringify({ wallpaper: 'e1f2a3' }),
        reported_version_id: 40,
        applied_version_id: 40,
        drift: true,
        drift_fields: ['wallpaper'],
        reported_at: new Date('2026-01-01T00:00:00Z'),
        updated_at: new Date('2026-01-01T00:00:00Z'),
      },
    ],
  ],
  openTaskMedia: [[TASK_ID, 'wallpaper']],
});
