import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import {
  COMMAND_EXPIRE_DEFAULT_S,
  OPEN_TASK_STATES,
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
import { NO_FLUSH_WAIT, PREPARED, type Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { isJsonObject, type Database } from '../../db/schema.ts';
import { auditRow, changedFields } from '../../lib/audit.ts';
import { AppError, notFound } from '../../plugins/errors.ts';
import type { EventSink } from '../../plugins/live-events.ts';
import type { DeviceBus } from '../../plugins/mqtt/device-bus.ts';

/** Where task messages go: the device gateway (absent when the server runs without one). */
export interface Downlink {
  command(sn: string, msg: CommandMsg): Promise<void>;
}
export interface TaskCaller {
  id: number;
  tenantId: number;
  scope: TenantScope;
  /** The devices the caller's data scope reaches (issue 12, `inDataScope`); absent: all of the tenant's. */
  devices?: RawBuilder<boolean>;
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

type TaskRow = Selectable<Database['device_tasks']>;
type SentRow = TaskRow & { sn: string };
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
const ids = (a: string[]) => sql`${a}::uuid[]`;

/**
 * Cancels every unfinished task of a device inside the caller's transaction (the device leaves the account);
 * the caller announces the answered rows (TaskService.announce) once the transaction committed.
 */
export async function cancelOpenTasks(scope: TenantScope, deviceId: number, reason: string): Promise<ChangedTask[]> {
  const rows = await scope
    .updateTable('device_tasks')
    .set({ state: 'canceled', error: reason, finished_at: new Date(), updated_at: new Date() })
    .where('device_tasks.device_id', '=', deviceId)
    .where('device_tasks.state', 'in', OPEN_TASK_STATES)
    .returningAll()
    .execute();
  return rows;
}

/**
 * Device tasks (DESIGN §6): queued → sent → delivered (ack) → running (progress) → succeeded | failed,
 * timeout (no ack in time; sent again with back-off until max_attempts, then failed), expired (the device
 * stayed offline past expire_at), canceled (by the user while unfinished). Every transition is one guarded
 * UPDATE (`… WHERE state IN (…)`), so a duplicate or late message cannot move a task backwards, and every
 * sweep is safe to run on N nodes at once.
 */

/** A task of a device inside `devices` (the caller's data scope; none: every device of the tenant). */
const taskInScope = (scope: TenantScope, devices?: RawBuilder<boolean>) =>
  devices
    ? sql<boolean>`device_tasks.device_id in (select devices.id from devices where devices.tenant_id = ${scope.tenantId} and ${devices})`
    : sql<boolean>`true`;

/** A batch with at least one task of a device inside `devices`. */
const batchInScope = (scope: TenantScope, devices?: RawBuilder<boolean>) =>
  devices
    ? sql<boolean>`exists (select 1 from device_tasks where device_tasks.batch_id = task_batches.id and ${taskInScope(scope, devices)})`
    : sql<boolean>`true`;

/** A task another module sends (issue 15: upgrades, installs, file requests): one device, its type and parameters. */
export interface TaskSpec {
  deviceId: number;
  type: TaskType;
  params: Record<string, unknown>;
  expireAt: Date;
  createdBy: number | null;
  batchId?: number | null;
  maxAttempts?: number;
}

/**
 * Inserts tasks inside the caller's transaction (`scope` of that transaction). Once it committed, the caller calls
 * `TaskService.announce(rows)` and `dispatch(ids)` so online devices get them now (the others on their hello).
 */
export async function enqueueTasks(scope: TenantScope, specs: TaskSpec[]): Promise<ChangedTask[]> {
  if (!specs.length) return [];
  return scope
    .insertInto(
      'device_tasks',
      specs.map((t) => ({
        device_id: t.deviceId,
        type: t.type,
        params: JSON.stringify(t.params),
        expire_at: t.expireAt,
        created_by: t.createdBy,
        batch_id: t.batchId ?? null,
        ...(t.maxAttempts ? { max_attempts: t.maxAttempts } : {}),
      })),
    )
    .returningAll()
    .execute();
}

/** Told of every task change this node makes or hears of (after it committed), e.g. to move a roll-out on. */
export type TaskListener = (row: ChangedTask) => void;

/** What a task of some type gets added to its params at each delivery (a signed link that must not be stored). */
export type ParamsAtDelivery = (row: ChangedTask) => Record<string, unknown>;

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

  constructor(
    private db: Db,
    private events: EventSink,
    /** Where commands go: this node's link to the devices. */
    private downlink: Downlink,
    private opts: TaskOptions,
  ) {}

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
    const tenant = u.scope.tenantId;
    const { rows } = await sql<SentRow>`
      WITH found AS (
        SELECT devices.id, devices.sn, devices.status = 'online' AS online FROM devices
        WHERE devices.tenant_id = ${tenant} AND devices.id = ANY(${body.deviceIds}::bigint[])
          AND ${u.devices ?? sql<boolean>`true`}
      ), whole AS (
        SELECT count(*) = ${body.deviceIds.length} AS ok FROM found
      ), batch AS (
        INSERT INTO task_batches (tenant_id, type, targets, created_by)
        SELECT ${tenant}, ${body.type}, ${JSON.stringify({ deviceIds: body.deviceIds })}::jsonb, ${u.id}
        FROM whole WHERE whole.ok AND ${many}
        RETURNING id
      ), task AS (
        INSERT INTO device_tasks (tenant_id, batch_id, device_id, type, created_by, expire_at, state, attempts, sent_at)
        SELECT ${tenant}, (SELECT id FROM batch), found.id, ${body.type}, ${u.id}, ${expireAt},
          CASE WHEN found.online THEN 'sent' ELSE 'queued' END, CASE WHEN found.online THEN 1 ELSE 0 END,
          CASE WHEN found.online THEN now() END
        FROM found, whole WHERE whole.ok
        RETURNING *
      ), logged AS (
        INSERT INTO audit_log (tenant_id, user_id, ip, action, resource, resource_id, result, details)
        SELECT ${entry.tenant_id}, ${entry.user_id}, ${entry.ip}, ${entry.action}, ${entry.resource},
          coalesce((SELECT id::text FROM batch), (SELECT id::text FROM task LIMIT 1)), ${entry.result},
          ${entry.details}::jsonb
        FROM whole WHERE whole.ok
      )
      SELECT task.*, found.sn FROM task JOIN found ON found.id = task.device_id`.execute(u.scope.db);
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
  async list(scope: TenantScope, q: TaskListParams, devices?: RawBuilder<boolean>): Promise<Paged<TaskItem>> {
    const { pageNo, pageSize } = q;
    const inScope = devices ?? sql<boolean>`true`;
    // a filter naming another tenant's device or batch is a 404, like every cross-tenant id
    if (
      q.deviceId &&
      !(await scope
        .selectFrom('devices')
        .select('devices.id')
        .where('devices.id', '=', q.deviceId)
        .where(inScope)
        .executeTakeFirst())
    )
      throw notFound('device');
    if (
      q.batchId &&
      !(await scope
        .selectFrom('task_batches')
        .select('task_batches.id')
        .where('task_batches.id', '=', q.batchId)
        .where(batchInScope(scope, devices))
        .executeTakeFirst())
    )
      throw notFound('batch');
    let base = scope.selectFrom('device_tasks').where(taskInScope(scope, devices));
    if (q.deviceId) base = base.where('device_tasks.device_id', '=', q.deviceId);
    if (q.batchId) base = base.where('device_tasks.batch_id', '=', q.batchId);
    if (q.state) base = base.where('device_tasks.state', '=', q.state);
    const [rows, total] = await Promise.all([
      base
        .innerJoin('devices', 'devices.id', 'device_tasks.device_id')
        .selectAll('device_tasks')
        .select(['devices.sn', 'devices.name as device_name'])
        .orderBy('device_tasks.created_at', 'desc')
        .orderBy('device_tasks.id')
        .limit(pageSize)
        .offset((pageNo - 1) * pageSize)
        .execute(),
      base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      list: rows.map((r) => ({
        ...toItem(r),
        deviceSn: r.sn,
        deviceName: r.device_name,
      })),
      total: Number(total.n),
    };
  }

  /**
   * `devices`: the caller's data scope (issue 12). A batch is seen when one of its tasks is for a device inside
   * it (another batch is not found), and its counts count those tasks only.
   */
  async batch(scope: TenantScope, id: number, devices?: RawBuilder<boolean>): Promise<BatchView> {
    const batch = await scope
      .selectFrom('task_batches')
      .select(['task_batches.id', 'task_batches.type', 'task_batches.created_at'])
      .where('task_batches.id', '=', id)
      .where(batchInScope(scope, devices))
      .executeTakeFirst();
    if (!batch) throw notFound('batch');
    const rows = await scope
      .selectFrom('device_tasks')
      .select(['device_tasks.state', sql<number>`count(*)`.as('n')])
      .where('device_tasks.batch_id', '=', id)
      .where(taskInScope(scope, devices))
      .groupBy('device_tasks.state')
      .execute();
    return { id: batch.id, type: batch.type, createdAt: batch.created_at.toISOString(), ...stateCounts(rows) };
  }

  /**
   * The account's batches, newest first, each with its counts by state (one grouped query for the page); with a
   * data scope (`devices`), as `batch` sees them.
   */
  async batches(
    scope: TenantScope,
    q: { pageNo: number; pageSize: number },
    devices?: RawBuilder<boolean>,
  ): Promise<Paged<BatchView>> {
    const [page, total] = await Promise.all([
      scope
        .selectFrom('task_batches')
        .select(['task_batches.id', 'task_batches.type', 'task_batches.created_at'])
        .where(batchInScope(scope, devices))
        .orderBy('task_batches.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      scope
        .selectFrom('task_batches')
        .select(sql<number>`count(*)`.as('n'))
        .where(batchInScope(scope, devices))
        .executeTakeFirstOrThrow(),
    ]);
    const ids = page.map((b) => b.id);
    const rows = ids.length
      ? await scope
          .selectFrom('device_tasks')
          .select(['device_tasks.batch_id', 'device_tasks.state', sql<number>`count(*)`.as('n')])
          .where('device_tasks.batch_id', 'in', ids)
          .where(taskInScope(scope, devices))
          .groupBy(['device_tasks.batch_id', 'device_tasks.state'])
          .execute()
      : [];
    return {
      list: page.map((b) => ({
        id: b.id,
        type: b.type,
        createdAt: b.created_at.toISOString(),
        ...stateCounts(rows.filter((r) => Number(r.batch_id) === b.id)),
      })),
      total: Number(total.n),
    };
  }

  /** Cancels an unfinished task: it is never sent again and a late result from the device is ignored. */
  /** `devices`: the caller's data scope (issue 12): a task of a device outside it is not found. */
  async cancel(
    scope: TenantScope,
    id: string,
    devices?: RawBuilder<boolean>,
  ): Promise<{ id: string; state: TaskState }> {
    const inScope = devices
      ? sql<boolean>`device_tasks.device_id in (select devices.id from devices where devices.tenant_id = ${scope.tenantId} and ${devices})`
      : sql<boolean>`true`;
    const row = await scope
      .updateTable('device_tasks')
      .set({ state: 'canceled', error: 'canceled by the user', finished_at: new Date(), updated_at: new Date() })
      .where('device_tasks.id', '=', id)
      .where(inScope)
      .where('device_tasks.state', 'in', OPEN_TASK_STATES)
      .returningAll()
      .executeTakeFirst();
    if (row) {
      this.emit(row);
      return { id, state: 'canceled' };
    }
    const existing = await scope
      .selectFrom('device_tasks')
      .select('device_tasks.state')
      .where('device_tasks.id', '=', id)
      .where(inScope)
      .executeTakeFirst();
    if (!existing) throw notFound('task');
    throw new AppError(400, 'task.notCancelable', { state: existing.state }, { field: 'id' });
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
    await this.send(await this.markSent(this.db, taskIds));
  }

  /**
   * Marks the given tasks of online devices sent (in `db`: the caller's transaction or the pool); answers them.
   * `createCommands` writes a new task for an online device `sent` by the same rule, inline.
   */
  private async markSent(db: Kysely<Database>, taskIds: string[]): Promise<SentRow[]> {
    const { rows } = await sql<SentRow>`
      UPDATE device_tasks t SET state = 'sent', attempts = t.attempts + 1, sent_at = now(), updated_at = now()
      FROM devices d
      WHERE t.id = ANY(${ids(taskIds)}) AND d.id = t.device_id AND d.status = 'online'
        AND t.state IN ('queued', 'timeout') AND t.attempts < t.max_attempts AND t.expire_at > now()
      RETURNING t.*, d.sn`.execute(db);
    return rows;
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
    const [fresh, taken] = await Promise.all([
      sql<SentRow>`
        UPDATE device_tasks t SET state = 'sent', attempts = t.attempts + 1, sent_at = now(), updated_at = now()
        FROM devices d
        WHERE t.device_id = ${deviceId} AND d.id = t.device_id
          AND t.state IN ('queued', 'sent', 'timeout') AND t.attempts < t.max_attempts AND t.expire_at > now()
        RETURNING t.*, d.sn`.execute(this.db),
      sql<SentRow>`
        SELECT t.*, d.sn FROM device_tasks t JOIN devices d ON d.id = t.device_id
        WHERE t.device_id = ${deviceId} AND t.state IN ('delivered', 'running') AND t.expire_at > now()`.execute(
        this.db,
      ),
    ]);
    fresh.rows.forEach((r) => this.emit(r));
    const all = [...fresh.rows, ...taken.rows].sort((a, b) => +new Date(a.created_at) - +new Date(b.created_at));
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
      const { rows } = await sql<TaskRow>`${PREPARED}
        UPDATE device_tasks SET state = 'delivered', delivered_at = now(), updated_at = now()
        FROM ${NO_FLUSH_WAIT}
        WHERE id = ${m.id} AND device_id = ${deviceId} AND state IN ('sent', 'timeout')
        RETURNING device_tasks.*`.execute(this.db);
      rows.forEach((r) => this.emit(r));
    });
  }

  private async refuse(deviceId: number, m: AckMsg): Promise<void> {
    const { rows } = await sql<TaskRow>`
      UPDATE device_tasks SET state = 'failed', error = ${m.error || 'refused by the device'}, finished_at = now(), updated_at = now()
      WHERE id = ${m.id} AND device_id = ${deviceId} AND state IN ('sent', 'timeout', 'delivered')
      RETURNING *`.execute(this.db);
    rows.forEach((r) => this.emit(r));
  }

  onProgress(deviceId: number, m: ProgressMsg): Promise<void> {
    return this.unwaited(deviceId, async () => {
      const { rows } = await sql<TaskRow>`${PREPARED}
        UPDATE device_tasks SET state = 'running', progress = ${m.progress}, stage = coalesce(${m.stage ?? null}::text, stage),
          started_at = coalesce(started_at, now()), delivered_at = coalesce(delivered_at, now()), updated_at = now()
        FROM ${NO_FLUSH_WAIT}
        WHERE id = ${m.id} AND device_id = ${deviceId}
          AND (state IN ('sent', 'timeout', 'delivered')
            OR (state = 'running' AND (progress < ${m.progress} OR stage IS DISTINCT FROM coalesce(${m.stage ?? null}::text, stage))))
        RETURNING device_tasks.*`.execute(this.db);
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
    const { rows } = await sql<TaskRow>`${PREPARED}
      UPDATE device_tasks SET state = ${m.ok ? 'succeeded' : 'failed'}, progress = CASE WHEN ${m.ok} THEN 100 ELSE progress END,
        error = ${m.ok ? '' : m.error || 'failed on the device'}, delivered_at = coalesce(delivered_at, now()),
        finished_at = now(), updated_at = now()
      WHERE id = ${m.id} AND device_id = ${deviceId} AND state IN ('sent', 'timeout', 'delivered', 'running')
      RETURNING *`.execute(this.db);
    rows.forEach((r) => this.emit(r));
  }

  /** Expiry, ack time-outs and resends; each step is a guarded UPDATE, so N nodes may sweep at once. */
  async sweep(): Promise<void> {
    const expired = await sql<TaskRow>`
      UPDATE device_tasks SET
        state = CASE WHEN state IN ('delivered', 'running') THEN 'failed' ELSE 'expired' END,
        error = CASE WHEN state IN ('delivered', 'running') THEN 'no result from the device before the task expired'
                     ELSE 'the device did not take the task before it expired' END,
        finished_at = now(), updated_at = now()
      WHERE state IN ('queued', 'sent', 'timeout', 'delivered', 'running') AND expire_at <= now()
      RETURNING *`.execute(this.db);
    expired.rows.forEach((r) => this.emit(r));

    const timedOut = await sql<TaskRow>`
      UPDATE device_tasks SET
        state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'timeout' END,
        error = CASE WHEN attempts >= max_attempts THEN 'no acknowledgement from the device after ' || attempts || ' attempts' ELSE '' END,
        finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
        updated_at = now()
      WHERE state = 'sent' AND sent_at <= now() - make_interval(secs => ${this.opts.ackTimeoutS}::float8)
      RETURNING *`.execute(this.db);
    timedOut.rows.forEach((r) => this.emit(r));

    // taken by a device that is online but has said nothing of it since (or since it came back): the result is
    // lost or the device is stuck; timeout sends it again (the device reports a finished one again), within max_attempts
    const silent = await sql<TaskRow>`
      UPDATE device_tasks t SET
        state = CASE WHEN t.attempts >= t.max_attempts THEN 'failed' ELSE 'timeout' END,
        error = CASE WHEN t.attempts >= t.max_attempts THEN 'no result from the device after ' || t.attempts || ' attempts' ELSE '' END,
        finished_at = CASE WHEN t.attempts >= t.max_attempts THEN now() END,
        updated_at = now()
      FROM devices d
      WHERE d.id = t.device_id AND t.state IN ('delivered', 'running') AND d.status = 'online'
        AND greatest(t.updated_at, d.connected_at) <= now() - make_interval(secs => ${this.opts.resultTimeoutS}::float8)
      RETURNING t.*`.execute(this.db);
    silent.rows.forEach((r) => this.emit(r));

    // SKIP LOCKED: when two nodes sweep at once, each resend is claimed by one of them
    const resent = await sql<SentRow>`
      WITH due AS (
        SELECT t.id FROM device_tasks t JOIN devices d ON d.id = t.device_id
        WHERE t.state = 'timeout' AND d.status = 'online' AND t.expire_at > now() AND t.attempts < t.max_attempts
          AND t.updated_at <= now() - make_interval(secs => ${this.opts.retryBackoffS}::float8 * power(2, greatest(t.attempts - 1, 0)))
        ORDER BY t.updated_at
        LIMIT 500
        FOR UPDATE OF t SKIP LOCKED
      )
      UPDATE device_tasks t SET state = 'sent', attempts = t.attempts + 1, sent_at = now(), updated_at = now()
      FROM due, devices d
      WHERE t.id = due.id AND d.id = t.device_id
      RETURNING t.*, d.sn`.execute(this.db);
    await this.send(resent.rows);
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
