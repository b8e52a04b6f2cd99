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
import { defineQueries } from '../../../db/query-spec.ts';
import { audit, type AuditEntry } from '../../../lib/audit.ts';
import { inDataScope } from '../../../lib/data-scope.ts';
import { enqueueTasks, type ChangedTask, type TaskSpec } from '../../task/index.ts';
import { InventoryStatements, type InventoryReport } from './inventory.ts';
import type { DevicesInScope } from './scope.ts';
import { TargetStatements } from './targets.ts';

export type { DevicesInScope } from './scope.ts';
export type { InstalledDeviceRow, InventoryReport } from './inventory.ts';
export type { DeployedPackage } from './targets.ts';

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
type Targets = TargetStatements;

/**
 * Every statement of the application module: deployments (`task_batches`, `app_deployments`, their device tasks),
 * the inventories devices report (`device_inventory`, `device_apps`, `device_ai_models`) and the required apps; and
 * what it reads of other modules' tables (devices and groups, packages, users).
 */
export class ApplicationRepository {
  /** The statements on inventories and required apps (repository/inventory.ts), on the same database. */
  private inv: InventoryStatements;
  /** The reads of packages, devices, groups and users a deployment needs (repository/targets.ts). */
  private targets: TargetStatements;

  constructor(private db: Db) {
    this.inv = new InventoryStatements(db);
    this.targets = new TargetStatements(db);
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
  // Targets and packages (repository/targets.ts says what each does)

  findLivePackage(...a: Parameters<Targets['findLivePackage']>) {
    return this.targets.findLivePackage(...a);
  }

  findLatestApp(...a: Parameters<Targets['findLatestApp']>) {
    return this.targets.findLatestApp(...a);
  }

  listDeployablePackages(...a: Parameters<Targets['listDeployablePackages']>) {
    return this.targets.listDeployablePackages(...a);
  }

  packageNames(...a: Parameters<Targets['packageNames']>) {
    return this.targets.packageNames(...a);
  }

  usernames(...a: Parameters<Targets['usernames']>) {
    return this.targets.usernames(...a);
  }

  listDevicesInScope(...a: Parameters<Targets['listDevicesInScope']>) {
    return this.targets.listDevicesInScope(...a);
  }

  findDeviceInScope(...a: Parameters<Targets['findDeviceInScope']>) {
    return this.targets.findDeviceInScope(...a);
  }

  findDeviceTenant(...a: Parameters<Targets['findDeviceTenant']>) {
    return this.targets.findDeviceTenant(...a);
  }

  listGroups(...a: Parameters<Targets['listGroups']>) {
    return this.targets.listGroups(...a);
  }

  listGroupDevices(...a: Parameters<Targets['listGroupDevices']>) {
    return this.targets.listGroupDevices(...a);
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

/** A department-scoped reader's devices condition, for the samples of the scoped statements. */
const DEPARTMENT = inDataScope({
  scope: 'department',
  tenantId: 3,
  userId: 12,
  departmentId: 5,
  departmentPath: '1/5/',
});
const page = { pageNo: 1, pageSize: 20 };
const installed = { ...page, kind: 'app', identifier: 'com.shop.kiosk' } as const;
const inventory: InventoryReport = {
  hash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  apps: [{ pkg: 'com.shop.kiosk', name: 'Kiosk', versionCode: 31, versionName: '3.1' }],
  models: [{ name: 'face-detect', version: '2.0', framework: 'onnx' }],
  storageFreeMb: 1024,
};

export const queries = defineQueries(ApplicationRepository, {
  findLivePackage: [[3, 41]],
  findLatestApp: [[3, 'com.shop.kiosk']],
  listDeployablePackages: [[3, 'app']],
  packageNames: [[3, [41, 42]]],
  usernames: [[[12, 13]]],
  listDevicesInScope: [
    [3, [101, 102], undefined],
    [3, [101, 102], DEPARTMENT],
  ],
  findDeviceInScope: [
    [3, 101, undefined],
    [3, 101, DEPARTMENT],
  ],
  findDeviceTenant: [[101]],
  listGroups: [[3, [7, 8]]],
  listGroupDevices: [
    [3, [7, 8], undefined],
    [3, [7, 8], DEPARTMENT],
  ],
  insertBatch: [
    {
      args: [3, { type: 'install_app', targets: { deviceIds: [101], groupIds: [7] }, createdBy: 12 }],
      results: [[{ id: 61 }]],
    },
  ],
  insertDeployment: [
    {
      args: [
        3,
        {
          batch_id: 61,
          kind: 'app',
          action: 'install',
          package_id: 41,
          identifier: 'com.shop.kiosk',
          version_name: '3.1',
          version_code: 31,
          targets: { deviceIds: [101], groupIds: [7] },
          source: 'manual',
          created_by: 12,
        },
      ],
      results: [[{ id: 21 }]],
    },
  ],
  enqueueTasks: [
    [
      3,
      [
        {
          deviceId: 101,
          type: 'install_app',
          params: { deploymentId: 21, action: 'install', packageId: 41, identifier: 'com.shop.kiosk' },
          expireAt: new Date('2026-01-08T00:00:00Z'),
          createdBy: 12,
          batchId: 61,
        },
      ],
    ],
  ],
  // the count answers one row, then the page is read
  listDeployments: [
    { args: [3, page, undefined], results: [[{ n: 1 }]] },
    {
      args: [3, { ...page, kind: 'app', action: 'install', identifier: 'kiosk', state: 'running' }, DEPARTMENT],
      results: [[{ n: 1 }]],
    },
    { args: [3, { ...page, state: 'done' }, undefined], results: [[{ n: 1 }]] },
    { args: [3, { ...page, state: 'canceled' }, undefined], results: [[{ n: 1 }]] },
  ],
  findDeployment: [[3, 21]],
  countLatestTasks: [
    [3, [61, 62], undefined],
    [3, [61, 62], DEPARTMENT],
  ],
  listLatestTasks: [[3, 61, DEPARTMENT]],
  listLatestTasksIn: [[3, 61, ['failed', 'timeout', 'expired'], undefined]],
  cancelOpenTasks: [
    [3, 61, undefined],
    [3, 61, DEPARTMENT],
  ],
  setCanceledAt: [
    [3, 21, new Date('2026-01-01T00:00:00Z')],
    [3, 21, null],
  ],
  storeInventory: [{ args: [3, 101, inventory] }, { args: [3, 101, inventory], results: [[{ hash: inventory.hash }]] }],
  readInventory: [[3, 101]],
  installedOn: [
    [3, 'app', 'com.shop.kiosk', [101, 102]],
    [3, 'model', 'face-detect', [101, 102]],
  ],
  listReporting: [[3, [101, 102]]],
  countInstalledVersions: [
    [3, installed, undefined],
    [3, { ...installed, kind: 'model', identifier: 'face-detect' }, DEPARTMENT],
  ],
  listInstalledDevices: [
    [3, installed, undefined],
    [3, { ...installed, versionName: '3.1' }, DEPARTMENT],
  ],
  countInstalledDevices: [
    { args: [3, { ...installed, pageNo: 3, versionName: '3.1' }, undefined], results: [[{ n: 0 }]] },
  ],
  listRequired: [[3]],
  listRequiredForPolicy: [[3]],
  listTenantsWithRequired: [[]],
  replaceRequired: [
    [3, [{ identifier: 'com.shop.kiosk', minVersionCode: 30 }], 12],
    [3, [], 12],
  ],
  countMissing: [
    { args: [3, 'com.shop.kiosk', 31, undefined], results: [[{ n: 2 }]] },
    { args: [3, 'com.shop.kiosk', 31, DEPARTMENT], results: [[{ n: 1 }]] },
  ],
  lockPolicy: [[3]],
  listDevicesLacking: [
    [3, 'com.shop.kiosk', 31, undefined],
    [3, 'com.shop.kiosk', 31, [101]],
  ],
});
