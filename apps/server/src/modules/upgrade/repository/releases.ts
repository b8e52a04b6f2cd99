import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { FINAL_UPGRADE_DEVICE_STATES, OPEN_TASK_STATES, type UpgradeDeviceState } from '@cpc/contracts';
import type { Packages, UpgradeReleases } from '../../../db/generated.ts';
import { defineQueries, skip } from '../../../db/query-spec.ts';
import { inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { enqueueTasks, type ChangedTask, type TaskSpec } from '../../task/index.ts';
import { Repository } from '../../../db/repository.ts';

export type ReleaseRow = Selectable<UpgradeReleases>;
export type PackageRow = Selectable<Packages>;

/** What the targets of a release name (explicit devices, or models / versions / groups and below). */
export interface TargetQuery {
  deviceIds: number[] | null;
  models?: string[];
  versions?: string[];
  groupIds?: number[];
}

/** A device a release starts on: its wave and the version it had. */
export interface ReleaseDeviceSeed {
  device_id: number;
  wave: number;
  from_version: string;
}

/** The advisory lock class of a release's bookkeeping (the release id is the second key): one writer at a time. */
const RELEASE_LOCK = 0x5550_4752; // "UPGR"
/** The advisory lock of the periodic reconcile: one node at a time. */
const RECONCILE_LOCK = 0x5550_4743; // "UPGC"
/** Release devices inserted per statement. */
const INSERT_BATCH = 5000;

/**
 * The statements that create a release, act on it and keep its books: `upgrade_releases`, `upgrade_devices`, and
 * what they reach of others' tables (the firmware in `packages`, the targets in `devices` / `device_groups`, the
 * release's `device_tasks`).
 */
export class UpgradeRepository extends Repository {
  /** Runs `work` on one connection of the pool (a session advisory lock holds across its statements). */
  onConnection<T>(work: (repo: UpgradeRepository) => Promise<T>): Promise<T> {
    return this.db.connection().execute((conn) => work(new UpgradeRepository(conn)));
  }

  /** The tenant's package `id` when it is not deleted. */
  findPackage(tenantId: number, id: number): Promise<PackageRow | undefined> {
    return this.scope(tenantId)
      .selectFrom('packages')
      .selectAll('packages')
      .where('packages.id', '=', id)
      .where('packages.deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** Which of these groups are the tenant's. */
  async existingGroups(tenantId: number, ids: number[]): Promise<number[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('device_groups')
      .select('device_groups.id')
      .where('device_groups.id', 'in', ids)
      .execute();
    return rows.map((r) => r.id);
  }

  /** The devices the targets name inside the caller's data scope, with their model's code, by id. */
  targetDevices(tenantId: number, access: DataAccess, t: TargetQuery) {
    let q = this.scope(tenantId)
      .selectFrom('devices')
      .innerJoin('device_models as m', 'm.id', 'devices.model_id')
      .select(['devices.id', 'devices.sn', 'devices.firmware', 'm.code'])
      .where(inDataScope(access));
    if (t.deviceIds) {
      q = q.where('devices.id', 'in', t.deviceIds);
    } else {
      if (t.models?.length) q = q.where('m.code', 'in', t.models);
      if (t.versions?.length) q = q.where('devices.firmware', 'in', t.versions);
      if (t.groupIds?.length)
        // a group and every group below it
        q = q.where(
          sql<boolean>`devices.group_id in (with recursive g(id) as (
            select id from device_groups where tenant_id = ${tenantId} and id = any(${t.groupIds}::bigint[])
            union select c.id from device_groups c join g on c.parent_id = g.id where c.tenant_id = ${tenantId}
          ) select id from g)`,
        );
    }
    return q.orderBy('devices.id').execute();
  }

  /** A new release of the tenant; its id. */
  async insertRelease(
    tenantId: number,
    values: Omit<Insertable<UpgradeReleases>, 'tenant_id' | 'id'>,
  ): Promise<number> {
    const row = await this.scope(tenantId)
      .insertInto('upgrade_releases', values)
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** The release's devices, INSERT_BATCH per statement. */
  async insertReleaseDevices(tenantId: number, releaseId: number, devices: ReleaseDeviceSeed[]): Promise<void> {
    for (let i = 0; i < devices.length; i += INSERT_BATCH) {
      await this.scope(tenantId)
        .insertInto(
          'upgrade_devices',
          devices.slice(i, i + INSERT_BATCH).map((d) => ({ release_id: releaseId, ...d })),
        )
        .execute();
    }
  }

  /** Waits for the release's bookkeeping lock (held to the end of the transaction). */
  async lockRelease(id: number): Promise<void> {
    await sql`select pg_advisory_xact_lock(${RELEASE_LOCK}, ${id}::int)`.execute(this.db);
  }

  /** The tenant's release `id` (throws when there is none). */
  getInTenant(tenantId: number, id: number): Promise<ReleaseRow> {
    return this.scope(tenantId)
      .selectFrom('upgrade_releases')
      .selectAll('upgrade_releases')
      .where('upgrade_releases.id', '=', id)
      .executeTakeFirstOrThrow();
  }

  /** The release `id`, of any tenant. */
  findById(id: number): Promise<ReleaseRow | undefined> {
    return this.db.selectFrom('upgrade_releases').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The package `id` (throws when there is none). */
  getPackage(id: number): Promise<PackageRow> {
    return this.db.selectFrom('packages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** The release's state now. */
  async stateOf(id: number): Promise<string | undefined> {
    const row = await this.db.selectFrom('upgrade_releases').select('state').where('id', '=', id).executeTakeFirst();
    return row?.state;
  }

  async updateRelease(id: number, set: Updateable<UpgradeReleases>): Promise<void> {
    await this.db.updateTable('upgrade_releases').set(set).where('id', '=', id).execute();
  }

  /** Cancels the release's open tasks: the tasks changed. */
  cancelOpenTasks(tenantId: number, releaseId: number): Promise<ChangedTask[]> {
    return this.db
      .updateTable('device_tasks')
      .set({ state: 'canceled', error: 'release canceled', finished_at: new Date(), updated_at: new Date() })
      .where('tenant_id', '=', tenantId)
      .where('state', 'in', OPEN_TASK_STATES)
      .where(
        'id',
        'in',
        this.db
          .selectFrom('upgrade_devices')
          .select('task_id')
          .where('release_id', '=', releaseId)
          .where('task_id', 'is not', null)
          .$castTo<string>(),
      )
      .returningAll()
      .execute();
  }

  /** The release's devices not yet at a final step are `canceled`. */
  async cancelDevices(releaseId: number): Promise<void> {
    await this.db
      .updateTable('upgrade_devices')
      .set({ state: 'canceled', reason: 'release canceled', updated_at: new Date() })
      .where('release_id', '=', releaseId)
      .where('state', 'not in', FINAL_UPGRADE_DEVICE_STATES)
      .execute();
  }

  /** The release's failed devices are queued again in `wave`, without a task: their device ids. */
  async requeueFailed(releaseId: number, wave: number): Promise<number[]> {
    const rows = await this.db
      .updateTable('upgrade_devices')
      .set({ state: 'queued', reason: '', progress: 0, task_id: null, wave, updated_at: new Date() })
      .where('release_id', '=', releaseId)
      .where('state', '=', 'failed')
      .returning('device_id')
      .execute();
    return rows.map((r) => Number(r.device_id));
  }

  /** Takes the periodic reconcile's session advisory lock (on one connection); false when another node holds it. */
  async tryLockReconcile(): Promise<boolean> {
    const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${RECONCILE_LOCK}) as ok`.execute(this.db);
    return !!rows[0]?.ok;
  }

  async unlockReconcile(): Promise<void> {
    await sql`select pg_advisory_unlock(${RECONCILE_LOCK})`.execute(this.db);
  }

  /** The ids of the releases neither completed nor canceled, oldest first. */
  async openReleaseIds(): Promise<number[]> {
    const rows = await this.db
      .selectFrom('upgrade_releases')
      .select('id')
      .where('state', 'not in', ['completed', 'canceled'])
      .orderBy('id')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** Each unfinished device's step, from its task (verified only on the release's version): the devices changed. */
  async syncDeviceSteps(releaseId: number, version: string): Promise<number[]> {
    const { rows } = await sql<{ device_id: number }>`
        UPDATE upgrade_devices ud SET state = x.state, progress = x.progress, reason = x.reason, updated_at = now()
        FROM (
          SELECT ud2.device_id,
            CASE
              WHEN t.state = 'succeeded' AND d.firmware = ${version} THEN 'verified'
              WHEN t.state = 'succeeded' THEN 'failed'
              WHEN t.state IN ('failed', 'expired') THEN 'failed'
              WHEN t.state = 'canceled' THEN 'canceled'
              WHEN t.stage IN ('downloading', 'downloaded', 'installing', 'rebooting') THEN t.stage
              ELSE 'queued' END AS state,
            CASE WHEN t.state = 'succeeded' THEN 100 ELSE t.progress END AS progress,
            CASE
              WHEN t.state = 'succeeded' AND d.firmware = ${version} THEN ''
              WHEN t.state = 'succeeded' THEN 'came back on version ' || d.firmware
              WHEN t.state = 'expired' THEN 'expired'
              WHEN t.state IN ('failed', 'canceled') THEN coalesce(nullif(t.error, ''), t.state::text)
              ELSE '' END AS reason
          FROM upgrade_devices ud2
          JOIN device_tasks t ON t.id = ud2.task_id
          JOIN devices d ON d.id = ud2.device_id
          WHERE ud2.release_id = ${releaseId} AND ud2.state NOT IN ('verified', 'failed', 'canceled', 'skipped')
        ) x
        WHERE ud.release_id = ${releaseId} AND ud.device_id = x.device_id
          AND (ud.state, ud.progress, ud.reason) IS DISTINCT FROM (x.state, x.progress::smallint, x.reason)
        RETURNING ud.device_id`.execute(this.db);
    return rows.map((r) => r.device_id);
  }

  /** The release's queued devices that never started are `skipped` (it expired): how many. */
  async skipUnstarted(releaseId: number, now: Date): Promise<number> {
    const skipped = await this.db
      .updateTable('upgrade_devices')
      .set({ state: 'skipped', reason: 'release expired', updated_at: now })
      .where('release_id', '=', releaseId)
      .where('state', '=', 'queued')
      .where('task_id', 'is', null)
      .execute();
    return Number(skipped[0]?.numUpdatedRows ?? 0);
  }

  /** The wave's devices by step and whether they started. */
  async waveCounts(
    releaseId: number,
    wave: number,
  ): Promise<{ state: UpgradeDeviceState; started: boolean; n: string }[]> {
    const { rows } = await sql<{ state: UpgradeDeviceState; started: boolean; n: string }>`
          SELECT state, task_id IS NOT NULL AS started, count(*) AS n FROM upgrade_devices
          WHERE release_id = ${releaseId} AND wave = ${wave} GROUP BY 1, 2`.execute(this.db);
    return rows;
  }

  /** How many devices the wave has. */
  async waveSize(releaseId: number, wave: number): Promise<number> {
    const row = await this.db
      .selectFrom('upgrade_devices')
      .select(sql<string>`count(*)`.as('n'))
      .where('release_id', '=', releaseId)
      .where('wave', '=', wave)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The time zones of the wave's devices still to start. */
  async queuedZones(releaseId: number, wave: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('upgrade_devices as ud')
      .innerJoin('devices as d', 'd.id', 'ud.device_id')
      .select('d.time_zone')
      .distinct()
      .where('ud.release_id', '=', releaseId)
      .where('ud.wave', '=', wave)
      .where('ud.state', '=', 'queued')
      .where('ud.task_id', 'is', null)
      .execute();
    return rows.map((z) => z.time_zone);
  }

  /** Up to `limit` of the wave's devices still to start (in `zones` when given), online ones first. */
  async nextQueued(
    r: Pick<ReleaseRow, 'id' | 'tenant_id'>,
    wave: number,
    zones: string[] | null,
    limit: number,
  ): Promise<number[]> {
    let q = this.db
      .selectFrom('upgrade_devices as ud')
      .innerJoin('devices as d', 'd.id', 'ud.device_id')
      .select('ud.device_id')
      .where('ud.release_id', '=', r.id)
      .where('ud.wave', '=', wave)
      .where('ud.state', '=', 'queued')
      .where('ud.task_id', 'is', null)
      .where('d.tenant_id', '=', r.tenant_id);
    if (zones) q = q.where('d.time_zone', 'in', zones);
    const rows = await q.orderBy('d.status', 'desc').orderBy('ud.device_id').limit(limit).execute();
    return rows.map((d) => Number(d.device_id));
  }

  /** Device tasks (the task module's `enqueueTasks`), in this repository's transaction when it is bound to one. */
  enqueueTasks(tenantId: number, specs: TaskSpec[]): Promise<ChangedTask[]> {
    return enqueueTasks(this.scope(tenantId), specs);
  }

  /** Each started device of the release points at its new task. */
  async attachTasks(releaseId: number, tasks: Pick<ChangedTask, 'device_id' | 'id'>[]): Promise<void> {
    await sql`
      UPDATE upgrade_devices ud SET task_id = x.task_id, updated_at = now()
      FROM (SELECT unnest(${tasks.map((t) => t.device_id)}::bigint[]) AS device_id,
                   unnest(${tasks.map((t) => t.id)}::uuid[]) AS task_id) x
      WHERE ud.release_id = ${releaseId} AND ud.device_id = x.device_id`.execute(this.db);
  }
}

const department: DataAccess = {
  tenantId: 7,
  userId: 41,
  scope: 'department',
  departmentId: 5,
  departmentPath: '1/5/',
};
const at = new Date('2026-03-01T08:00:00Z');

export const upgradeQueries = defineQueries(UpgradeRepository, {
  onConnection: skip('hands the callback a repository bound to one connection; its statements are those'),
  findPackage: [[7, 21]],
  existingGroups: [[7, [3, 4]]],
  targetDevices: [
    [7, department, { deviceIds: [101, 102] }],
    [7, department, { deviceIds: null, models: ['P58'], versions: ['1.2.0'], groupIds: [3] }],
  ],
  insertRelease: [
    {
      args: [
        7,
        {
          name: 'Spring firmware',
          package_id: 21,
          state: 'running',
          wave: 1,
          targets: JSON.stringify({ models: ['P58'] }),
          canary_percent: 10,
          soak_minutes: 60,
          throttle: 50,
          window_start: '01:00',
          window_end: '05:00',
          fail_percent: 20,
          fail_min_count: 3,
          expire_at: new Date('2026-03-08T00:00:00Z'),
          created_by: 41,
        },
      ],
      results: [[{ id: 12 }]],
    },
  ],
  insertReleaseDevices: [
    [
      7,
      12,
      [
        { device_id: 101, wave: 1, from_version: '1.2.0' },
        { device_id: 102, wave: 2, from_version: '1.2.0' },
      ],
    ],
  ],
  lockRelease: [[12]],
  getInTenant: [{ args: [7, 12], results: [[{ id: 12 }]] }],
  findById: [[12]],
  getPackage: [{ args: [21], results: [[{ id: 21 }]] }],
  stateOf: [[12]],
  updateRelease: [[12, { state: 'running', wave: 2, waiting_since: null, updated_at: at }]],
  cancelOpenTasks: [[7, 12]],
  cancelDevices: [[12]],
  requeueFailed: [[12, 2]],
  tryLockReconcile: [[]],
  unlockReconcile: [[]],
  openReleaseIds: [[]],
  syncDeviceSteps: [[12, '1.3.0']],
  skipUnstarted: [[12, at]],
  waveCounts: [[12, 1]],
  waveSize: [{ args: [12, 2], results: [[{ n: '40' }]] }],
  queuedZones: [[12, 2]],
  nextQueued: [
    [{ id: 12, tenant_id: 7 }, 2, null, 50],
    [{ id: 12, tenant_id: 7 }, 2, ['Asia/Shanghai'], 50],
  ],
  enqueueTasks: [
    [
      7,
      [
        {
          deviceId: 101,
          type: 'upgrade',
          params: { releaseId: 12, packageId: 21, versionName: '1.3.0' },
          expireAt: new Date('2026-03-08T00:00:00Z'),
          createdBy: 41,
        },
      ],
    ],
  ],
  attachTasks: [[12, [{ device_id: 101, id: '6f1c2a9e-0b7d-4c1e-9a55-2f3b1d6e8a01' }]]],
});
