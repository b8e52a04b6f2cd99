import { sql } from 'kysely';
import { OPEN_TASK_STATES, type FileRequestState } from '@cpc/contracts';
import { defineQueries, skip } from '../../db/query-spec.ts';
import { inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { enqueueTasks, type ChangedTask, type TaskSpec } from '../task/index.ts';
import { Repository } from '../../db/repository.ts';
import { countDevicesOf } from '../device/index.ts';

/** The state the console shows, read from the request and its task (nothing to keep in step: a node may die). */
const STATE_SQL = sql<FileRequestState>`CASE
  WHEN r.ready THEN 'ready'
  WHEN t.state = 'expired' OR (t.state IN ('queued', 'sent', 'timeout') AND t.expire_at <= now()) THEN 'expired'
  WHEN t.state IN ('failed', 'canceled', 'succeeded') THEN 'failed'
  WHEN r.received > 0 THEN 'uploading'
  WHEN t.state IN ('delivered', 'running') THEN 'delivered'
  ELSE 'waiting' END`;

/** A request as the console lists it, with its device and its task. */
export interface RequestListRow {
  id: string;
  device_id: string;
  sn: string;
  name: string;
  preset: string;
  pattern: string;
  max_bytes: string;
  state: FileRequestState;
  received: string;
  total: string;
  error: string;
  task_state: string;
  file_name: string;
  size: string;
  created_at: Date;
  expire_at: Date;
  completed_at: Date | null;
  task_id: string;
}

/** Which requests the console's list holds. */
export interface RequestFilter {
  ids?: number[];
  keyword?: string;
  state?: FileRequestState;
  preset?: string;
  pageNo?: number;
  pageSize?: number;
}

/** A new request of one device (its id drawn beforehand, its task queued with it). */
export interface RequestValues {
  id: number;
  device_id: number;
  task_id: string;
  preset: string;
  pattern: string;
  max_bytes: number;
  created_by: number;
}

/** The acquired file of a request, as an object of the tenant. */
export interface AcquiredObject {
  key: string;
  user_id: number;
  size: number;
  mime: string;
  original_name: string;
}

/** What a finished upload stores on its request. */
export interface ReadyValues {
  received: number;
  total: number;
  object_key: string;
  size: number;
  file_name: string;
  completed_at: Date;
}

/** The advisory lock key of the file-request sweep (a constant of its own). */
const SWEEP_LOCK = 0x46_41_51_01;

/**
 * Every statement of file acquisition: `file_requests`, the acquired files' rows in `objects`, the `fetch_file`
 * device tasks it adds (through the task module) and cancels, what it reads of devices and users, and the
 * system-log entries of the console's actions.
 */
export class FileAcquisitionRepository extends Repository {
  /** How many of the devices `ids` are the tenant's and in the data scope. */
  countDevicesInReach(tenantId: number, access: DataAccess, ids: number[]): Promise<number> {
    return countDevicesOf(this.db, tenantId, ids, inDataScope(access));
  }

  /** `n` new request ids (drawn before the tasks that carry them are queued). */
  async nextIds(n: number): Promise<number[]> {
    const { rows } = await sql<{ id: string }>`
        SELECT nextval(pg_get_serial_sequence('file_requests', 'id')) AS id
        FROM generate_series(1, ${n})`.execute(this.db);
    return rows.map((r) => Number(r.id));
  }

  /** Queues device tasks for the tenant (the task module's statement). */
  enqueueTasks(tenantId: number, specs: TaskSpec[]): Promise<ChangedTask[]> {
    return enqueueTasks(this.scope(tenantId), specs);
  }

  async insertRequests(tenantId: number, rows: RequestValues[]): Promise<void> {
    await this.scope(tenantId).insertInto('file_requests', rows).execute();
  }

  /**
   * A page of the tenant's requests on devices in the data scope (by ids, serial number, name, pattern or file
   * name, state, preset — 'path' for none), newest first; each row has the count of all that match.
   */
  async listPage(tenantId: number, access: DataAccess, q: RequestFilter) {
    const conds = [sql`r.tenant_id = ${tenantId}`, inDataScope(access, 'd')];
    if (q.ids) conds.push(sql`r.id = ANY(${q.ids.map(String)}::bigint[])`);
    if (q.keyword) {
      const like = `%${q.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      conds.push(
        sql`(d.sn ILIKE ${like} OR d.name ILIKE ${like} OR r.pattern ILIKE ${like} OR r.file_name ILIKE ${like})`,
      );
    }
    if (q.preset) conds.push(sql`r.preset = ${q.preset === 'path' ? '' : q.preset}`);
    const where = sql.join(conds, sql` AND `);
    const inner = sql`
      SELECT r.id, r.device_id, d.sn, d.name, r.preset, r.pattern, r.max_bytes, ${STATE_SQL} AS state, r.received,
        r.total, t.error, t.state AS task_state, r.file_name, r.size, r.created_at, t.expire_at, r.completed_at,
        r.task_id
      FROM file_requests r JOIN device_tasks t ON t.id = r.task_id JOIN devices d ON d.id = r.device_id
      WHERE ${where}`;
    const state = q.state ? sql`WHERE x.state = ${q.state}` : sql``;
    const pageSize = q.pageSize ?? 100;
    const offset = ((q.pageNo ?? 1) - 1) * pageSize;
    const { rows } = await sql<RequestListRow & { n: string }>`
      SELECT x.*, count(*) OVER () AS n FROM (${inner}) x ${state}
      ORDER BY x.created_at DESC, x.id DESC LIMIT ${pageSize} OFFSET ${offset}`.execute(this.db);
    return rows;
  }

  /** The object key of the tenant's request (null before its file arrived); throws when there is none. */
  async objectKeyOf(tenantId: number, id: number): Promise<string | null> {
    const row = await this.scope(tenantId)
      .selectFrom('file_requests')
      .select('object_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return row.object_key;
  }

  /** Cancels the tenant's tasks of `ids` that are still open (their request deleted); the changed tasks. */
  cancelOpenTasks(tenantId: number, ids: string[], now: Date): Promise<ChangedTask[]> {
    return this.scope(tenantId)
      .updateTable('device_tasks')
      .set({ state: 'canceled', error: 'request deleted', finished_at: now, updated_at: now })
      .where('device_tasks.id', 'in', ids)
      .where('device_tasks.state', 'in', OPEN_TASK_STATES)
      .returningAll()
      .execute() as Promise<ChangedTask[]>;
  }

  /** Deletes the tenant's requests and the objects of their files; the deleted requests' ids and object keys. */
  async deleteRequests(tenantId: number, ids: number[]) {
    const scope = this.scope(tenantId);
    const gone = await scope
      .deleteFrom('file_requests')
      .where('id', 'in', ids)
      .returning(['id', 'object_key'])
      .execute();
    const keys = gone.map((g) => g.object_key).filter((k): k is string => !!k);
    if (keys.length) await scope.deleteFrom('objects').where('key', 'in', keys).execute();
    return gone;
  }

  /** A request's upload state and its task's state and expiry, or undefined. */
  uploadState(requestId: number) {
    return this.db
      .selectFrom('file_requests as r')
      .innerJoin('device_tasks as t', 't.id', 'r.task_id')
      .select(['r.ready', 'r.total', 't.state', 't.expire_at'])
      .where('r.id', '=', requestId)
      .executeTakeFirst();
  }

  /** A request with its task's state and expiry, its row locked until the transaction ends (chunks never interleave). */
  lockForChunk(requestId: number) {
    return this.db
      .selectFrom('file_requests as r')
      .innerJoin('device_tasks as t', 't.id', 'r.task_id')
      .select([
        'r.id',
        'r.tenant_id',
        'r.device_id',
        'r.ready',
        'r.total',
        'r.max_bytes',
        'r.created_by',
        'r.pattern',
        't.state',
        't.expire_at',
      ])
      .where('r.id', '=', requestId)
      .forUpdate('r')
      .executeTakeFirst();
  }

  /** The bytes received so far of the tenant's request, and of how many. */
  async setProgress(tenantId: number, requestId: number, received: number, total: number): Promise<void> {
    await this.scope(tenantId)
      .updateTable('file_requests')
      .set({ received, total })
      .where('id', '=', requestId)
      .execute();
  }

  /** The tenant's first user (who owns an acquired file whose requester is gone). */
  async firstUserId(tenantId: number): Promise<number> {
    const row = await this.scope(tenantId).selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow();
    return row.id;
  }

  /** The acquired file as an object of the tenant (bucket 'acquired'). */
  async insertObject(tenantId: number, o: AcquiredObject): Promise<void> {
    await this.scope(tenantId)
      .insertInto('objects', {
        key: o.key,
        user_id: o.user_id,
        bucket: 'acquired',
        size: o.size,
        mime: o.mime,
        original_name: o.original_name,
      })
      .execute();
  }

  /** The tenant's request is ready: its file is the object `object_key`. */
  async markReady(tenantId: number, requestId: number, v: ReadyValues): Promise<void> {
    await this.scope(tenantId)
      .updateTable('file_requests')
      .set({
        received: v.received,
        total: v.total,
        ready: true,
        object_key: v.object_key,
        size: v.size,
        file_name: v.file_name,
        completed_at: v.completed_at,
      })
      .where('id', '=', requestId)
      .execute();
  }

  /** The object of a ready request (its key and type) and the file's name, or undefined. */
  fileOf(requestId: number) {
    return this.db
      .selectFrom('file_requests as r')
      .innerJoin('objects as o', 'o.key', 'r.object_key')
      .select(['o.key', 'o.mime', 'r.file_name'])
      .where('r.id', '=', requestId)
      .where('r.ready', '=', true)
      .executeTakeFirst();
  }

  /** Takes the sweep's lock until the transaction ends; false when another node holds it. */
  async trySweepLock(): Promise<boolean> {
    const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${SWEEP_LOCK}) AS ok`.execute(this.db);
    return !!rows[0]?.ok;
  }

  /** Up to 500 requests (of any tenant) made before `before`. */
  oldRequests(before: Date) {
    return this.db
      .selectFrom('file_requests')
      .select(['id', 'tenant_id'])
      .where('created_at', '<', before)
      .limit(500)
      .execute();
  }

  /** Which of these requests still wait for their file (not ready, their task open). */
  async stillOpen(ids: number[]): Promise<number[]> {
    const open = await this.db
      .selectFrom('file_requests as r')
      .innerJoin('device_tasks as t', 't.id', 'r.task_id')
      .select('r.id')
      .where('r.id', 'in', ids)
      .where('r.ready', '=', false)
      .where('t.state', 'in', OPEN_TASK_STATES)
      .execute();
    return open.map((o) => o.id);
  }
}

const department: DataAccess = { scope: 'department', tenantId: 3, userId: 7, departmentId: 5, departmentPath: '1/5/' };
const all: DataAccess = { scope: 'all', tenantId: 3, userId: 2, departmentId: null, departmentPath: null };
const at = new Date('2026-01-01T09:00:00Z');

export const queries = defineQueries(FileAcquisitionRepository, {
  enqueueTasks: skip('inserts through the task module’s enqueueTasks: those statements are its'),
  countDevicesInReach: skip('the device module counts them (countDevicesOf / countGroupsOf)'),
  nextIds: [[2]],
  insertRequests: [
    [
      3,
      [
        {
          id: 31,
          device_id: 41,
          task_id: '0b7c3a52-6f43-4f0e-9f51-1c8d2b7e4a10',
          preset: 'logs',
          pattern: '/sdcard/cpc/logs/*.log',
          max_bytes: 52_428_800,
          created_by: 7,
        },
      ],
    ],
  ],
  listPage: [
    [3, all, { ids: [31, 32], pageSize: 2 }],
    [3, department, { keyword: 'PR-0041', state: 'ready', preset: 'path', pageNo: 2, pageSize: 20 }],
  ],
  objectKeyOf: [{ args: [3, 31], results: [[{ object_key: 'tenants/3/acquired/app.log' }]] }],
  cancelOpenTasks: [[3, ['0b7c3a52-6f43-4f0e-9f51-1c8d2b7e4a10'], at]],
  deleteRequests: [
    {
      args: [3, [31, 32]],
      results: [
        [
          { id: 31, object_key: 'tenants/3/acquired/app.log' },
          { id: 32, object_key: null },
        ],
      ],
    },
  ],
  uploadState: [[31]],
  lockForChunk: [[31]],
  setProgress: [[3, 31, 1_048_576, 3_145_728]],
  firstUserId: [{ args: [3], results: [[{ id: 2 }]] }],
  insertObject: [
    [
      3,
      { key: 'tenants/3/acquired/app.log', user_id: 7, size: 3_145_728, mime: 'text/plain', original_name: 'app.log' },
    ],
  ],
  markReady: [
    [
      3,
      31,
      {
        received: 3_145_728,
        total: 3_145_728,
        object_key: 'tenants/3/acquired/app.log',
        size: 3_145_728,
        file_name: 'app.log',
        completed_at: at,
      },
    ],
  ],
  fileOf: [[31]],
  trySweepLock: [[]],
  oldRequests: [[new Date('2025-12-25T00:00:00Z')]],
  stillOpen: [[[31, 32]]],
});
