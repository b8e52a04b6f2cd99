import {
  PUSH_SCHEDULE_MAX_DAYS,
  type DataScope,
  type PushBody,
  type PushPreview,
  type PushState,
  type PushTargets,
} from '@cpc/contracts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { isJsonObject } from '../../db/schema.ts';
import { changedFields } from '../../lib/audit.ts';
import type { DataAccess } from '../../lib/data-scope.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { ChangedTask, EventSink, TaskService } from '../task/index.ts';
import { iso, type PushReader } from './reading.ts';
import type { PushRepository, PushRow, PushValues } from './repository.ts';

/** Who acts: the tenant, the user and the client address, and the user's data scope. */
export interface PushCaller {
  tenantId: number;
  userId: number;
  ip: string;
  access: DataAccess;
}

/** Tasks are inserted this many at a time (PostgreSQL takes at most 65,535 parameters per statement). */
const CHUNK = 2000;

/** The access a stored push resolves its targets with (the sender's data scope when it was made). */
const storedAccess = (r: PushRow): DataAccess => {
  const s = isJsonObject(r.scope) ? r.scope : {};
  return {
    tenantId: Number(r.tenant_id),
    userId: typeof s.userId === 'number' ? s.userId : 0,
    scope: (s.scope as DataScope) ?? 'own',
    departmentId: typeof s.departmentId === 'number' ? s.departmentId : null,
    departmentPath: typeof s.departmentPath === 'string' ? s.departmentPath : null,
  };
};

/** The columns of a push that say what it shows, from the request (the image already checked). */
const contentOf = (body: PushBody, imageKey: string | null) => ({
  kind: body.kind,
  title: body.title.trim(),
  body: body.body ?? '',
  image_key: imageKey,
  link: body.kind === 'link' ? (body.link ?? null) : null,
  notice_seconds: body.kind === 'notice' ? (body.noticeSeconds ?? null) : null,
});

/**
 * Sending pushes: the targets resolved inside the sender's data scope, a push's deliveries as `push_message`
 * device tasks, scheduled pushes started by the node that claims them, retries and cancels.
 */
export class PushSender {
  constructor(
    private repo: PushRepository,
    private reader: PushReader,
    private tasks: TaskService,
    private events: EventSink,
  ) {}

  // -------------------------------------------------------------------------------------------------------------
  // Targets

  /** The devices the targets name inside `access`; a device or group outside it → 404, nothing sent. */
  private async resolve(
    repo: PushRepository,
    tenantId: number,
    access: DataAccess,
    targets: PushTargets,
    strict: boolean,
  ): Promise<Array<{ id: number; online: boolean }>> {
    const deviceIds = [...new Set(targets.deviceIds ?? [])];
    const groupIds = [...new Set(targets.groupIds ?? [])];
    if (!targets.all && !deviceIds.length && !groupIds.length) throw badRequest('targets', 'push.noTargets');
    if (strict && groupIds.length) {
      if ((await repo.countGroups(tenantId, groupIds)) !== groupIds.length) throw notFound('group');
    }
    if (strict && deviceIds.length) {
      if ((await repo.countDevicesInReach(tenantId, access, deviceIds)) !== deviceIds.length) throw notFound('device');
    }
    const rows = await repo.targetDevices(tenantId, access, { all: targets.all, deviceIds, groupIds });
    return rows.map((r) => ({ id: Number(r.id), online: r.status === 'online' }));
  }

  async preview(scope: TenantScope, access: DataAccess, targets: PushTargets): Promise<PushPreview> {
    const rows = await this.resolve(this.repo, scope.tenantId, access, targets, true);
    return { devices: rows.length, online: rows.filter((r) => r.online).length };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Creating

  /** The image of an image push: an object of the tenant that is an image (its key). */
  private async imageKeyOf(u: PushCaller, body: PushBody): Promise<string | null> {
    if (body.kind !== 'image') return null;
    if (!body.imageKey) throw badRequest('imageKey', 'push.imageRequired');
    const obj = await this.repo.findObject(u.tenantId, body.imageKey);
    if (!obj) throw badRequest('imageKey', 'upload.objectMissing');
    // the upload flow read the type from the bytes; anything but an image is refused here
    if (!obj.mime.startsWith('image/')) throw badRequest('imageKey', 'push.notImage');
    return obj.key;
  }

  /** The start (null: now) and the expiry of a new push, checked against `now`. */
  private timesOf(body: PushBody, now: number): { scheduledAt: Date | null; expireAt: Date } {
    if (body.kind === 'link' && !body.link) throw badRequest('link', 'push.linkRequired');
    if (body.kind === 'notice' && !body.noticeSeconds) throw badRequest('noticeSeconds', 'push.noticeSecondsRequired');
    const scheduledAt = body.scheduledAt ? new Date(body.scheduledAt) : null;
    if (scheduledAt) {
      if (scheduledAt.getTime() <= now) throw badRequest('scheduledAt', 'push.scheduleFuture');
      if (scheduledAt.getTime() > now + PUSH_SCHEDULE_MAX_DAYS * 86_400_000)
        throw badRequest('scheduledAt', 'push.scheduleTooFar', { n: PUSH_SCHEDULE_MAX_DAYS });
    }
    const expireAt = new Date(body.expireAt);
    if (expireAt.getTime() <= (scheduledAt?.getTime() ?? now)) throw badRequest('expireAt', 'push.expiryBeforeStart');
    return { scheduledAt, expireAt };
  }

  async create(u: PushCaller, body: PushBody): Promise<{ id: number; state: PushState; devices: number }> {
    const now = Date.now();
    const imageKey = await this.imageKeyOf(u, body);
    const { scheduledAt, expireAt } = this.timesOf(body, now);
    const devices = await this.resolve(this.repo, u.tenantId, u.access, body.targets, true);
    if (!devices.length) throw badRequest('targets', 'push.noDevices');
    const content = contentOf(body, imageKey);
    const values: PushValues = {
      ...content,
      targets: JSON.stringify(body.targets),
      scope: JSON.stringify({
        scope: u.access.scope,
        userId: u.access.userId,
        departmentId: u.access.departmentId,
        departmentPath: u.access.departmentPath,
      }),
      state: scheduledAt ? 'scheduled' : 'sending',
      scheduled_at: scheduledAt,
      started_at: scheduledAt ? null : new Date(),
      expire_at: expireAt,
      created_by: u.userId,
    };
    const { id, started } = await this.repo.transaction(async (tx) => {
      const row = await tx.insertPush(u.tenantId, values);
      const started = scheduledAt
        ? []
        : await this.deliver(
            tx,
            row,
            devices.map((d) => d.id),
          );
      await tx.audit({
        ...this.entry(u, 'push.create', row.id),
        changes: changedFields(
          {},
          {
            ...content,
            targets: body.targets,
            scheduledAt: iso(scheduledAt),
            expireAt: expireAt.toISOString(),
            devices: devices.length,
          },
        ),
      });
      return { id: Number(row.id), started };
    });
    await this.afterStart(u.tenantId, id, scheduledAt ? 'scheduled' : 'sending', started);
    return { id, state: scheduledAt ? 'scheduled' : 'sending', devices: devices.length };
  }

  /** A system-log entry of the caller's action on push `id`. */
  private entry(u: PushCaller, action: string, id: number) {
    return {
      tenantId: u.tenantId,
      userId: u.userId,
      ip: u.ip,
      action,
      resource: 'push',
      resourceId: id,
      result: 'ok' as const,
    };
  }

  /** Inserts the deliveries and their tasks of `deviceIds` inside the caller's transaction (`repo` bound to it). */
  private async deliver(repo: PushRepository, r: PushRow, deviceIds: number[], expireAt = r.expire_at) {
    const params = {
      pushId: Number(r.id),
      kind: r.kind,
      title: r.title,
      body: r.body,
      ...(r.image_key ? { imageKey: r.image_key } : {}),
      ...(r.link ? { link: r.link } : {}),
      ...(r.notice_seconds ? { noticeSeconds: r.notice_seconds } : {}),
    };
    const tenantId = Number(r.tenant_id);
    const all: ChangedTask[] = [];
    for (let i = 0; i < deviceIds.length; i += CHUNK) {
      const part = deviceIds.slice(i, i + CHUNK);
      const rows = await repo.enqueueTasks(
        tenantId,
        part.map((deviceId) => ({
          deviceId,
          type: 'push_message' as const,
          params,
          expireAt,
          createdBy: r.created_by == null ? null : Number(r.created_by),
          maxAttempts: 10,
        })),
      );
      await repo.upsertDeliveries(tenantId, r.id, rows);
      all.push(...rows);
    }
    return all;
  }

  /** After a commit: the consoles hear of the tasks, online devices get them now, the others on their hello. */
  private async afterStart(tenantId: number, id: number, state: PushState, started: ChangedTask[]) {
    if (started.length) {
      this.tasks.announce(started);
      const ids = started.map((t) => t.id);
      for (let i = 0; i < ids.length; i += CHUNK) await this.tasks.dispatch(ids.slice(i, i + CHUNK));
    }
    this.events.publish(tenantId, { type: 'push', data: { id, state } });
  }

  /** Starts the scheduled pushes whose time has come; each is claimed by one node (SKIP LOCKED). */
  async startDue(): Promise<number> {
    let n = 0;
    for (;;) {
      const done = await this.repo.transaction((tx) => this.startOne(tx));
      if (!done) return n;
      n++;
      await this.afterStart(done.tenantId, done.id, done.state, done.started);
    }
  }

  /** Claims one due scheduled push and starts it, in the transaction `tx` is bound to; null when none is due. */
  private async startOne(tx: PushRepository) {
    const r = await tx.claimDue(new Date());
    if (!r) return null;
    const tenantId = Number(r.tenant_id);
    const devices = await this.resolve(tx, tenantId, storedAccess(r), r.targets as PushTargets, false);
    const started = await this.deliver(
      tx,
      r,
      devices.map((d) => d.id),
    );
    const state: PushState = started.length ? 'sending' : 'done';
    await tx.markStarted(r.id, state, new Date());
    await tx.audit({
      tenantId,
      userId: null,
      ip: '',
      action: 'push.start',
      resource: 'push',
      resourceId: r.id,
      result: 'ok',
      changes: changedFields({ state: r.state }, { state, devices: devices.length }),
    });
    return { tenantId, id: Number(r.id), state, started };
  }

  /** Pushes under way none of whose tasks is open any more are done (one guarded UPDATE: safe on N nodes). */
  async finishDone(): Promise<number> {
    const rows = await this.repo.finishDone();
    for (const r of rows)
      this.events.publish(Number(r.tenant_id), { type: 'push', data: { id: Number(r.id), state: 'done' } });
    return rows.length;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Actions

  async cancel(u: PushCaller, id: number): Promise<{ id: number; state: PushState }> {
    const r = await this.reader.row(u.tenantId, u.access, id);
    if (!(await this.repo.cancelScheduled(u.tenantId, id, new Date())))
      throw new AppError(400, 'push.badState', { state: r.state }, { field: 'id' });
    await this.repo.audit({
      ...this.entry(u, 'push.cancel', id),
      changes: changedFields({ state: r.state }, { state: 'canceled' }),
    });
    this.events.publish(u.tenantId, { type: 'push', data: { id, state: 'canceled' } });
    return { id, state: 'canceled' };
  }

  /**
   * New tasks for the devices that have not displayed the push (sent, queued, failed, expired), inside the caller's
   * data scope; their old open tasks are canceled. Once the push expired a new expiry is needed.
   */
  async retry(u: PushCaller, id: number, newExpiry?: string): Promise<{ id: number; retried: number }> {
    const r = await this.reader.row(u.tenantId, u.access, id);
    if (r.state === 'scheduled' || r.state === 'canceled')
      throw new AppError(400, 'push.badState', { state: r.state }, { field: 'id' });
    const expireAt = newExpiry ? new Date(newExpiry) : r.expire_at;
    if (expireAt.getTime() <= Date.now()) throw badRequest(newExpiry ? 'expireAt' : 'id', 'push.expired');
    const { started, canceled } = await this.repo.transaction(async (tx) => {
      const rows = await tx.lockUndelivered(u.tenantId, u.access, id);
      if (!rows.length) throw badRequest('id', 'push.nothingToRetry');
      const old = rows.map((x) => x.task_id).filter((x): x is string => !!x);
      const canceled = old.length ? await tx.cancelOpenTasks(u.tenantId, old, new Date()) : [];
      await tx.restart(u.tenantId, id, expireAt, new Date());
      const started = await this.deliver(
        tx,
        { ...r, expire_at: expireAt },
        rows.map((x) => Number(x.device_id)),
        expireAt,
      );
      await tx.audit({
        ...this.entry(u, 'push.retry', id),
        changes: changedFields(
          { state: r.state, expireAt: iso(r.expire_at) },
          { state: 'sending', expireAt: expireAt.toISOString(), retried: rows.length },
        ),
      });
      return { started, canceled };
    });
    this.tasks.announce(canceled);
    await this.afterStart(u.tenantId, id, 'sending', started);
    return { id, retried: started.length };
  }
}
