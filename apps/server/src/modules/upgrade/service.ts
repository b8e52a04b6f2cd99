import type { FastifyBaseLogger } from 'fastify';
import type {
  FirmwareHistoryItem,
  Paged,
  ReleaseBody,
  ReleaseDetail,
  ReleaseDeviceItem,
  ReleaseItem,
  ReleasePreview,
  ReleaseState,
  ReleaseTargets,
  UpgradeDeviceState,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { isJsonObject } from '../../db/schema.ts';
import { changedFields } from '../../lib/audit.ts';
import type { DataAccess } from '../../lib/data-scope.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { ChangedTask, EventSink, TaskService } from '../task/index.ts';
import { ReleaseReads } from './reads.ts';
import { reconcileRelease } from './reconcile.ts';
import { UpgradeReadRepository, UpgradeRepository, type ReleaseRow } from './repository/index.ts';

/** Who acts: the tenant, the user (null: the system) and the client address, and the user's data scope. */
export interface UpgradeCaller {
  tenantId: number;
  userId: number;
  ip: string;
  access: DataAccess;
}

type ReleaseSet = Partial<Omit<ReleaseRow, 'id' | 'tenant_id'>> & { changed?: ChangedTask[] };

/**
 * Upgrade releases (issue 15). All of a release's progress is derived from `upgrade_devices` and the device tasks
 * they point at, by `reconcile(id)` — run when a task of the release changes (`onTaskChange`) and periodically on
 * one node — so a restart in the middle of a roll-out loses nothing: the next reconcile reads what devices did.
 * The statements are UpgradeRepository's (and UpgradeReadRepository's for the consoles' reads).
 */
export class UpgradeService {
  private pending = new Set<number>();
  private flushing: Promise<void> | null = null;
  private repo: UpgradeRepository;
  private reads: ReleaseReads;

  constructor(
    db: Db,
    private tasks: TaskService,
    private events: EventSink,
    private log: FastifyBaseLogger,
  ) {
    this.repo = new UpgradeRepository(db);
    this.reads = new ReleaseReads(new UpgradeReadRepository(db));
  }

  // -------------------------------------------------------------------------------------------------------------
  // Creating

  private async firmware(tenantId: number, id: number) {
    const pkg = await this.repo.findPackage(tenantId, id);
    if (!pkg) throw notFound('firmware');
    if (pkg.kind !== 'firmware') throw badRequest('packageId', 'upgrade.notFirmware', { id });
    return pkg;
  }

  /** The devices the targets name, inside the caller's data scope; an explicit device that does not fit → 400. */
  private async resolve(
    tenantId: number,
    access: DataAccess,
    targets: ReleaseTargets,
    fits: string[],
    version: string,
  ) {
    const explicit = targets.deviceIds?.length ? [...new Set(targets.deviceIds)] : null;
    let groupIds: number[] | undefined;
    if (!explicit) {
      if (!targets.models?.length && !targets.groupIds?.length && !targets.versions?.length)
        throw badRequest('targets', 'upgrade.noTargets');
      if (targets.groupIds?.length) {
        groupIds = [...new Set(targets.groupIds)];
        const found = await this.repo.existingGroups(tenantId, groupIds);
        if (found.length !== groupIds.length) throw notFound('group');
      }
    }
    const rows = await this.repo.targetDevices(tenantId, access, {
      deviceIds: explicit,
      models: targets.models,
      versions: targets.versions,
      groupIds,
    });
    if (explicit && rows.length !== explicit.length) throw notFound('device');
    const fitsModel = (code: string) => !fits.length || fits.includes(code);
    if (explicit) {
      const wrong = rows.find((r) => !fitsModel(r.code));
      if (wrong) throw badRequest('targets.deviceIds', 'upgrade.wrongModel', { sn: wrong.sn, model: wrong.code });
    }
    const compatible = rows.filter((r) => fitsModel(r.code));
    const matched = compatible.filter((r) => r.firmware !== version);
    return { matched, incompatible: rows.length - compatible.length, current: compatible.length - matched.length };
  }

  async preview(
    scope: TenantScope,
    access: DataAccess,
    packageId: number,
    targets: ReleaseTargets,
  ): Promise<ReleasePreview> {
    const pkg = await this.firmware(scope.tenantId, packageId);
    const r = await this.resolve(scope.tenantId, access, targets, pkg.models, pkg.version_name);
    return { matched: r.matched.length, incompatible: r.incompatible, current: r.current };
  }

  async create(u: UpgradeCaller, body: ReleaseBody): Promise<{ id: number; total: number; incompatible: number }> {
    const expireAt = new Date(body.expireAt);
    if (expireAt.getTime() <= Date.now()) throw badRequest('expireAt', 'upgrade.expired');
    const pkg = await this.firmware(u.tenantId, body.packageId);
    const { matched, incompatible } = await this.resolve(
      u.tenantId,
      u.access,
      body.targets,
      pkg.models,
      pkg.version_name,
    );
    if (!matched.length) throw badRequest('targets', 'upgrade.noDevices');
    // the canary: a random share of the devices (at least one when there is a canary at all)
    const shuffled = [...matched];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    const canary = body.canaryPercent ? Math.max(1, Math.round((matched.length * body.canaryPercent) / 100)) : 0;
    const id = await this.repo.transaction(async (tx) => {
      const releaseId = await tx.insertRelease(u.tenantId, {
        name: body.name,
        package_id: pkg.id,
        state: 'running',
        wave: canary ? 1 : 2,
        targets: JSON.stringify(body.targets),
        canary_percent: body.canaryPercent,
        soak_minutes: body.soakMinutes,
        throttle: body.throttle,
        window_start: body.window?.start ?? null,
        window_end: body.window?.end ?? null,
        fail_percent: body.failPercent,
        fail_min_count: body.failMinCount,
        expire_at: expireAt,
        created_by: u.userId,
      });
      await tx.insertReleaseDevices(
        u.tenantId,
        releaseId,
        shuffled.map((d, k) => ({ device_id: d.id, wave: k < canary ? 1 : 2, from_version: d.firmware })),
      );
      await tx.audit({
        tenantId: u.tenantId,
        userId: u.userId,
        ip: u.ip,
        action: 'upgrade.create',
        resource: 'upgrade_release',
        resourceId: releaseId,
        result: 'ok',
        changes: changedFields({}, { ...body, devices: matched.length, canary, incompatible }),
      });
      return releaseId;
    });
    await this.reconcile(id);
    return { id, total: matched.length, incompatible };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Actions

  private async act(
    u: UpgradeCaller,
    id: number,
    action: 'promote' | 'pause' | 'resume' | 'cancel' | 'retry',
    fn: (tx: UpgradeRepository, r: ReleaseRow) => Promise<ReleaseSet>,
  ): Promise<{ id: number; state: ReleaseState }> {
    await this.reads.visible(u.access, id);
    const { state, changed } = await this.repo.transaction(async (tx) => {
      await tx.lockRelease(id);
      const r = await tx.getInTenant(u.tenantId, id);
      const { changed = [], ...set } = await fn(tx, r);
      await tx.updateRelease(id, { ...set, updated_at: new Date() });
      await tx.audit({
        tenantId: u.tenantId,
        userId: u.userId,
        ip: u.ip,
        action: `upgrade.${action}`,
        resource: 'upgrade_release',
        resourceId: id,
        result: 'ok',
        changes: changedFields(
          { state: r.state, wave: r.wave },
          { state: set.state ?? r.state, wave: set.wave ?? r.wave },
        ),
      });
      return { state: (set.state ?? r.state) as ReleaseState, changed };
    });
    this.tasks.announce(changed);
    this.publish(u.tenantId, id, state);
    await this.reconcile(id);
    const after = await this.repo.stateOf(id);
    return { id, state: (after ?? state) as ReleaseState };
  }

  private refuse(r: ReleaseRow): never {
    throw new AppError(400, 'upgrade.badState', { state: r.state }, { field: 'id' });
  }

  promote(u: UpgradeCaller, id: number) {
    return this.act(u, id, 'promote', async (_tx, r) => {
      if (r.state !== 'waiting') this.refuse(r);
      return { state: 'running', wave: 2, waiting_since: null };
    });
  }

  pause(u: UpgradeCaller, id: number) {
    return this.act(u, id, 'pause', async (_tx, r) => {
      if (r.state !== 'running' && r.state !== 'waiting') this.refuse(r);
      return { state: 'paused' };
    });
  }

  resume(u: UpgradeCaller, id: number) {
    return this.act(u, id, 'resume', async (_tx, r) => {
      if (r.state !== 'paused') this.refuse(r);
      if (r.expire_at.getTime() <= Date.now()) throw badRequest('id', 'upgrade.expired');
      // waiting for a promote when it was paused: it waits again (the soak time counts from now)
      return r.waiting_since ? { state: 'waiting', waiting_since: new Date() } : { state: 'running' };
    });
  }

  cancel(u: UpgradeCaller, id: number) {
    return this.act(u, id, 'cancel', async (tx, r) => {
      if (r.state === 'completed' || r.state === 'canceled') this.refuse(r);
      const changed = await tx.cancelOpenTasks(u.tenantId, id);
      await tx.cancelDevices(id);
      return { state: 'canceled', finished_at: new Date(), changed };
    });
  }

  retry(u: UpgradeCaller, id: number) {
    return this.act(u, id, 'retry', async (tx, r) => {
      if (r.state === 'canceled') this.refuse(r);
      if (r.expire_at.getTime() <= Date.now()) throw badRequest('id', 'upgrade.expired');
      const wave = r.state === 'waiting' ? 1 : r.wave;
      const again = await tx.requeueFailed(id, wave);
      if (!again.length) throw badRequest('id', 'upgrade.noFailed');
      return {
        state: r.state === 'paused' ? 'paused' : 'running',
        wave,
        waiting_since: null,
        halt_reason: '',
        finished_at: null,
      };
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // The bookkeeping

  /** A task of a release changed on this node: reconcile that release soon (changes close together: once). */
  onTaskChange(row: ChangedTask): void {
    if (row.type !== 'upgrade' || !isJsonObject(row.params)) return;
    const id = row.params.releaseId;
    if (typeof id !== 'number') return;
    this.pending.add(id);
    if (!this.flushing)
      this.flushing = new Promise<void>((done) => setTimeout(() => void this.flush().finally(done), 20));
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.size) {
        const ids = [...this.pending];
        this.pending.clear();
        for (const id of ids)
          await this.reconcile(id).catch((err) => this.log.warn({ err, id }, 'upgrade: reconcile failed'));
      }
    } finally {
      this.flushing = null;
    }
  }

  /** Waits for the reconciles this node has scheduled (tests; closing). */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Every unfinished release, on one node at a time (a session advisory lock; another node's run: skip). */
  async reconcileAll(): Promise<number> {
    return this.repo.onConnection(async (conn) => {
      if (!(await conn.tryLockReconcile())) return 0;
      try {
        const open = await conn.openReleaseIds();
        for (const id of open) await this.reconcile(id);
        return open.length;
      } finally {
        await conn.unlockReconcile();
      }
    });
  }

  /**
   * Brings one release up to date (reconcile.ts): each device's step from its task; the wave's halt check; the
   * wave's end (soak, promote, completion); and new tasks up to the throttle for devices inside their window. Safe
   * to run anywhere, any time: one run per release at a time (a transaction advisory lock), all state read from
   * the database. Then the started tasks go out and the consoles hear of a change.
   */
  async reconcile(id: number): Promise<void> {
    const result = await reconcileRelease(this.repo, id, new Date());
    if (!result) return;
    if (result.started.length) {
      this.tasks.announce(result.started);
      await this.tasks.dispatch(result.started.map((t) => t.id));
    }
    if (result.changed) this.publish(result.tenantId, id, result.state);
  }

  private publish(tenantId: number, releaseId: number, state: string) {
    this.events.publish(tenantId, { type: 'upgrade', data: { releaseId, state } });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading (reads.ts)

  /** Which of these releases a reader with this data scope sees, for its live events. */
  visibleIds(access: DataAccess, ids: number[]): Promise<Set<number>> {
    return this.reads.visibleIds(access, ids);
  }

  list(
    _scope: TenantScope,
    access: DataAccess,
    q: { pageNo: number; pageSize: number; state?: ReleaseState },
  ): Promise<Paged<ReleaseItem>> {
    return this.reads.list(access, q);
  }

  detail(_scope: TenantScope, access: DataAccess, id: number): Promise<ReleaseDetail> {
    return this.reads.detail(access, id);
  }

  devices(
    _scope: TenantScope,
    access: DataAccess,
    q: { id: number; pageNo: number; pageSize: number; state?: UpgradeDeviceState },
  ): Promise<Paged<ReleaseDeviceItem>> {
    return this.reads.devices(access, q);
  }

  history(
    _scope: TenantScope,
    access: DataAccess,
    q: { deviceId: number; pageNo: number; pageSize: number },
  ): Promise<Paged<FirmwareHistoryItem>> {
    return this.reads.history(access, q);
  }
}
