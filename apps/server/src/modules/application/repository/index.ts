import { sql, type Selectable } from 'kysely';
import {
  OPEN_TASK_STATES,
  type DeploymentKind,
  type TaskState,
  type TaskType,
  type deploymentListQuery,
} from '@cpc/contracts';
import type { z } from 'zod';
import type { Db } from '../../../db/database.ts';
import type { AppDeployments } from '../../../db/generated.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { audit, type AuditEntry } from '../../../lib/audit.ts';
import { enqueueTasks, type ChangedTask, type TaskSpec } from '../../task/index.ts';
import { InventoryStatements } from './inventory.ts';
import { orAll, type DevicesInScope } from './scope.ts';

export type { DevicesInScope } from './scope.ts';
export type { InstalledDeviceRow, InventoryReport } from './inventory.ts';

/** The package a deployment installs, as deployments read it. */
export interface DeployedPackage {
  id: number;
  kind?: string;
  name: string;
  identifier: string;
  version_name: string;
  version_code: string | number;
  size: string | number;
  sha256: string;
}

export type DeploymentRow = Selectable<AppDeployments>;

/** A device's latest task of a deployment, with the device's serial number, name and status. */
export interface DeploymentTaskRow {
  id: string;
  device_id: string;
  sn: string;
  name: string;
  status: string;
  state: TaskState;
  stage: string;
  progress: number;
  error: string;
  attempts: number;
  updated_at: Date;
}

type Inv = InventoryStatements;

/**
 * Every statement of the application module: deployments (`task_batches`, `app_deployments`, their device tasks),
 * the inventories devices report (`device_inventory`, `device_apps`, `device_ai_models`) and the required apps; and
 * what it reads of other modules' tables (devices and groups, packages, users).
 */
export class ApplicationRepository {
  /** The statements on inventories and required apps (repository/inventory.ts), on the same database. */
  private inv: InventoryStatements;

  constructor(private db: Db) {
    this.inv = new InventoryStatements(db);
  }

  private scope(tenantId: number): TenantScope {
    return new TenantScope(this.db, tenantId);
  }

  /** Runs `work` in one transaction with a repository bound to it; inside a transaction already, joins it. */
  transaction<T>(work: (repo: ApplicationRepository) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new ApplicationRepository(trx)));
  }

  /** A system-log entry, in this repository's transaction when it is bound to one. */
  audit(entry: AuditEntry): Promise<void> {
    return audit(this.db, entry);
  }

  // ----------------------------------------------------------------------------------------------------------
  // Targets and packages

  /** An undeleted package of the tenant. */
  findLivePackage(tenantId: number, id: number): Promise<DeployedPackage | undefined> {
    return this.scope(tenantId)
      .selectFrom('packages')
      .select(['id', 'kind', 'identifier', 'version_name', 'version_code', 'size', 'sha256', 'name'])
      .where('packages.id', '=', id)
      .where('packages.deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** The newest undeleted version of an app of the tenant. */
  findLatestApp(tenantId: number, identifier: string): Promise<DeployedPackage | undefined> {
    return this.scope(tenantId)
      .selectFrom('packages')
      .select(['id', 'identifier', 'name', 'version_name', 'version_code', 'size', 'sha256'])
      .where('packages.kind', '=', 'app')
      .where('packages.identifier', '=', identifier)
      .where('packages.deleted_at', 'is', null)
      .orderBy('packages.version_code', 'desc')
      .orderBy('packages.id', 'desc')
      .executeTakeFirst();
  }

  /** Every undeleted version of the kind (at most 500), by identifier then newest first. */
  listDeployablePackages(tenantId: number, kind: DeploymentKind) {
    return this.scope(tenantId)
      .selectFrom('packages')
      .select(['id', 'name', 'identifier', 'version_name', 'version_code', 'size'])
      .where('packages.kind', '=', kind)
      .where('packages.deleted_at', 'is', null)
      .orderBy('packages.identifier')
      .orderBy('packages.version_code', 'desc')
      .orderBy('packages.id', 'desc')
      .limit(500)
      .execute();
  }

  /** Names of packages of the tenant, by id. */
  async packageNames(tenantId: number, ids: number[]): Promise<Map<number, string>> {
    const rows = await this.scope(tenantId)
      .selectFrom('packages')
      .select(['id', 'name'])
      .where('packages.id', 'in', ids)
      .execute();
    return new Map(rows.map((p) => [Number(p.id), p.name]));
  }

  /** Usernames, by id. */
  async usernames(ids: number[]): Promise<Map<number, string>> {
    const rows = await this.db.selectFrom('users').select(['id', 'username']).where('id', 'in', ids).execute();
    return new Map(rows.map((x) => [Number(x.id), x.username]));
  }

  /** The devices among `deviceIds` that are the tenant's and in the caller's scope. */
  async listDevicesInScope(tenantId: number, deviceIds: number[], devices: DevicesInScope): Promise<number[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', 'in', deviceIds)
      .where(orAll(devices))
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** One device of the tenant in the caller's scope, or undefined. */
  findDeviceInScope(tenantId: number, deviceId: number, devices: DevicesInScope) {
    return this.scope(tenantId)
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', '=', deviceId)
      .where(orAll(devices))
      .executeTakeFirst();
  }

  /** The tenant a device is bound to (null: not bound, or no such device). */
  async findDeviceTenant(deviceId: number): Promise<number | null> {
    const dev = await this.db.selectFrom('devices').select(['tenant_id']).where('id', '=', deviceId).executeTakeFirst();
    return dev?.tenant_id ?? null;
  }

  /** The groups among `groupIds` that are the tenant's. */
  async listGroups(tenantId: number, groupIds: number[]): Promise<number[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('device_groups')
      .select('device_groups.id')
      .where('device_groups.id', 'in', groupIds)
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** The devices in the caller's scope of the groups and all their sub-groups. */
  async listGroupDevices(tenantId: number, groupIds: number[], devices: DevicesInScope): Promise<number[]> {
    const { rows } = await sql<{ id: number }>`
        WITH RECURSIVE g AS (
          SELECT id FROM device_groups WHERE tenant_id = ${tenantId} AND id = ANY(${groupIds}::bigint[])
          UNION
          SELECT c.id FROM device_groups c JOIN g ON c.parent_id = g.id WHERE c.tenant_id = ${tenantId}
        )
        SELECT devices.id FROM devices
        WHERE devices.tenant_id = ${tenantId} AND devices.group_id IN (SELECT id FROM g) AND ${orAll(devices)}`.execute(
      this.db,
    );
    return rows.map((r) => Number(r.id));
  }

  // ----------------------------------------------------------------------------------------------------------
  // Deployments

  /** A new task batch; its id. */
  async insertBatch(
    tenantId: number,
    b: { type: TaskType; targets: unknown; createdBy: number | null },
  ): Promise<number> {
    const row = await this.scope(tenantId)
      .insertInto('task_batches', { type: b.type, targets: JSON.stringify(b.targets), created_by: b.createdBy })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** A new deployment row; its id. */
  async insertDeployment(
    tenantId: number,
    d: {
      batch_id: number;
      kind: DeploymentKind;
      action: 'install' | 'uninstall';
      package_id: number | null;
      identifier: string;
      version_name: string;
      version_code: number;
      targets: unknown;
      source: 'manual' | 'policy';
      created_by: number | null;
    },
  ): Promise<number> {
    const row = await this.scope(tenantId)
      .insertInto('app_deployments', { ...d, targets: JSON.stringify(d.targets) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** Device tasks (the task module's `enqueueTasks`), in this repository's transaction when it is bound to one. */
  enqueueTasks(tenantId: number, specs: TaskSpec[]): Promise<ChangedTask[]> {
    return enqueueTasks(this.scope(tenantId), specs);
  }

  /** A page of deployments in the caller's scope, newest first, and how many match in all. */
  async listDeployments(
    tenantId: number,
    q: z.output<typeof deploymentListQuery>,
    devices: DevicesInScope,
  ): Promise<{ rows: DeploymentRow[]; total: number }> {
    const inScope = devices
      ? sql<boolean>`exists (select 1 from device_tasks t join devices on devices.id = t.device_id
          where t.batch_id = app_deployments.batch_id and ${devices})`
      : sql<boolean>`true`;
    const open = sql<boolean>`exists (select 1 from device_tasks t where t.batch_id = app_deployments.batch_id
      and t.state in ('queued','sent','delivered','running','timeout'))`;
    let base = this.scope(tenantId).selectFrom('app_deployments').where(inScope);
    if (q.kind) base = base.where('app_deployments.kind', '=', q.kind);
    if (q.action) base = base.where('app_deployments.action', '=', q.action);
    if (q.identifier)
      base = base.where('app_deployments.identifier', 'ilike', `%${q.identifier.replace(/[\\%_]/g, '\\$&')}%`);
    if (q.state === 'canceled') base = base.where('app_deployments.canceled_at', 'is not', null);
    if (q.state === 'running') base = base.where('app_deployments.canceled_at', 'is', null).where(open);
    if (q.state === 'done')
      base = base.where('app_deployments.canceled_at', 'is', null).where(sql<boolean>`not ${open}`);
    const total = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .selectAll('app_deployments')
      .orderBy('app_deployments.created_at', 'desc')
      .orderBy('app_deployments.id', 'desc')
      .limit(q.pageSize)
      .offset((q.pageNo - 1) * q.pageSize)
      .execute();
    return { rows, total: Number(total.n) };
  }

  /** One deployment of the tenant. */
  findDeployment(tenantId: number, id: number): Promise<DeploymentRow | undefined> {
    return this.scope(tenantId)
      .selectFrom('app_deployments')
      .selectAll()
      .where('app_deployments.id', '=', id)
      .executeTakeFirst();
  }

  /** The deployments' tasks in the caller's scope: the latest task of each device (a retry makes a newer one). */
  private latestTasks(tenantId: number, batchIds: number[], devices: DevicesInScope) {
    const inScope = devices
      ? sql<boolean>`t.device_id in (select devices.id from devices where devices.tenant_id = ${tenantId} and ${devices})`
      : sql<boolean>`true`;
    return sql`(SELECT DISTINCT ON (t.batch_id, t.device_id) t.* FROM device_tasks t
      WHERE t.tenant_id = ${tenantId} AND t.batch_id = ANY(${batchIds}::bigint[]) AND ${inScope}
      ORDER BY t.batch_id, t.device_id, t.created_at DESC, t.id DESC)`;
  }

  /** The deployments' latest tasks per device counted by batch and state. */
  async countLatestTasks(
    tenantId: number,
    batchIds: number[],
    devices: DevicesInScope,
  ): Promise<{ batch_id: string; state: TaskState; n: string }[]> {
    const { rows } = await sql<{ batch_id: string; state: TaskState; n: string }>`
      SELECT lt.batch_id, lt.state, count(*) AS n FROM ${this.latestTasks(tenantId, batchIds, devices)} lt GROUP BY lt.batch_id, lt.state`.execute(
      this.db,
    );
    return rows;
  }

  /** The deployment's latest task of each device in scope, with the device, by serial number. */
  async listLatestTasks(tenantId: number, batchId: number, devices: DevicesInScope): Promise<DeploymentTaskRow[]> {
    const { rows } = await sql<DeploymentTaskRow>`
       SELECT lt.id, lt.device_id, d.sn, d.name, d.status, lt.state, lt.stage, lt.progress, lt.error, lt.attempts, lt.updated_at
       FROM ${this.latestTasks(tenantId, [batchId], devices)} lt JOIN devices d ON d.id = lt.device_id
       ORDER BY d.sn`.execute(this.db);
    return rows;
  }

  /** The deployment's latest tasks (in scope) in one of `states`: device, type and params, to send them again. */
  async listLatestTasksIn(
    tenantId: number,
    batchId: number,
    states: TaskState[],
    devices: DevicesInScope,
  ): Promise<{ device_id: string; type: TaskType; params: Record<string, unknown> }[]> {
    const { rows } = await sql<{ device_id: string; type: TaskType; params: Record<string, unknown> }>`
      SELECT lt.device_id, lt.type, lt.params FROM ${this.latestTasks(tenantId, [batchId], devices)} lt
      WHERE lt.state = ANY(${states}::text[])`.execute(this.db);
    return rows;
  }

  /** Cancels the batch's unfinished tasks of the devices in scope; the tasks changed. */
  cancelOpenTasks(tenantId: number, batchId: number, devices: DevicesInScope): Promise<ChangedTask[]> {
    const inScope = devices
      ? sql<boolean>`device_tasks.device_id in (select devices.id from devices where devices.tenant_id = ${tenantId} and ${devices})`
      : sql<boolean>`true`;
    return this.scope(tenantId)
      .updateTable('device_tasks')
      .set({ state: 'canceled', error: 'canceled by the user', finished_at: new Date(), updated_at: new Date() })
      .where('device_tasks.batch_id', '=', batchId)
      .where('device_tasks.state', 'in', OPEN_TASK_STATES)
      .where(inScope)
      .returningAll()
      .execute();
  }

  /** Marks the deployment canceled (`at`), or not canceled (null). */
  async setCanceledAt(tenantId: number, id: number, at: Date | null): Promise<void> {
    await this.scope(tenantId)
      .updateTable('app_deployments')
      .set({ canceled_at: at })
      .where('app_deployments.id', '=', id)
      .execute();
  }

  // ----------------------------------------------------------------------------------------------------------
  // Inventory and required apps (repository/inventory.ts says what each does)

  storeInventory(...a: Parameters<Inv['storeInventory']>) {
    return this.inv.storeInventory(...a);
  }

  readInventory(...a: Parameters<Inv['readInventory']>) {
    return this.inv.readInventory(...a);
  }

  installedOn(...a: Parameters<Inv['installedOn']>) {
    return this.inv.installedOn(...a);
  }

  listReporting(...a: Parameters<Inv['listReporting']>) {
    return this.inv.listReporting(...a);
  }

  countInstalledVersions(...a: Parameters<Inv['countInstalledVersions']>) {
    return this.inv.countInstalledVersions(...a);
  }

  listInstalledDevices(...a: Parameters<Inv['listInstalledDevices']>) {
    return this.inv.listInstalledDevices(...a);
  }

  countInstalledDevices(...a: Parameters<Inv['countInstalledDevices']>) {
    return this.inv.countInstalledDevices(...a);
  }

  listRequired(...a: Parameters<Inv['listRequired']>) {
    return this.inv.listRequired(...a);
  }

  listRequiredForPolicy(...a: Parameters<Inv['listRequiredForPolicy']>) {
    return this.inv.listRequiredForPolicy(...a);
  }

  listTenantsWithRequired() {
    return this.inv.listTenantsWithRequired();
  }

  replaceRequired(...a: Parameters<Inv['replaceRequired']>) {
    return this.inv.replaceRequired(...a);
  }

  countMissing(...a: Parameters<Inv['countMissing']>) {
    return this.inv.countMissing(...a);
  }

  lockPolicy(...a: Parameters<Inv['lockPolicy']>) {
    return this.inv.lockPolicy(...a);
  }

  listDevicesLacking(...a: Parameters<Inv['listDevicesLacking']>) {
    return this.inv.listDevicesLacking(...a);
  }
}
