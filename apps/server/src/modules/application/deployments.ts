import {
  DEPLOYMENT_EXPIRE_DEFAULT_S,
  DEPLOYMENT_MAX_DEVICES,
  OPEN_TASK_STATES,
  TASK_STATES,
  type DeploymentCreated,
  type DeploymentDetail,
  type DeploymentKind,
  type DeploymentView,
  type DeployablePackage,
  type Paged,
  type TaskState,
  type TaskType,
  type deploymentBody,
  type deploymentListQuery,
} from '@cpc/contracts';
import type { z } from 'zod';
import type { ScopedCaller } from '../../lib/data-scope.ts';
import { changedFields } from '../../lib/audit.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { ChangedTask, EventSink, TaskService } from '../task/index.ts';
import type { ApplicationRepository, DeployedPackage, DeploymentRow } from './repository/index.ts';

const FAILED: TaskState[] = ['failed', 'timeout', 'expired'];
export const iso = (d: Date | string) => new Date(d).toISOString();
const taskTypeOf = (kind: DeploymentKind, action: 'install' | 'uninstall'): TaskType =>
  kind === 'model' ? 'deploy_model' : action === 'install' ? 'install_app' : 'uninstall_app';

/** Every state counted, 0 when none. */
function stateCounts(rows: Array<{ state: TaskState; n: number | string | bigint }>) {
  const counts = Object.fromEntries(TASK_STATES.map((s) => [s, 0])) as Record<TaskState, number>;
  for (const r of rows) counts[r.state] += Number(r.n);
  return { total: Object.values(counts).reduce((a, b) => a + b, 0), counts };
}

/** Who records a deployment: a user (or the policy: no user, no address). */
export interface Recorder {
  id: number | null;
  tenantId: number;
  ip: string;
}

/** A deployment to record: what it installs or removes, on which devices, and why. */
export interface NewDeployment {
  kind: DeploymentKind;
  action: 'install' | 'uninstall';
  pkg: DeployedPackage | null;
  identifier: string;
  deviceIds: number[];
  targets: { deviceIds: number[]; groupIds: number[] };
  allowDowngrade: boolean;
  expireInSec: number;
  source: 'manual' | 'policy';
}

/** What each device's task of a deployment carries. */
function taskParams(depId: number, d: NewDeployment): Record<string, unknown> {
  if (d.action === 'install' && d.pkg)
    return {
      deploymentId: depId,
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
    };
  return { deploymentId: depId, action: 'uninstall', kind: d.kind, identifier: d.identifier };
}

/**
 * Deployments of apps and models (issue 15): one `device_tasks` row per device under a `task_batches` row, named
 * by an `app_deployments` row. Its progress and state are read from its tasks, so nothing here can fall out of step
 * when a node dies; the task service tracks each device (queued → sent → delivered → running → succeeded | failed).
 */
export class Deployments {
  constructor(
    private repo: ApplicationRepository,
    private tasks: TaskService,
    private events: EventSink,
  ) {}

  async create(u: ScopedCaller, body: z.output<typeof deploymentBody>): Promise<DeploymentCreated> {
    if (!body.deviceIds.length && !body.groupIds.length) throw badRequest('deviceIds', 'application.targetsRequired');
    let pkg: DeployedPackage | null = null;
    if (body.packageId) {
      pkg = (await this.repo.findLivePackage(u.tenantId, body.packageId)) ?? null;
      if (!pkg) throw notFound('software package');
      if (pkg.kind !== body.kind) throw badRequest('packageId', 'application.kindMismatch', { kind: body.kind });
    } else if (body.action === 'install') throw badRequest('packageId', 'application.packageRequired');
    const identifier = pkg?.identifier ?? body.identifier;
    if (!identifier) throw badRequest('identifier', 'application.identifierRequired');

    const deviceIds = await this.resolveTargets(u, body.deviceIds, body.groupIds);
    if (!deviceIds.length) throw badRequest('groupIds', 'application.noDevices');
    if (deviceIds.length > DEPLOYMENT_MAX_DEVICES)
      throw badRequest('deviceIds', 'application.tooManyDevices', { max: DEPLOYMENT_MAX_DEVICES });

    const installed = await this.repo.installedOn(u.tenantId, body.kind, identifier, deviceIds);
    let downgrades = 0;
    let targets = deviceIds;
    let skipped = 0;
    if (body.action === 'install' && body.kind === 'app' && pkg) {
      const code = Number(pkg.version_code);
      downgrades = [...installed.values()].filter((v) => v !== null && v > code).length;
    }
    if (body.action === 'uninstall') {
      // a device whose last inventory lacks it has nothing to remove: no task (one without any inventory gets it)
      const reporting = await this.repo.listReporting(u.tenantId, deviceIds);
      targets = deviceIds.filter((d) => installed.has(d) || !reporting.has(d));
      skipped = deviceIds.length - targets.length;
      if (!targets.length) throw badRequest('identifier', 'application.notInstalled');
    }
    const { id, rows } = await this.record(this.repo, u, {
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
  private async resolveTargets(u: ScopedCaller, deviceIds: number[], groupIds: number[]): Promise<number[]> {
    const out = new Set<number>();
    if (deviceIds.length) {
      const found = await this.repo.listDevicesInScope(u.tenantId, deviceIds, u.devices);
      if (found.length !== new Set(deviceIds).size) throw notFound('device');
      found.forEach((id) => out.add(id));
    }
    if (groupIds.length) {
      const groups = await this.repo.listGroups(u.tenantId, groupIds);
      if (groups.length !== new Set(groupIds).size) throw notFound('group');
      (await this.repo.listGroupDevices(u.tenantId, groupIds, u.devices)).forEach((id) => out.add(id));
    }
    return [...out].sort((a, b) => a - b);
  }

  /**
   * One deployment: its batch, its row, a task per device, the audit entry, in one transaction (`repo`'s when it
   * is bound to one); the caller announces and sends the tasks once committed (`afterCommit`).
   */
  async record(
    repo: ApplicationRepository,
    u: Recorder,
    d: NewDeployment,
  ): Promise<{ id: number; rows: ChangedTask[] }> {
    const type = taskTypeOf(d.kind, d.action);
    const expireAt = new Date(Date.now() + d.expireInSec * 1000);
    return repo.transaction(async (tx) => {
      const batchId = await tx.insertBatch(u.tenantId, { type, targets: d.targets, createdBy: u.id });
      const install = d.action === 'install';
      const depId = await tx.insertDeployment(u.tenantId, {
        batch_id: batchId,
        kind: d.kind,
        action: d.action,
        package_id: install ? (d.pkg?.id ?? null) : null,
        identifier: d.identifier,
        version_name: install ? (d.pkg?.version_name ?? '') : '',
        version_code: install ? Number(d.pkg?.version_code ?? 0) : 0,
        targets: d.targets,
        source: d.source,
        created_by: u.id,
      });
      const params = taskParams(depId, d);
      const rows = await tx.enqueueTasks(
        u.tenantId,
        d.deviceIds.map((deviceId) => ({ deviceId, type, params, expireAt, createdBy: u.id, batchId })),
      );
      await tx.audit({
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: `application.${d.action}`,
        resource: 'app_deployment',
        resourceId: depId,
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
      return { id: depId, rows };
    });
  }

  /** Committed tasks are announced, the consoles told, and the tasks sent. */
  async afterCommit(tenantId: number, rows: ChangedTask[]): Promise<void> {
    if (!rows.length) return;
    this.tasks.announce(rows);
    this.events.publish(tenantId, { type: 'application', data: { deviceIds: rows.map((r) => Number(r.device_id)) } });
    await this.tasks.dispatch(rows.map((r) => r.id));
  }

  async list(u: ScopedCaller, q: z.output<typeof deploymentListQuery>): Promise<Paged<DeploymentView>> {
    const { rows, total } = await this.repo.listDeployments(u.tenantId, q, u.devices);
    return { list: await this.views(u, rows), total };
  }

  private async views(u: ScopedCaller, rows: DeploymentRow[]): Promise<DeploymentView[]> {
    if (!rows.length) return [];
    const batchIds = rows.map((r) => Number(r.batch_id));
    const counts = await this.repo.countLatestTasks(u.tenantId, batchIds, u.devices);
    const pkgIds = rows.map((r) => r.package_id).filter((x) => x != null);
    const names = pkgIds.length ? await this.repo.packageNames(u.tenantId, pkgIds) : new Map<number, string>();
    const userIds = rows.map((r) => r.created_by).filter((x) => x != null);
    const users = userIds.length ? await this.repo.usernames(userIds) : new Map<number, string>();
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

  private async row(u: ScopedCaller, id: number): Promise<DeploymentRow> {
    const row = await this.repo.findDeployment(u.tenantId, id);
    if (!row) throw notFound('deployment');
    return row;
  }

  async detail(u: ScopedCaller, id: number): Promise<DeploymentDetail> {
    const row = await this.row(u, id);
    const rows = await this.repo.listLatestTasks(u.tenantId, Number(row.batch_id), u.devices);
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
  async cancel(u: ScopedCaller, id: number): Promise<{ id: number; tasks: number }> {
    const row = await this.row(u, id);
    const rows = await this.repo.transaction(async (tx) => {
      const rows = await tx.cancelOpenTasks(u.tenantId, Number(row.batch_id), u.devices);
      if (!rows.length) throw new AppError(400, 'application.notCancelable', undefined, { field: 'id' });
      await tx.setCanceledAt(u.tenantId, id, new Date());
      await tx.audit({
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
  async retry(u: ScopedCaller, id: number): Promise<{ id: number; tasks: number }> {
    const row = await this.row(u, id);
    const batchId = Number(row.batch_id);
    const failed = await this.repo.listLatestTasksIn(u.tenantId, batchId, FAILED, u.devices);
    if (!failed.length) throw new AppError(400, 'application.nothingToRetry', undefined, { field: 'id' });
    const expireAt = new Date(Date.now() + DEPLOYMENT_EXPIRE_DEFAULT_S * 1000);
    const rows = await this.repo.transaction(async (tx) => {
      const rows = await tx.enqueueTasks(
        u.tenantId,
        failed.map((f) => ({
          deviceId: Number(f.device_id),
          type: f.type,
          params: f.params,
          expireAt,
          createdBy: u.id,
          batchId,
        })),
      );
      await tx.setCanceledAt(u.tenantId, id, null);
      await tx.audit({
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
  async packages(u: ScopedCaller, kind: DeploymentKind): Promise<DeployablePackage[]> {
    const rows = await this.repo.listDeployablePackages(u.tenantId, kind);
    return rows.map((r) => ({
      id: Number(r.id),
      name: r.name,
      identifier: r.identifier,
      versionName: r.version_name,
      versionCode: Number(r.version_code),
      size: Number(r.size),
    }));
  }
}
