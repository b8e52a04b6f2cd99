import type { ScopedCaller } from '../../lib/data-scope.ts';
import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import {
  DEPLOYMENT_EXPIRE_DEFAULT_S,
  DEPLOYMENT_MAX_DEVICES,
  OPEN_TASK_STATES,
  REQUIRED_APP_MAX_ATTEMPTS,
  TASK_STATES,
  type DeploymentCreated,
  type DeploymentDetail,
  type DeploymentKind,
  type DeploymentView,
  type DeployablePackage,
  type DeviceInventory,
  type InstalledResult,
  type Paged,
  type RequiredApp,
  type TaskState,
  type TaskType,
  deploymentBody,
  deploymentListQuery,
  installedQuery,
  requiredAppsBody,
} from '@cpc/contracts';
import type { InventoryMsg } from '@cpc/contracts/device-protocol';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { enqueueTasks, type ChangedTask, type EventSink, type TaskService } from '../task/index.ts';

/** Who asks: the tenant's scope, the user, and the devices its data scope reaches (absent: all of the tenant's). */
/** The caller and its data scope (`scopedCaller`). */
export type AppCaller = ScopedCaller;

const FAILED: TaskState[] = ['failed', 'timeout', 'expired'];
const iso = (d: Date | string) => new Date(d).toISOString();
const taskTypeOf = (kind: DeploymentKind, action: 'install' | 'uninstall'): TaskType =>
  kind === 'model' ? 'deploy_model' : action === 'install' ? 'install_app' : 'uninstall_app';

/** Every state counted, 0 when none. */
function stateCounts(rows: Array<{ state: TaskState; n: number | string | bigint }>) {
  const counts = Object.fromEntries(TASK_STATES.map((s) => [s, 0])) as Record<TaskState, number>;
  for (const r of rows) counts[r.state] += Number(r.n);
  return { total: Object.values(counts).reduce((a, b) => a + b, 0), counts };
}

/**
 * Deployments of apps and models (issue 15): one `device_tasks` row per device under a `task_batches` row, named
 * by an `app_deployments` row. Its progress and state are read from its tasks, so nothing here can fall out of step
 * when a node dies; the task service tracks each device (queued → sent → delivered → running → succeeded | failed).
 */
export class ApplicationService {
  constructor(
    private db: Db,
    private tasks: TaskService,
    private events: EventSink,
  ) {}

  // ----------------------------------------------------------------------------------------------------------
  // Deployments

  async create(u: AppCaller, body: z.output<typeof deploymentBody>): Promise<DeploymentCreated> {
    const { scope } = u;
    if (!body.deviceIds.length && !body.groupIds.length) throw badRequest('deviceIds', 'application.targetsRequired');
    let pkg: {
      id: number;
      kind: string;
      identifier: string;
      version_name: string;
      version_code: string | number;
      size: string | number;
      sha256: string;
      name: string;
    } | null = null;
    if (body.packageId) {
      pkg =
        (await scope
          .selectFrom('packages')
          .select(['id', 'kind', 'identifier', 'version_name', 'version_code', 'size', 'sha256', 'name'])
          .where('packages.id', '=', body.packageId)
          .where('packages.deleted_at', 'is', null)
          .executeTakeFirst()) ?? null;
      if (!pkg) throw notFound('software package');
      if (pkg.kind !== body.kind) throw badRequest('packageId', 'application.kindMismatch', { kind: body.kind });
    } else if (body.action === 'install') throw badRequest('packageId', 'application.packageRequired');
    const identifier = pkg?.identifier ?? body.identifier;
    if (!identifier) throw badRequest('identifier', 'application.identifierRequired');

    const deviceIds = await this.resolveTargets(u, body.deviceIds, body.groupIds);
    if (!deviceIds.length) throw badRequest('groupIds', 'application.noDevices');
    if (deviceIds.length > DEPLOYMENT_MAX_DEVICES)
      throw badRequest('deviceIds', 'application.tooManyDevices', { max: DEPLOYMENT_MAX_DEVICES });

    const installed = await this.installedOn(scope, body.kind, identifier, deviceIds);
    let downgrades = 0;
    let targets = deviceIds;
    let skipped = 0;
    if (body.action === 'install' && body.kind === 'app' && pkg) {
      const code = Number(pkg.version_code);
      downgrades = [...installed.values()].filter((v) => v !== null && v > code).length;
    }
    if (body.action === 'uninstall') {
      // a device whose last inventory lacks it has nothing to remove: no task (one without any inventory gets it)
      const reporting = await this.reporting(scope, deviceIds);
      targets = deviceIds.filter((d) => installed.has(d) || !reporting.has(d));
      skipped = deviceIds.length - targets.length;
      if (!targets.length) throw badRequest('identifier', 'application.notInstalled');
    }
    const { id, rows } = await this.insertDeployment(u, {
      kind: body.kind,
      action: body.action,
      pkg,
      identifier,
      deviceIds: targets,
      targets: { deviceIds: body.deviceIds, groupIds: body.groupIds },
      allowDowngrade: body.allowDowngrade,
      expireInSec: body.expireInSec ?? DEPLOYMENT_EXPIRE_DEFAULT_S,
      source: 'manual',
    });
    await this.afterCommit(u.tenantId, rows);
    return { id, devices: targets.length, downgrades, skipped };
  }

  /** The explicit devices (each inside the caller's reach, else 404) and those of the groups and their sub-groups. */
  private async resolveTargets(u: AppCaller, deviceIds: number[], groupIds: number[]): Promise<number[]> {
    const inScope = u.devices ?? sql<boolean>`true`;
    const out = new Set<number>();
    if (deviceIds.length) {
      const found = await u.scope
        .selectFrom('devices')
        .select('devices.id')
        .where('devices.id', 'in', deviceIds)
        .where(inScope)
        .execute();
      if (found.length !== new Set(deviceIds).size) throw notFound('device');
      found.forEach((r) => out.add(Number(r.id)));
    }
    if (groupIds.length) {
      const groups = await u.scope
        .selectFrom('device_groups')
        .select('device_groups.id')
        .where('device_groups.id', 'in', groupIds)
        .execute();
      if (groups.length !== new Set(groupIds).size) throw notFound('group');
      const { rows } = await sql<{ id: number }>`
        WITH RECURSIVE g AS (
          SELECT id FROM device_groups WHERE tenant_id = ${u.scope.tenantId} AND id = ANY(${groupIds}::bigint[])
          UNION
          SELECT c.id FROM device_groups c JOIN g ON c.parent_id = g.id WHERE c.tenant_id = ${u.scope.tenantId}
        )
        SELECT devices.id FROM devices
        WHERE devices.tenant_id = ${u.scope.tenantId} AND devices.group_id IN (SELECT id FROM g) AND ${inScope}`.execute(
        u.scope.db,
      );
      rows.forEach((r) => out.add(Number(r.id)));
    }
    return [...out].sort((a, b) => a - b);
  }

  /** Device → installed version code (models: 0) of `identifier`, for the devices that have it. */
  private async installedOn(
    scope: TenantScope,
    kind: DeploymentKind,
    identifier: string,
    deviceIds: number[],
  ): Promise<Map<number, number | null>> {
    if (!deviceIds.length) return new Map();
    if (kind === 'app') {
      const rows = await scope
        .selectFrom('device_apps')
        .select(['device_apps.device_id', 'device_apps.version_code'])
        .where('device_apps.pkg', '=', identifier)
        .where('device_apps.device_id', 'in', deviceIds)
        .execute();
      return new Map(rows.map((r) => [Number(r.device_id), Number(r.version_code)]));
    }
    const rows = await scope
      .selectFrom('device_ai_models')
      .select('device_ai_models.device_id')
      .where('device_ai_models.name', '=', identifier)
      .where('device_ai_models.device_id', 'in', deviceIds)
      .execute();
    return new Map(rows.map((r) => [Number(r.device_id), null]));
  }

  private async reporting(scope: TenantScope, deviceIds: number[]): Promise<Set<number>> {
    const rows = await scope
      .selectFrom('device_inventory')
      .select('device_inventory.device_id')
      .where('device_inventory.device_id', 'in', deviceIds)
      .execute();
    return new Set(rows.map((r) => Number(r.device_id)));
  }

  /** One deployment: its batch, its row, a task per device, the audit entry; announced and sent once committed. */
  private async insertDeployment(
    u: { id: number | null; tenantId: number; scope: TenantScope; ip: string },
    d: {
      kind: DeploymentKind;
      action: 'install' | 'uninstall';
      pkg: {
        id: number;
        name: string;
        identifier: string;
        version_name: string;
        version_code: string | number;
        size: string | number;
        sha256: string;
      } | null;
      identifier: string;
      deviceIds: number[];
      targets: { deviceIds: number[]; groupIds: number[] };
      allowDowngrade: boolean;
      expireInSec: number;
      source: 'manual' | 'policy';
    },
  ): Promise<{ id: number; rows: ChangedTask[] }> {
    const type = taskTypeOf(d.kind, d.action);
    const expireAt = new Date(Date.now() + d.expireInSec * 1000);
    const { id, rows } = await u.scope.transaction(async (tx) => {
      const batch = await tx
        .insertInto('task_batches', { type, targets: JSON.stringify(d.targets), created_by: u.id })
        .returning('id')
        .executeTakeFirstOrThrow();
      const dep = await tx
        .insertInto('app_deployments', {
          batch_id: batch.id,
          kind: d.kind,
          action: d.action,
          package_id: d.action === 'install' ? (d.pkg?.id ?? null) : null,
          identifier: d.identifier,
          version_name: d.action === 'install' ? (d.pkg?.version_name ?? '') : '',
          version_code: d.action === 'install' ? Number(d.pkg?.version_code ?? 0) : 0,
          targets: JSON.stringify(d.targets),
          source: d.source,
          created_by: u.id,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const params =
        d.action === 'install' && d.pkg
          ? {
              deploymentId: Number(dep.id),
              action: 'install',
              packageId: Number(d.pkg.id),
              kind: d.kind,
              identifier: d.pkg.identifier,
              name: d.pkg.name,
              versionName: d.pkg.version_name,
              versionCode: Number(d.pkg.version_code),
              size: Number(d.pkg.size),
              sha256: d.pkg.sha256,
              allowDowngrade: d.allowDowngrade,
              ...(d.source === 'policy' ? { policy: true } : {}),
            }
          : { deploymentId: Number(dep.id), action: 'uninstall', kind: d.kind, identifier: d.identifier };
      const rows = await enqueueTasks(
        tx,
        d.deviceIds.map((deviceId) => ({
          deviceId,
          type,
          params,
          expireAt,
          createdBy: u.id,
          batchId: Number(batch.id),
        })),
      );
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: `application.${d.action}`,
        resource: 'app_deployment',
        resourceId: Number(dep.id),
        result: 'ok',
        changes: changedFields(
          {},
          {
            kind: d.kind,
            identifier: d.identifier,
            versionName: d.pkg?.version_name ?? null,
            source: d.source,
            deviceIds: d.deviceIds,
            groupIds: d.targets.groupIds,
          },
        ),
      });
      return { id: Number(dep.id), rows };
    });
    return { id, rows };
  }

  private async afterCommit(tenantId: number, rows: ChangedTask[]): Promise<void> {
    if (!rows.length) return;
    this.tasks.announce(rows);
    this.events.publish(tenantId, { type: 'application', data: { deviceIds: rows.map((r) => Number(r.device_id)) } });
    await this.tasks.dispatch(rows.map((r) => r.id));
  }

  /** The deployment's tasks that the caller reaches: the latest task of each device (a retry makes a newer one). */
  private latestTasks(u: AppCaller, batchIds: number[]) {
    const inScope = u.devices
      ? sql<boolean>`t.device_id in (select devices.id from devices where devices.tenant_id = ${u.tenantId} and ${u.devices})`
      : sql<boolean>`true`;
    return sql`(SELECT DISTINCT ON (t.batch_id, t.device_id) t.* FROM device_tasks t
      WHERE t.tenant_id = ${u.tenantId} AND t.batch_id = ANY(${batchIds}::bigint[]) AND ${inScope}
      ORDER BY t.batch_id, t.device_id, t.created_at DESC, t.id DESC)`;
  }

  async list(u: AppCaller, q: z.output<typeof deploymentListQuery>): Promise<Paged<DeploymentView>> {
    const inScope = u.devices
      ? sql<boolean>`exists (select 1 from device_tasks t join devices on devices.id = t.device_id
          where t.batch_id = app_deployments.batch_id and ${u.devices})`
      : sql<boolean>`true`;
    const open = sql<boolean>`exists (select 1 from device_tasks t where t.batch_id = app_deployments.batch_id
      and t.state in ('queued','sent','delivered','running','timeout'))`;
    let base = u.scope.selectFrom('app_deployments').where(inScope);
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
    return { list: await this.views(u, rows), total: Number(total.n) };
  }

  private async views(u: AppCaller, rows: Array<Record<string, any>>): Promise<DeploymentView[]> {
    if (!rows.length) return [];
    const batchIds = rows.map((r) => Number(r.batch_id));
    const { rows: counts } = await sql<{ batch_id: string; state: TaskState; n: string }>`
      SELECT lt.batch_id, lt.state, count(*) AS n FROM ${this.latestTasks(u, batchIds)} lt GROUP BY lt.batch_id, lt.state`.execute(
      u.scope.db,
    );
    const pkgIds = rows.map((r) => r.package_id).filter((x) => x != null);
    const names = new Map<number, string>();
    if (pkgIds.length) {
      const ps = await u.scope
        .selectFrom('packages')
        .select(['id', 'name'])
        .where('packages.id', 'in', pkgIds)
        .execute();
      ps.forEach((p) => names.set(Number(p.id), p.name));
    }
    const userIds = rows.map((r) => r.created_by).filter((x) => x != null);
    const users = new Map<number, string>();
    if (userIds.length) {
      const us = await this.db.selectFrom('users').select(['id', 'username']).where('id', 'in', userIds).execute();
      us.forEach((x) => users.set(Number(x.id), x.username));
    }
    return rows.map((r) => {
      const c = stateCounts(counts.filter((x) => Number(x.batch_id) === Number(r.batch_id)));
      const open = OPEN_TASK_STATES.reduce((a, s) => a + c.counts[s], 0);
      const targets = (r.targets ?? {}) as { deviceIds?: number[]; groupIds?: number[] };
      return {
        id: Number(r.id),
        kind: r.kind,
        action: r.action,
        packageId: r.package_id == null ? null : Number(r.package_id),
        name: (r.package_id != null && names.get(Number(r.package_id))) || r.identifier,
        identifier: r.identifier,
        versionName: r.version_name,
        versionCode: Number(r.version_code),
        targets: { deviceIds: targets.deviceIds ?? [], groupIds: targets.groupIds ?? [] },
        source: r.source,
        state: r.canceled_at ? 'canceled' : open > 0 ? 'running' : 'done',
        total: c.total,
        counts: c.counts,
        createdBy: r.created_by == null ? '' : (users.get(Number(r.created_by)) ?? ''),
        createdAt: iso(r.created_at),
      } satisfies DeploymentView;
    });
  }

  private async row(u: AppCaller, id: number) {
    const row = await u.scope
      .selectFrom('app_deployments')
      .selectAll()
      .where('app_deployments.id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound('deployment');
    return row;
  }

  async detail(u: AppCaller, id: number): Promise<DeploymentDetail> {
    const row = await this.row(u, id);
    const { rows } = await sql<{
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
    }>`SELECT lt.id, lt.device_id, d.sn, d.name, d.status, lt.state, lt.stage, lt.progress, lt.error, lt.attempts, lt.updated_at
       FROM ${this.latestTasks(u, [Number(row.batch_id)])} lt JOIN devices d ON d.id = lt.device_id
       ORDER BY d.sn`.execute(u.scope.db);
    if (u.devices && !rows.length) throw notFound('deployment');
    const [view] = await this.views(u, [row]);
    return {
      ...view,
      devices: rows.map((r) => ({
        taskId: r.id,
        deviceId: Number(r.device_id),
        deviceSn: r.sn,
        deviceName: r.name,
        online: r.status === 'online',
        state: r.state,
        stage: r.stage,
        progress: r.progress,
        error: r.error,
        attempts: r.attempts,
        updatedAt: iso(r.updated_at),
      })),
    };
  }

  /** Cancels the unfinished tasks (of the devices the caller reaches); the finished ones keep their outcome. */
  async cancel(u: AppCaller, id: number): Promise<{ id: number; tasks: number }> {
    const row = await this.row(u, id);
    const inScope = u.devices
      ? sql<boolean>`device_tasks.device_id in (select devices.id from devices where devices.tenant_id = ${u.tenantId} and ${u.devices})`
      : sql<boolean>`true`;
    const rows = await u.scope.transaction(async (tx) => {
      const rows = await tx
        .updateTable('device_tasks')
        .set({ state: 'canceled', error: 'canceled by the user', finished_at: new Date(), updated_at: new Date() })
        .where('device_tasks.batch_id', '=', row.batch_id)
        .where('device_tasks.state', 'in', OPEN_TASK_STATES)
        .where(inScope)
        .returningAll()
        .execute();
      if (!rows.length) throw new AppError(400, 'application.notCancelable', undefined, { field: 'id' });
      await tx
        .updateTable('app_deployments')
        .set({ canceled_at: new Date() })
        .where('app_deployments.id', '=', id)
        .execute();
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'application.cancel',
        resource: 'app_deployment',
        resourceId: id,
        result: 'ok',
        changes: changedFields({ canceled: false, openTasks: rows.length }, { canceled: true, openTasks: 0 }),
      });
      return rows;
    });
    this.tasks.announce(rows);
    this.events.publish(u.tenantId, { type: 'application', data: { deviceIds: rows.map((r) => Number(r.device_id)) } });
    return { id, tasks: rows.length };
  }

  /** Sends the deployment again to each device whose latest task failed, timed out or expired (a new task each). */
  async retry(u: AppCaller, id: number): Promise<{ id: number; tasks: number }> {
    const row = await this.row(u, id);
    const { rows: failed } = await sql<{ device_id: string; type: TaskType; params: Record<string, unknown> }>`
      SELECT lt.device_id, lt.type, lt.params FROM ${this.latestTasks(u, [Number(row.batch_id)])} lt
      WHERE lt.state = ANY(${FAILED}::text[])`.execute(u.scope.db);
    if (!failed.length) throw new AppError(400, 'application.nothingToRetry', undefined, { field: 'id' });
    const expireAt = new Date(Date.now() + DEPLOYMENT_EXPIRE_DEFAULT_S * 1000);
    const rows = await u.scope.transaction(async (tx) => {
      const rows = await enqueueTasks(
        tx,
        failed.map((f) => ({
          deviceId: Number(f.device_id),
          type: f.type,
          params: f.params,
          expireAt,
          createdBy: u.id,
          batchId: Number(row.batch_id),
        })),
      );
      await tx.updateTable('app_deployments').set({ canceled_at: null }).where('app_deployments.id', '=', id).execute();
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'application.retry',
        resource: 'app_deployment',
        resourceId: id,
        result: 'ok',
        changes: changedFields({ failed: rows.length }, { failed: 0, retried: rows.map((r) => Number(r.device_id)) }),
      });
      return rows;
    });
    await this.afterCommit(u.tenantId, rows);
    return { id, tasks: rows.length };
  }

  /** Every undeleted version of the kind (at most 500), for the install drawer's picker. */
  async packages(u: AppCaller, kind: DeploymentKind): Promise<DeployablePackage[]> {
    const rows = await u.scope
      .selectFrom('packages')
      .select(['id', 'name', 'identifier', 'version_name', 'version_code', 'size'])
      .where('packages.kind', '=', kind)
      .where('packages.deleted_at', 'is', null)
      .orderBy('packages.identifier')
      .orderBy('packages.version_code', 'desc')
      .orderBy('packages.id', 'desc')
      .limit(500)
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      identifier: r.identifier,
      versionName: r.version_name,
      versionCode: Number(r.version_code),
      size: Number(r.size),
    }));
  }

  // ----------------------------------------------------------------------------------------------------------
  // Inventory

  /**
   * A device's inventory (the gateway calls it for each `inventory` message): stored only when it changed (a hash
   * of the sorted lists), then the required-apps policy is applied to the device.
   */
  async onInventory(deviceId: number, msg: InventoryMsg): Promise<void> {
    const dev = await this.db.selectFrom('devices').select(['tenant_id']).where('id', '=', deviceId).executeTakeFirst();
    if (!dev?.tenant_id) return; // not bound: nobody to show it to
    const tenantId = Number(dev.tenant_id);
    const scope = new TenantScope(this.db, tenantId);
    const apps = [...new Map(msg.apps.map((a) => [a.pkg, a])).values()].sort((a, b) => a.pkg.localeCompare(b.pkg));
    const models = [...new Map(msg.models.map((m) => [m.name, m])).values()].sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    const hash = createHash('sha256')
      .update(JSON.stringify({ apps, models: models.map((m) => ({ ...m, framework: m.framework ?? '' })) }))
      .digest('hex');
    const changed = await scope.transaction(async (tx) => {
      const before = await tx
        .selectFrom('device_inventory')
        .select('device_inventory.hash')
        .where('device_inventory.device_id', '=', deviceId)
        .forUpdate()
        .executeTakeFirst();
      if (before?.hash === hash) return false;
      await tx.deleteFrom('device_apps').where('device_apps.device_id', '=', deviceId).execute();
      await tx.deleteFrom('device_ai_models').where('device_ai_models.device_id', '=', deviceId).execute();
      if (apps.length)
        await tx
          .insertInto(
            'device_apps',
            apps.map((a) => ({
              device_id: deviceId,
              pkg: a.pkg,
              name: a.name,
              version_code: a.versionCode,
              version_name: a.versionName,
            })),
          )
          .execute();
      if (models.length)
        await tx
          .insertInto(
            'device_ai_models',
            models.map((m) => ({
              device_id: deviceId,
              name: m.name,
              version: m.version,
              framework: m.framework ?? '',
            })),
          )
          .execute();
      const values = {
        hash,
        storage_free_mb: msg.storageFreeMb ?? null,
        reported_at: new Date(),
        changed_at: new Date(),
      };
      await tx
        .insertInto('device_inventory', { device_id: deviceId, ...values })
        .onConflict((oc) => oc.column('device_id').doUpdateSet(values))
        .execute();
      return true;
    });
    if (changed) this.events.publish(tenantId, { type: 'application', data: { deviceIds: [deviceId] } });
    await this.applyPolicy(tenantId, [deviceId]);
  }

  async inventory(u: AppCaller, deviceId: number): Promise<DeviceInventory> {
    const dev = await u.scope
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', '=', deviceId)
      .where(u.devices ?? sql<boolean>`true`)
      .executeTakeFirst();
    if (!dev) throw notFound('device');
    const [inv, apps, models] = await Promise.all([
      u.scope
        .selectFrom('device_inventory')
        .selectAll()
        .where('device_inventory.device_id', '=', deviceId)
        .executeTakeFirst(),
      u.scope
        .selectFrom('device_apps')
        .selectAll()
        .where('device_apps.device_id', '=', deviceId)
        .orderBy('pkg')
        .execute(),
      u.scope
        .selectFrom('device_ai_models')
        .selectAll()
        .where('device_ai_models.device_id', '=', deviceId)
        .orderBy('name')
        .execute(),
    ]);
    return {
      deviceId,
      reportedAt: inv ? iso(inv.reported_at) : null,
      storageFreeMb: inv?.storage_free_mb ?? null,
      apps: apps.map((a) => ({
        pkg: a.pkg,
        name: a.name,
        versionCode: Number(a.version_code),
        versionName: a.version_name,
      })),
      models: models.map((m) => ({ name: m.name, version: m.version, framework: m.framework })),
    };
  }

  /** "Which devices run version X": the devices with the app (or model), and how many run each version. */
  async installed(u: AppCaller, q: z.output<typeof installedQuery>): Promise<InstalledResult> {
    const inScope = u.devices ?? sql<boolean>`true`;
    const t = q.kind === 'app' ? 'device_apps' : 'device_ai_models';
    const key = q.kind === 'app' ? sql.ref('x.pkg') : sql.ref('x.name');
    const vName = q.kind === 'app' ? sql.ref('x.version_name') : sql.ref('x.version');
    const vCode = q.kind === 'app' ? sql`x.version_code` : sql`0`;
    const from = sql`${sql.table(t)} x JOIN devices ON devices.id = x.device_id
      WHERE x.tenant_id = ${u.tenantId} AND devices.tenant_id = ${u.tenantId} AND ${key} = ${q.identifier} AND ${inScope}`;
    const { rows: versions } = await sql<{ version_name: string; version_code: string; n: string }>`
      SELECT ${vName} AS version_name, max(${vCode}) AS version_code, count(*) AS n FROM ${from}
      GROUP BY ${vName} ORDER BY n DESC, version_name DESC`.execute(u.scope.db);
    const only = q.versionName ? sql`AND ${vName} = ${q.versionName}` : sql``;
    const { rows } = await sql<{
      id: string;
      sn: string;
      name: string;
      status: string;
      version_name: string;
      version_code: string;
      total: string;
    }>`SELECT devices.id, devices.sn, devices.name, devices.status, ${vName} AS version_name, ${vCode} AS version_code,
         count(*) OVER () AS total
       FROM ${from} ${only} ORDER BY devices.sn LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(
      u.scope.db,
    );
    let total = rows.length ? Number(rows[0].total) : 0;
    if (!rows.length && q.pageNo > 1) {
      const { rows: c } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${from} ${only}`.execute(u.scope.db);
      total = Number(c[0].n);
    }
    return {
      list: rows.map((r) => ({
        deviceId: Number(r.id),
        deviceSn: r.sn,
        deviceName: r.name,
        online: r.status === 'online',
        versionName: r.version_name,
        versionCode: Number(r.version_code),
      })),
      total,
      versions: versions.map((v) => ({
        versionName: v.version_name,
        versionCode: Number(v.version_code),
        devices: Number(v.n),
      })),
    };
  }

  // ----------------------------------------------------------------------------------------------------------
  // Required apps

  async requiredApps(u: { scope: TenantScope; devices?: RawBuilder<boolean> }): Promise<RequiredApp[]> {
    const req = await u.scope.selectFrom('required_apps').selectAll().orderBy('identifier').execute();
    const out: RequiredApp[] = [];
    for (const r of req) {
      const latest = await this.latestApp(u.scope, r.identifier);
      const min = r.min_version_code != null ? Number(r.min_version_code) : Number(latest?.version_code ?? 0);
      const inScope = u.devices ?? sql<boolean>`true`;
      const { rows } = await sql<{ n: string }>`
        SELECT count(*) AS n FROM device_inventory i JOIN devices ON devices.id = i.device_id
        WHERE i.tenant_id = ${u.scope.tenantId} AND ${inScope} AND NOT EXISTS (
          SELECT 1 FROM device_apps a WHERE a.device_id = i.device_id AND a.pkg = ${r.identifier} AND a.version_code >= ${min})`.execute(
        u.scope.db,
      );
      out.push({
        identifier: r.identifier,
        name: latest?.name ?? r.identifier,
        minVersionCode: r.min_version_code == null ? null : Number(r.min_version_code),
        latestVersionName: latest?.version_name ?? null,
        missing: Number(rows[0].n),
      });
    }
    return out;
  }

  private latestApp(scope: TenantScope, identifier: string) {
    return scope
      .selectFrom('packages')
      .select(['id', 'identifier', 'name', 'version_name', 'version_code', 'size', 'sha256'])
      .where('packages.kind', '=', 'app')
      .where('packages.identifier', '=', identifier)
      .where('packages.deleted_at', 'is', null)
      .orderBy('packages.version_code', 'desc')
      .orderBy('packages.id', 'desc')
      .executeTakeFirst();
  }

  /** Replaces the tenant's required apps, then sends them to the reporting devices that lack one. */
  async setRequired(
    u: AppCaller,
    body: z.output<typeof requiredAppsBody>,
  ): Promise<{ apps: RequiredApp[]; tasks: number }> {
    const seen = new Set<string>();
    for (const [i, a] of body.apps.entries()) {
      if (seen.has(a.identifier))
        throw badRequest(`apps.${i}.identifier`, 'application.duplicateApp', { identifier: a.identifier });
      seen.add(a.identifier);
      if (!(await this.latestApp(u.scope, a.identifier)))
        throw badRequest(`apps.${i}.identifier`, 'application.unknownApp', { identifier: a.identifier });
    }
    await u.scope.transaction(async (tx) => {
      const before = await tx
        .selectFrom('required_apps')
        .select(['identifier', 'min_version_code'])
        .orderBy('identifier')
        .execute();
      await tx.deleteFrom('required_apps').execute();
      if (body.apps.length)
        await tx
          .insertInto(
            'required_apps',
            body.apps.map((a) => ({ identifier: a.identifier, min_version_code: a.minVersionCode, created_by: u.id })),
          )
          .execute();
      const fmt = (rows: Array<{ identifier: string; min_version_code: unknown }>) =>
        rows.map((r) => `${r.identifier}${r.min_version_code == null ? '' : `>=${String(r.min_version_code)}`}`).sort();
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'application.requiredApps',
        resource: 'required_apps',
        result: 'ok',
        changes: changedFields(
          { apps: fmt(before) },
          { apps: fmt(body.apps.map((a) => ({ identifier: a.identifier, min_version_code: a.minVersionCode }))) },
        ),
      });
    });
    const tasks = await this.applyPolicy(u.tenantId);
    return { apps: await this.requiredApps(u), tasks };
  }

  /** Applies the policy of every tenant that has one (the periodic reconcile); answers the tasks sent. */
  async reconcilePolicy(): Promise<number> {
    const tenants = await this.db.selectFrom('required_apps').select('tenant_id').distinct().execute();
    let sent = 0;
    for (const t of tenants) sent += await this.applyPolicy(Number(t.tenant_id));
    return sent;
  }

  /**
   * The required-apps policy: each reporting device (of `deviceIds`, or all) that lacks a required app (or has it
   * below the minimum) gets an install of the newest uploaded version, unless an install of that app is still
   * open for it, or the policy's installs of it already failed REQUIRED_APP_MAX_ATTEMPTS times there. One
   * deployment (source 'policy') per app and run; an advisory lock per tenant keeps two runs from doubling up.
   */
  async applyPolicy(tenantId: number, deviceIds?: number[]): Promise<number> {
    const scope = new TenantScope(this.db, tenantId);
    const required = await scope.selectFrom('required_apps').selectAll().execute();
    let sent = 0;
    for (const r of required) {
      const latest = await this.latestApp(scope, r.identifier);
      if (!latest) continue;
      const min = r.min_version_code != null ? Number(r.min_version_code) : Number(latest.version_code);
      const picked = await scope.transaction(async (tx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`required-app:${tenantId}`}))`.execute(tx.db);
        const only = deviceIds ? sql`AND i.device_id = ANY(${deviceIds}::bigint[])` : sql``;
        const { rows } = await sql<{ device_id: string }>`
          SELECT i.device_id FROM device_inventory i
          WHERE i.tenant_id = ${tenantId} ${only}
            AND NOT EXISTS (SELECT 1 FROM device_apps a WHERE a.device_id = i.device_id AND a.pkg = ${r.identifier}
              AND a.version_code >= ${min})
            AND NOT EXISTS (SELECT 1 FROM device_tasks t WHERE t.device_id = i.device_id AND t.tenant_id = ${tenantId}
              AND t.type = 'install_app' AND t.params->>'identifier' = ${r.identifier}
              AND t.state IN ('queued','sent','delivered','running','timeout'))
            AND (SELECT count(*) FROM device_tasks t WHERE t.device_id = i.device_id AND t.tenant_id = ${tenantId}
              AND t.type = 'install_app' AND t.params->>'identifier' = ${r.identifier} AND t.params->>'policy' = 'true'
              AND t.state IN ('failed','timeout','expired')) < ${REQUIRED_APP_MAX_ATTEMPTS}
          ORDER BY i.device_id`.execute(tx.db);
        if (!rows.length) return [];
        const ids = rows.map((x) => Number(x.device_id));
        const made = await this.insertDeployment(
          { id: null, tenantId, scope: tx, ip: '' },
          {
            kind: 'app',
            action: 'install',
            pkg: latest,
            identifier: r.identifier,
            deviceIds: ids,
            targets: { deviceIds: ids, groupIds: [] },
            allowDowngrade: false,
            expireInSec: DEPLOYMENT_EXPIRE_DEFAULT_S,
            source: 'policy',
          },
        );
        return made.rows;
      });
      await this.afterCommit(tenantId, picked);
      sent += picked.length;
    }
    return sent;
  }
}
