import { sql, type RawBuilder, type Selectable } from 'kysely';
import { OPEN_TASK_STATES, type TaskListParams, type TaskState, type TaskType } from '@cpc/contracts';
import type { ProgressMsg, ResultMsg } from '@cpc/contracts/device-protocol';
import { NO_FLUSH_WAIT, PREPARED } from '../../db/database.ts';
import type { DeviceTasks } from '../../db/generated.ts';
import { defineQueries } from '../../db/query-spec.ts';
import { inDataScope } from '../../lib/data-scope.ts';
import { auditRow } from '../../lib/audit.ts';
import { Repository } from '../../db/repository.ts';

export type TaskRow = Selectable<DeviceTasks>;
/** A task with its device's serial number: what is published to the device. */
export type SentRow = TaskRow & { sn: string };

/** The devices condition of a caller narrower than its account (lib/data-scope.ts); absent: all of the tenant's. */
export type DevicesInScope = RawBuilder<boolean> | undefined;

/** A task another module sends (upgrades, installs, file requests): one device, its type and parameters. */
export interface TaskSpec {
  deviceId: number;
  type: TaskType;
  params: Record<string, unknown>;
  expireAt: Date;
  createdBy: number | null;
  batchId?: number | null;
  maxAttempts?: number;
}

/** The console's command to some devices, ready to be written (its system-log entry made by the service). */
export interface NewCommands {
  tenantId: number;
  userId: number;
  type: TaskType;
  deviceIds: number[];
  expireAt: Date;
  devices: DevicesInScope;
  /** Its system-log row, as `auditRow` makes it. */
  entry: ReturnType<typeof auditRow>;
}

export type BatchRow = { id: number; type: TaskType; created_at: Date };

/** A task of a device inside `devices` (the caller's data scope; none: every device of the tenant). */
const taskInScope = (tenantId: number, devices: DevicesInScope) =>
  devices
    ? sql<boolean>`device_tasks.device_id in (select devices.id from devices where devices.tenant_id = ${tenantId} and ${devices})`
    : sql<boolean>`true`;

/** A batch with at least one task of a device inside `devices`. */
const batchInScope = (tenantId: number, devices: DevicesInScope) =>
  devices
    ? sql<boolean>`exists (select 1 from device_tasks where device_tasks.batch_id = task_batches.id and ${taskInScope(tenantId, devices)})`
    : sql<boolean>`true`;

/**
 * Every statement of device tasks (`device_tasks`, `task_batches`), and what they read of devices (online or not,
 * serial numbers, the caller's data scope). Every transition is one guarded UPDATE (`… WHERE state IN (…)`), so a
 * duplicate or late message cannot move a task backwards, and every sweep is safe on N nodes at once.
 */
export class TaskRepository extends Repository {
  // -----------------------------------------------------------------------------------------------------------
  // Written by other modules inside their transactions (this repository bound to it)

  /** Inserts tasks of one tenant; answers the new rows. */
  insertTasks(tenantId: number, specs: TaskSpec[]): Promise<TaskRow[]> {
    return this.scope(tenantId)
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

  /** Cancels every unfinished task of a device; answers the canceled rows. */
  cancelOpenOfDevice(tenantId: number, deviceId: number, reason: string): Promise<TaskRow[]> {
    return this.scope(tenantId)
      .updateTable('device_tasks')
      .set({ state: 'canceled', error: reason, finished_at: new Date(), updated_at: new Date() })
      .where('device_tasks.device_id', '=', deviceId)
      .where('device_tasks.state', 'in', OPEN_TASK_STATES)
      .returningAll()
      .execute();
  }

  // -----------------------------------------------------------------------------------------------------------
  // The console's side

  /**
   * The batch (for several devices), a task per device (already `sent` for a device online now) and the system
   * log's entry, in one statement; no row at all when a device is outside the tenant or the data scope. The
   * `sent` columns follow `markSent`'s rule for a task being written: change one, change both.
   */
  async insertCommands(c: NewCommands): Promise<SentRow[]> {
    const { entry } = c;
    const many = c.deviceIds.length > 1;
    const { rows } = await sql<SentRow>`
      WITH found AS (
        SELECT devices.id, devices.sn, devices.status = 'online' AS online FROM devices
        WHERE devices.tenant_id = ${c.tenantId} AND devices.id = ANY(${c.deviceIds}::bigint[])
          AND ${c.devices ?? sql<boolean>`true`}
      ), whole AS (
        SELECT count(*) = ${c.deviceIds.length} AS ok FROM found
      ), batch AS (
        INSERT INTO task_batches (tenant_id, type, targets, created_by)
        SELECT ${c.tenantId}, ${c.type}, ${JSON.stringify({ deviceIds: c.deviceIds })}::jsonb, ${c.userId}
        FROM whole WHERE whole.ok AND ${many}
        RETURNING id
      ), task AS (
        INSERT INTO device_tasks (tenant_id, batch_id, device_id, type, created_by, expire_at, state, attempts, sent_at)
        SELECT ${c.tenantId}, (SELECT id FROM batch), found.id, ${c.type}, ${c.userId}, ${c.expireAt},
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
      SELECT task.*, found.sn FROM task JOIN found ON found.id = task.device_id`.execute(this.db);
    return rows;
  }

  /** Whether a device of the tenant inside `devices` (a condition on `devices`; none: any of the tenant's) exists. */
  async deviceExists(tenantId: number, deviceId: number, devices: DevicesInScope): Promise<boolean> {
    const row = await this.scope(tenantId)
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', '=', deviceId)
      .where(devices ?? sql<boolean>`true`)
      .executeTakeFirst();
    return !!row;
  }

  /** A batch of the tenant with a task of a device inside `devices`. */
  findBatch(tenantId: number, id: number, devices: DevicesInScope): Promise<BatchRow | undefined> {
    return this.scope(tenantId)
      .selectFrom('task_batches')
      .select(['task_batches.id', 'task_batches.type', 'task_batches.created_at'])
      .where('task_batches.id', '=', id)
      .where(batchInScope(tenantId, devices))
      .executeTakeFirst();
  }

  /** A page of the tenant's tasks of devices inside `devices`, newest first, with their devices' sn and name; and the count. */
  async listTasks(
    tenantId: number,
    q: TaskListParams,
    devices: DevicesInScope,
  ): Promise<{ rows: (TaskRow & { sn: string; device_name: string })[]; total: number }> {
    let base = this.scope(tenantId).selectFrom('device_tasks').where(taskInScope(tenantId, devices));
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
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** A batch's tasks of devices inside `devices`, counted by state. */
  countBatchStates(
    tenantId: number,
    batchId: number,
    devices: DevicesInScope,
  ): Promise<{ state: TaskState; n: number }[]> {
    return this.scope(tenantId)
      .selectFrom('device_tasks')
      .select(['device_tasks.state', sql<number>`count(*)`.as('n')])
      .where('device_tasks.batch_id', '=', batchId)
      .where(taskInScope(tenantId, devices))
      .groupBy('device_tasks.state')
      .execute();
  }

  /** A page of the tenant's batches seen through `devices`, newest first; and their count. */
  async listBatches(
    tenantId: number,
    q: { pageNo: number; pageSize: number },
    devices: DevicesInScope,
  ): Promise<{ rows: BatchRow[]; total: number }> {
    const scope = this.scope(tenantId);
    const [rows, total] = await Promise.all([
      scope
        .selectFrom('task_batches')
        .select(['task_batches.id', 'task_batches.type', 'task_batches.created_at'])
        .where(batchInScope(tenantId, devices))
        .orderBy('task_batches.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      scope
        .selectFrom('task_batches')
        .select(sql<number>`count(*)`.as('n'))
        .where(batchInScope(tenantId, devices))
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** The tasks of several batches of devices inside `devices`, counted by batch and state. */
  countStatesOfBatches(
    tenantId: number,
    batchIds: number[],
    devices: DevicesInScope,
  ): Promise<{ batch_id: number | null; state: TaskState; n: number }[]> {
    return this.scope(tenantId)
      .selectFrom('device_tasks')
      .select(['device_tasks.batch_id', 'device_tasks.state', sql<number>`count(*)`.as('n')])
      .where('device_tasks.batch_id', 'in', batchIds)
      .where(taskInScope(tenantId, devices))
      .groupBy(['device_tasks.batch_id', 'device_tasks.state'])
      .execute();
  }

  /** Cancels an unfinished task of a device inside `devices`; answers it, or undefined. */
  cancelTask(tenantId: number, id: string, devices: DevicesInScope): Promise<TaskRow | undefined> {
    return this.scope(tenantId)
      .updateTable('device_tasks')
      .set({ state: 'canceled', error: 'canceled by the user', finished_at: new Date(), updated_at: new Date() })
      .where('device_tasks.id', '=', id)
      .where(taskInScope(tenantId, devices))
      .where('device_tasks.state', 'in', OPEN_TASK_STATES)
      .returningAll()
      .executeTakeFirst();
  }

  /** The state of a task of a device inside `devices`, or undefined. */
  async stateOf(tenantId: number, id: string, devices: DevicesInScope): Promise<TaskState | undefined> {
    const row = await this.scope(tenantId)
      .selectFrom('device_tasks')
      .select('device_tasks.state')
      .where('device_tasks.id', '=', id)
      .where(taskInScope(tenantId, devices))
      .executeTakeFirst();
    return row?.state;
  }

  // -----------------------------------------------------------------------------------------------------------
  // The device's side

  /**
   * Marks the given tasks of online devices sent; answers them. `insertCommands` writes a new task for an online
   * device `sent` by the same rule, inline.
   */
  async markSent(taskIds: string[]): Promise<SentRow[]> {
    const { rows } = await sql<SentRow>`
      UPDATE device_tasks t SET state = 'sent', attempts = t.attempts + 1, sent_at = now(), updated_at = now()
      FROM devices d
      WHERE t.id = ANY(${sql`${taskIds}::uuid[]`}) AND d.id = t.device_id AND d.status = 'online'
        AND t.state IN ('queued', 'timeout') AND t.attempts < t.max_attempts AND t.expire_at > now()
      RETURNING t.*, d.sn`.execute(this.db);
    return rows;
  }

  /** On hello: what the device has not taken is a new delivery (`sent`, one more attempt). */
  async resendUntaken(deviceId: number): Promise<SentRow[]> {
    const { rows } = await sql<SentRow>`
        UPDATE device_tasks t SET state = 'sent', attempts = t.attempts + 1, sent_at = now(), updated_at = now()
        FROM devices d
        WHERE t.device_id = ${deviceId} AND d.id = t.device_id
          AND t.state IN ('queued', 'sent', 'timeout') AND t.attempts < t.max_attempts AND t.expire_at > now()
        RETURNING t.*, d.sn`.execute(this.db);
    return rows;
  }

  /** On hello: what the device took but never reported (delivered, running), to go again as it is. */
  async listTaken(deviceId: number): Promise<SentRow[]> {
    const { rows } = await sql<SentRow>`
        SELECT t.*, d.sn FROM device_tasks t JOIN devices d ON d.id = t.device_id
        WHERE t.device_id = ${deviceId} AND t.state IN ('delivered', 'running') AND t.expire_at > now()`.execute(
      this.db,
    );
    return rows;
  }

  /** A positive ack, committed without waiting for the disk. */
  async markDelivered(deviceId: number, taskId: string): Promise<TaskRow[]> {
    const { rows } = await sql<TaskRow>`${PREPARED}
        UPDATE device_tasks SET state = 'delivered', delivered_at = now(), updated_at = now()
        FROM ${NO_FLUSH_WAIT}
        WHERE id = ${taskId} AND device_id = ${deviceId} AND state IN ('sent', 'timeout')
        RETURNING device_tasks.*`.execute(this.db);
    return rows;
  }

  /** A refusal: the task fails. */
  async markRefused(deviceId: number, taskId: string, error: string): Promise<TaskRow[]> {
    const { rows } = await sql<TaskRow>`
      UPDATE device_tasks SET state = 'failed', error = ${error}, finished_at = now(), updated_at = now()
      WHERE id = ${taskId} AND device_id = ${deviceId} AND state IN ('sent', 'timeout', 'delivered')
      RETURNING *`.execute(this.db);
    return rows;
  }

  /** A progress report, committed without waiting for the disk; a stale one changes nothing. */
  async markProgress(deviceId: number, m: Pick<ProgressMsg, 'id' | 'progress' | 'stage'>): Promise<TaskRow[]> {
    const { rows } = await sql<TaskRow>`${PREPARED}
        UPDATE device_tasks SET state = 'running', progress = ${m.progress}, stage = coalesce(${m.stage ?? null}::text, stage),
          started_at = coalesce(started_at, now()), delivered_at = coalesce(delivered_at, now()), updated_at = now()
        FROM ${NO_FLUSH_WAIT}
        WHERE id = ${m.id} AND device_id = ${deviceId}
          AND (state IN ('sent', 'timeout', 'delivered')
            OR (state = 'running' AND (progress < ${m.progress} OR stage IS DISTINCT FROM coalesce(${m.stage ?? null}::text, stage))))
        RETURNING device_tasks.*`.execute(this.db);
    return rows;
  }

  /** The device's result. */
  async markResult(deviceId: number, m: Pick<ResultMsg, 'id' | 'ok' | 'error'>): Promise<TaskRow[]> {
    const { rows } = await sql<TaskRow>`${PREPARED}
      UPDATE device_tasks SET state = ${m.ok ? 'succeeded' : 'failed'}, progress = CASE WHEN ${m.ok} THEN 100 ELSE progress END,
        error = ${m.ok ? '' : m.error || 'failed on the device'}, delivered_at = coalesce(delivered_at, now()),
        finished_at = now(), updated_at = now()
      WHERE id = ${m.id} AND device_id = ${deviceId} AND state IN ('sent', 'timeout', 'delivered', 'running')
      RETURNING *`.execute(this.db);
    return rows;
  }

  // -----------------------------------------------------------------------------------------------------------
  // The sweep (each a guarded UPDATE: N nodes may sweep at once)

  /** Unfinished tasks past their expiry: expired, or failed when the device had taken them. */
  async expireDue(): Promise<TaskRow[]> {
    const { rows } = await sql<TaskRow>`
      UPDATE device_tasks SET
        state = CASE WHEN state IN ('delivered', 'running') THEN 'failed' ELSE 'expired' END,
        error = CASE WHEN state IN ('delivered', 'running') THEN 'no result from the device before the task expired'
                     ELSE 'the device did not take the task before it expired' END,
        finished_at = now(), updated_at = now()
      WHERE state IN ('queued', 'sent', 'timeout', 'delivered', 'running') AND expire_at <= now()
      RETURNING *`.execute(this.db);
    return rows;
  }

  /** Sent tasks without an ack for `ackTimeoutS`: timeout, or failed after max_attempts. */
  async timeOutUnacked(ackTimeoutS: number): Promise<TaskRow[]> {
    const { rows } = await sql<TaskRow>`
      UPDATE device_tasks SET
        state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'timeout' END,
        error = CASE WHEN attempts >= max_attempts THEN 'no acknowledgement from the device after ' || attempts || ' attempts' ELSE '' END,
        finished_at = CASE WHEN attempts >= max_attempts THEN now() END,
        updated_at = now()
      WHERE state = 'sent' AND sent_at <= now() - make_interval(secs => ${ackTimeoutS}::float8)
      RETURNING *`.execute(this.db);
    return rows;
  }

  /**
   * Tasks taken by a device that is online but has said nothing of them for `resultTimeoutS` (or since it came
   * back): timeout (sent again), or failed after max_attempts.
   */
  async timeOutSilent(resultTimeoutS: number): Promise<TaskRow[]> {
    const { rows } = await sql<TaskRow>`
      UPDATE device_tasks t SET
        state = CASE WHEN t.attempts >= t.max_attempts THEN 'failed' ELSE 'timeout' END,
        error = CASE WHEN t.attempts >= t.max_attempts THEN 'no result from the device after ' || t.attempts || ' attempts' ELSE '' END,
        finished_at = CASE WHEN t.attempts >= t.max_attempts THEN now() END,
        updated_at = now()
      FROM devices d
      WHERE d.id = t.device_id AND t.state IN ('delivered', 'running') AND d.status = 'online'
        AND greatest(t.updated_at, d.connected_at) <= now() - make_interval(secs => ${resultTimeoutS}::float8)
      RETURNING t.*`.execute(this.db);
    return rows;
  }

  /**
   * Timed-out tasks of online devices whose back-off passed, marked sent; SKIP LOCKED: when two nodes sweep at
   * once, each resend is claimed by one of them.
   */
  async claimResends(retryBackoffS: number): Promise<SentRow[]> {
    const { rows } = await sql<SentRow>`
      WITH due AS (
        SELECT t.id FROM device_tasks t JOIN devices d ON d.id = t.device_id
        WHERE t.state = 'timeout' AND d.status = 'online' AND t.expire_at > now() AND t.attempts < t.max_attempts
          AND t.updated_at <= now() - make_interval(secs => ${retryBackoffS}::float8 * power(2, greatest(t.attempts - 1, 0)))
        ORDER BY t.updated_at
        LIMIT 500
        FOR UPDATE OF t SKIP LOCKED
      )
      UPDATE device_tasks t SET state = 'sent', attempts = t.attempts + 1, sent_at = now(), updated_at = now()
      FROM due, devices d
      WHERE t.id = due.id AND d.id = t.device_id
      RETURNING t.*, d.sn`.execute(this.db);
    return rows;
  }
}

const DEPARTMENT = inDataScope({
  scope: 'department',
  tenantId: 3,
  userId: 12,
  departmentId: 5,
  departmentPath: '1/5/',
});
const SPEC: TaskSpec = {
  deviceId: 101,
  type: 'reboot',
  params: {},
  expireAt: new Date('2026-01-02T00:00:00Z'),
  createdBy: 12,
  batchId: 61,
};
const TASK = '5f0c2a9e-3b1d-4c7a-9e2f-1a2b3c4d5e6f';
const sentRow = { id: TASK, device_id: 101, sn: 'CPC58A0001', state: 'sent' };

export const taskQueries = defineQueries(TaskRepository, {
  insertTasks: [
    [3, [SPEC]],
    [3, [{ ...SPEC, createdBy: null, maxAttempts: 5 }]],
  ],
  cancelOpenOfDevice: [[3, 101, 'device unbound']],
  insertCommands: [
    ...[[101], [101, 102]].map((deviceIds) => ({
      args: [
        {
          tenantId: 3,
          userId: 12,
          type: 'reboot' as const,
          deviceIds,
          expireAt: new Date('2026-01-01T01:00:00Z'),
          devices: deviceIds.length > 1 ? DEPARTMENT : undefined,
          entry: auditRow({
            tenantId: 3,
            userId: 12,
            ip: '203.0.113.7',
            action: 'device.reboot',
            resource: deviceIds.length > 1 ? 'task_batch' : 'device_task',
            result: 'ok',
            changes: { type: { before: undefined, after: 'reboot' } },
          }),
        },
      ] as [NewCommands],
      results: [[sentRow]],
    })),
  ],
  deviceExists: [[3, 101, DEPARTMENT]],
  findBatch: [
    [3, 61, undefined],
    [3, 61, DEPARTMENT],
  ],
  listTasks: [
    { args: [3, { pageNo: 1, pageSize: 20 }, undefined], results: [[], [{ n: 0 }]] },
    {
      args: [3, { pageNo: 2, pageSize: 20, deviceId: 101, batchId: 61, state: 'running' }, DEPARTMENT],
      results: [[], [{ n: 0 }]],
    },
  ],
  countBatchStates: [[3, 61, DEPARTMENT]],
  listBatches: [
    { args: [3, { pageNo: 1, pageSize: 20 }, undefined], results: [[], [{ n: 0 }]] },
    { args: [3, { pageNo: 1, pageSize: 20 }, DEPARTMENT], results: [[], [{ n: 0 }]] },
  ],
  countStatesOfBatches: [[3, [61, 62], DEPARTMENT]],
  cancelTask: [
    [3, TASK, undefined],
    [3, TASK, DEPARTMENT],
  ],
  stateOf: [[3, TASK, DEPARTMENT]],
  markSent: [[[TASK]]],
  resendUntaken: [[101]],
  listTaken: [[101]],
  markDelivered: [[101, TASK]],
  markRefused: [[101, TASK, 'busy']],
  markProgress: [[101, { id: TASK, progress: 40, stage: 'downloading' }]],
  markResult: [
    [101, { id: TASK, ok: true }],
    [101, { id: TASK, ok: false, error: 'disk full' }],
  ],
  expireDue: [[]],
  timeOutUnacked: [[30]],
  timeOutSilent: [[300]],
  claimResends: [[10]],
});
