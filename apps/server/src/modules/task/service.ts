import {
  COMMAND_EXPIRE_DEFAULT_S,
  TASK_STATES,
  type BatchView,
  type CommandBody,
  type CommandResult,
  type Paged,
  type TaskItem,
  type TaskListParams,
  type TaskState,
  type TaskType,
} from '@cpc/contracts';
import type { AckMsg, CommandMsg, ProgressMsg, ResultMsg } from '@cpc/contracts/device-protocol';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { isJsonObject } from '../../db/schema.ts';
import { auditRow, changedFields } from '../../lib/audit.ts';
import { AppError, notFound } from '../../plugins/errors.ts';
import type { EventSink } from '../../plugins/live-events.ts';
import type { DeviceBus } from '../../plugins/mqtt/device-bus.ts';
import { TaskRepository, type DevicesInScope, type SentRow, type TaskRow, type TaskSpec } from './repository.ts';

export type { TaskSpec } from './repository.ts';

/** Where task messages go: the device gateway (absent when the server runs without one). */
export interface Downlink {
  command(sn: string, msg: CommandMsg): Promise<void>;
}
export interface TaskCaller {
  id: number;
  tenantId: number;
  scope: TenantScope;
  /** The devices the caller's data scope reaches (issue 12, `inDataScope`); absent: all of the tenant's. */
  devices?: DevicesInScope;
}
export interface TaskOptions {
  /** A sent task without an ack for this long times out. */
  ackTimeoutS: number;
  /** A taken task (delivered, running) of an online device without a word (progress, result) for this long times out. */
  resultTimeoutS: number;
  /** Back-off before the n-th resend: base × 2^(n−1) seconds. */
  retryBackoffS: number;
  /** Where an ack's or a progress report's write that nobody waits on reports its failure. */
  onUnwaitedError?: (err: unknown) => void;
}

/** A task changed inside a caller's transaction, to announce to the consoles once it committed. */
export type ChangedTask = TaskRow;

const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());

/** Tasks of a batch (or of each of several batches) in each state: every state present, 0 when none. */
function stateCounts(rows: Array<{ state: TaskState; n: number | string }>): {
  total: number;
  counts: Record<TaskState, number>;
} {
  const counts = Object.fromEntries(TASK_STATES.map((s) => [s, 0])) as Record<TaskState, number>;
  for (const r of rows) counts[r.state] = Number(r.n);
  return { total: rows.reduce((a, r) => a + Number(r.n), 0), counts };
}

/**
 * Cancels every unfinished task of a device inside the caller's transaction (the device leaves the account);
 * the caller announces the answered rows (TaskService.announce) once the transaction committed.
 */
export function cancelOpenTasks(scope: TenantScope, deviceId: number, reason: string): Promise<ChangedTask[]> {
  return new TaskRepository(scope.db).cancelOpenOfDevice(scope.tenantId, deviceId, reason);
}

/**
 * Inserts tasks inside the caller's transaction (`scope` of that transaction). Once it committed, the caller calls
 * `TaskService.announce(rows)` and `dispatch(ids)` so online devices get them now (the others on their hello).
 */
export async function enqueueTasks(scope: TenantScope, specs: TaskSpec[]): Promise<ChangedTask[]> {
  if (!specs.length) return [];
  return new TaskRepository(scope.db).insertTasks(scope.tenantId, specs);
}

/** Told of every task change this node makes or hears of (after it committed), e.g. to move a roll-out on. */
export type TaskListener = (row: ChangedTask) => void;

/** What a task of some type gets added to its params at each delivery (a signed link that must not be stored). */
export type ParamsAtDelivery = (row: ChangedTask) => Record<string, unknown>;

/**
 * Device tasks (DESIGN §6): queued → sent → delivered (ack) → running (progress) → succeeded | failed,
 * timeout (no ack in time; sent again with back-off until max_attempts, then failed), expired (the device
 * stayed offline past expire_at), canceled (by the user while unfinished). Every transition is one guarded
 * UPDATE (`… WHERE state IN (…)`), so a duplicate or late message cannot move a task backwards, and every
 * sweep is safe to run on N nodes at once.
 */
export class TaskService {
  private listeners: TaskListener[] = [];
  private atDelivery = new Map<TaskType, ParamsAtDelivery>();

  /**
   * Adds `fn(row)` to the params of every delivery of tasks of these types (issue 15: the signed, expiring link a
   * device downloads a package by, or uploads a file to), so each resend carries a fresh link.
   */
  addAtDelivery(types: TaskType[], fn: ParamsAtDelivery): void {
    for (const t of types) this.atDelivery.set(t, fn);
  }

  /**
   * Calls `listener` with each task this node changed, after the change. A listener must not throw and must not
   * be the only record of anything: a node can die between the change and the call, so state that must survive a
   * restart is read again from `device_tasks` by the module's own periodic reconcile.
   */
  onChange(listener: TaskListener): void {
    this.listeners.push(listener);
  }

  private repo: TaskRepository;

  constructor(
    db: Db,
    private events: EventSink,
    /** Where commands go: this node's link to the devices. */
    private downlink: Downlink,
    private opts: TaskOptions,
  ) {
    this.repo = new TaskRepository(db);
  }

  /** The repository on the scope's database (the pool, or the caller's transaction). */
  private on(scope: TenantScope): TaskRepository {
    return new TaskRepository(scope.db);
  }

  // -------------------------------------------------------------------------------------------------------------
  // The console's side

  /**
   * One task per device (a batch row when there are several); a device outside the tenant or the caller's data
   * scope → 404, nothing made. One statement, so one round trip and one commit (issue 17): the batch, the tasks
   * (already `sent` for a device online now: a node that dies before the publish leaves a `sent` task, which the
   * ack time-out sends again) and the system log's entry are written together, or nothing is when a device is
   * missing. The `sent` columns follow `markSent`'s rule for a task being written: change one, change both.
   */
  async createCommands(u: TaskCaller, body: CommandBody, ip: string): Promise<CommandResult> {
    const expireAt = new Date(Date.now() + (body.expireInSec ?? COMMAND_EXPIRE_DEFAULT_S) * 1000);
    const many = body.deviceIds.length > 1;
    const entry = auditRow({
      tenantId: u.tenantId,
      userId: u.id,
      ip,
      action: `device.${body.type}`,
      resource: many ? 'task_batch' : 'device_task',
      result: 'ok',
      changes: changedFields({}, { type: body.type, deviceIds: body.deviceIds, expireAt: expireAt.toISOString() }),
    });
    const rows = await this.on(u.scope).insertCommands({
      tenantId: u.scope.tenantId,
      userId: u.id,
      type: body.type,
      deviceIds: body.deviceIds,
      expireAt,
      devices: u.devices,
      entry,
    });
    if (!rows.length) throw notFound('device');
    for (const t of rows) this.emit(t);
    await this.publish(rows.filter((t) => t.state === 'sent'));
    const byDevice = new Map(rows.map((t) => [Number(t.device_id), t.id]));
    return {
      batchId: rows[0].batch_id == null ? null : Number(rows[0].batch_id),
      taskIds: body.deviceIds.map((d) => byDevice.get(d)!),
    };
  }

  /** `devices`: the caller's data scope (issue 12): tasks of devices outside it are not listed. */
  async list(scope: TenantScope, q: TaskListParams, devices?: DevicesInScope): Promise<Paged<TaskItem>> {
    const repo = this.on(scope);
    // a filter naming another tenant's device or batch is a 404, like every cross-tenant id
    if (q.deviceId && !(await repo.deviceExists(scope.tenantId, q.deviceId, devices))) throw notFound('device');
    if (q.batchId && !(await repo.findBatch(scope.tenantId, q.batchId, devices))) throw notFound('batch');
    const { rows, total } = await repo.listTasks(scope.tenantId, q, devices);
    return {
      list: rows.map((r) => ({
        ...toItem(r),
        deviceSn: r.sn,
        deviceName: r.device_name,
      })),
      total,
    };
  }

  /**
   * `devices`: the caller's data scope (issue 12). A batch is seen when one of its tasks is for a device inside
   * it (another batch is not found), and its counts count those tasks only.
   */
  async batch(scope: TenantScope, id: number, devices?: DevicesInScope): Promise<BatchView> {
    const repo = this.on(scope);
    const batch = await repo.findBatch(scope.tenantId, id, devices);
    if (!batch) throw notFound('batch');
    const rows = await repo.countBatchStates(scope.tenantId, id, devices);
    return { id: batch.id, type: batch.type, createdAt: batch.created_at.toISOString(), ...stateCounts(rows) };
  }

  /**
   * The account's batches, newest first, each with its counts by state (one grouped query for the page); with a
   * data scope (`devices`), as `batch` sees them.
   */
  async batches(
    scope: TenantScope,
    q: { pageNo: number; pageSize: number },
    devices?: DevicesInScope,
  ): Promise<Paged<BatchView>> {
    const repo = this.on(scope);
    const { rows: page, total } = await repo.listBatches(scope.tenantId, q, devices);
    const ids = page.map((b) => b.id);
    const rows = ids.length ? await repo.countStatesOfBatches(scope.tenantId, ids, devices) : [];
    return {
      list: page.map((b) => ({
        id: b.id,
        type: b.type,
        createdAt: b.created_at.toISOString(),
        ...stateCounts(rows.filter((r) => Number(r.batch_id) === b.id)),
      })),
      total,
    };
  }

  /** Cancels an unfinished task: it is never sent again and a late result from the device is ignored. */
  /** `devices`: the caller's data scope (issue 12): a task of a device outside it is not found. */
  async cancel(scope: TenantScope, id: string, devices?: DevicesInScope): Promise<{ id: string; state: TaskState }> {
    const repo = this.on(scope);
    const row = await repo.cancelTask(scope.tenantId, id, devices);
    if (row) {
      this.emit(row);
      return { id, state: 'canceled' };
    }
    const state = await repo.stateOf(scope.tenantId, id, devices);
    if (!state) throw notFound('task');
    throw new AppError(400, 'task.notCancelable', { state }, { field: 'id' });
  }

  /** Tells the consoles of the tasks' account about tasks changed elsewhere (after the change committed). */
  announce(rows: ChangedTask[]): void {
    rows.forEach((r) => this.emit(r));
  }

  // -------------------------------------------------------------------------------------------------------------
  // The device's side (called by the gateway; the device id comes from the authenticated topic)

  /** Sends the given tasks to those of their devices that are online now. */
  async dispatch(taskIds: string[]): Promise<void> {
    if (!taskIds.length) return;
    await this.send(await this.repo.markSent(taskIds));
  }

  /**
   * On hello: everything unfinished goes again, oldest first (at-least-once; the device drops repeats). What the
   * device has not taken is a new delivery (`sent`, one more attempt); what it took but never reported
   * (`delivered`, `running`: the result may have been lost with the connection) goes again as it was, without a
   * state change, and the device acknowledges it and reports its result again.
   */
  /** What the task service hears from devices: its acks, progress and results, hellos, and the gateway's sweep. */
  listenTo(bus: DeviceBus): void {
    bus.on('task.ack', (id, m) => this.onAck(id, m));
    bus.on('task.progress', (id, m) => this.onProgress(id, m));
    bus.on('task.result', (id, m) => this.onResult(id, m));
    bus.on('hello', (id, hello) => (hello.tasksOpen ? this.resendPending(id) : undefined));
    bus.onSweep(() => this.sweep());
    bus.onSettle(() => this.settled());
  }

  async resendPending(deviceId: number): Promise<number> {
    const [fresh, taken] = await Promise.all([this.repo.resendUntaken(deviceId), this.repo.listTaken(deviceId)]);
    fresh.forEach((r) => this.emit(r));
    const all = [...fresh, ...taken].sort((a, b) => +new Date(a.created_at) - +new Date(b.created_at));
    await this.publish(all);
    return all.length;
  }

  /**
   * An acknowledgement and a progress report are committed without waiting for the disk (`synchronous_commit` off
   * for their own statement; issue 17: two of the round trip's four flushes): what a PostgreSQL crash forgets of
   * them leaves the task `sent` or at an older progress, which the ack time-out and the hello send again, and the
   * device acknowledges and reports again. The result waits for the disk, and its flush carries these with it.
   *
   * A positive ack and a progress report are not waited for either: the device's next message (its result, most
   * often) is handled at once instead of after their round trips. Their guards keep the order: an ack or a
   * progress written after the result changes nothing. `settled()` waits for them.
   */
  onAck(deviceId: number, m: AckMsg): Promise<void> {
    if (!m.ok) return this.refuse(deviceId, m);
    return this.unwaited(deviceId, async () => {
      const rows = await this.repo.markDelivered(deviceId, m.id);
      rows.forEach((r) => this.emit(r));
    });
  }

  private async refuse(deviceId: number, m: AckMsg): Promise<void> {
    const rows = await this.repo.markRefused(deviceId, m.id, m.error || 'refused by the device');
    rows.forEach((r) => this.emit(r));
  }

  onProgress(deviceId: number, m: ProgressMsg): Promise<void> {
    return this.unwaited(deviceId, async () => {
      const rows = await this.repo.markProgress(deviceId, m);
      rows.forEach((r) => this.emit(r));
    });
  }

  /** The last write nobody waits on, per device (see onAck): each device's run one after the other. */
  private tails = new Map<number, Promise<void>>();

  /**
   * Queues a write behind the device's earlier ones and returns at once: a device's acks and progress reports
   * are applied in the order it sent them (a stage's 100 % never lands after the next stage's 0 %), while its
   * result, awaited, may overtake them — their guards make those late ones change nothing.
   */
  private unwaited(deviceId: number, write: () => Promise<void>): Promise<void> {
    const next: Promise<void> = (this.tails.get(deviceId) ?? Promise.resolve())
      .then(write)
      .catch((err: unknown) => this.opts.onUnwaitedError?.(err))
      .finally(() => {
        if (this.tails.get(deviceId) === next) this.tails.delete(deviceId);
      });
    this.tails.set(deviceId, next);
    return Promise.resolve();
  }

  /** Resolves when the acks and progress reports written so far without a waiter (of one device, or all) are. */
  async settled(deviceId?: number): Promise<void> {
    // a tail never rejects: its write's failure is reported by `unwaited`
    if (deviceId !== undefined) await this.tails.get(deviceId);
    else await Promise.all(this.tails.values());
  }

  async onResult(deviceId: number, m: ResultMsg): Promise<void> {
    const rows = await this.repo.markResult(deviceId, m);
    rows.forEach((r) => this.emit(r));
  }

  /** Expiry, ack time-outs and resends; each step is a guarded UPDATE, so N nodes may sweep at once. */
  async sweep(): Promise<void> {
    (await this.repo.expireDue()).forEach((r) => this.emit(r));
    (await this.repo.timeOutUnacked(this.opts.ackTimeoutS)).forEach((r) => this.emit(r));
    // taken by a device that is online but has said nothing of it since (or since it came back): the result is
    // lost or the device is stuck; timeout sends it again (the device reports a finished one again), within max_attempts
    (await this.repo.timeOutSilent(this.opts.resultTimeoutS)).forEach((r) => this.emit(r));
    await this.send(await this.repo.claimResends(this.opts.retryBackoffS));
  }

  private async send(rows: SentRow[]): Promise<void> {
    rows.forEach((r) => this.emit(r));
    await this.publish(rows);
  }

  private async publish(rows: SentRow[]): Promise<void> {
    for (const r of rows) {
      // a failed publish is not an error here: the task times out and goes again
      const extra = this.atDelivery.get(r.type)?.(r) ?? {};
      await this.downlink
        .command(r.sn, {
          id: r.id,
          type: r.type,
          params: { ...(isJsonObject(r.params) ? r.params : {}), ...extra },
          expireAt: new Date(r.expire_at).toISOString(),
          attempt: r.attempts,
        })
        .catch(() => {});
    }
  }

  private emit(r: TaskRow): void {
    for (const l of this.listeners) {
      try {
        l(r);
      } catch {
        // a listener's failure is its own: the task and the consoles still hear of the change
      }
    }
    this.events.publish(r.tenant_id, {
      type: 'task',
      data: {
        id: r.id,
        deviceId: Number(r.device_id),
        batchId: r.batch_id == null ? null : Number(r.batch_id),
        type: r.type,
        state: r.state,
        progress: r.progress,
        stage: r.stage,
        error: r.error,
      },
    });
  }
}

function toItem(r: TaskRow): Omit<TaskItem, 'deviceSn' | 'deviceName'> {
  return {
    id: r.id,
    deviceId: Number(r.device_id),
    batchId: r.batch_id == null ? null : Number(r.batch_id),
    type: r.type,
    state: r.state,
    progress: r.progress,
    stage: r.stage,
    error: r.error,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    createdAt: iso(r.created_at)!,
    sentAt: iso(r.sent_at),
    deliveredAt: iso(r.delivered_at),
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    expireAt: iso(r.expire_at)!,
  };
}
