import { sql, type RawBuilder, type Selectable } from 'kysely';
import {
  OPEN_TASK_STATES,
  PUSH_DISPLAYED_STAGE,
  UNDELIVERED_STATES,
  type DeliveryListQuery,
  type DeliveryState,
  type PushListQuery,
} from '@cpc/contracts';
import { defineQueries, skip } from '../../db/query-spec.ts';
import type { Database } from '../../db/schema.ts';
import { inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { enqueueTasks, type ChangedTask, type TaskSpec } from '../task/index.ts';
import { Repository } from '../../db/repository.ts';
import { countDevicesOf, countGroupsOf } from '../device/index.ts';

export type PushRow = Selectable<Database['pushes']>;

/** A push with the username of its sender. */
export type PushWithCreator = PushRow & { creator: string | null };

/** What a new push is stored with (targets and the sender's scope as JSON text). */
export interface PushValues {
  kind: PushRow['kind'];
  title: string;
  body: string;
  image_key: string | null;
  link: string | null;
  notice_seconds: number | null;
  targets: string;
  scope: string;
  state: PushRow['state'];
  scheduled_at: Date | null;
  started_at: Date | null;
  expire_at: Date;
  created_by: number;
}

/** A delivery of a push with its device and its task's times. */
export interface DeliveryRow {
  device_id: string;
  sn: string;
  name: string;
  status: string;
  task_id: string | null;
  state: DeliveryState;
  error: string | null;
  attempts: number | null;
  sent_at: Date | null;
  delivered_at: Date | null;
  displayed_at: Date | null;
  clicked_at: Date | null;
  updated_at: Date | null;
}

/**
 * A delivery's state, read from its task (alias `t`) and its click (`pd.clicked_at`): never stored, so it is
 * always what the device did, and a restart loses nothing.
 */
export const deliveryState = sql<DeliveryState>`(CASE
  WHEN pd.clicked_at IS NOT NULL THEN 'clicked'
  WHEN t.id IS NULL OR t.state = 'queued' THEN 'queued'
  WHEN t.state = 'succeeded' OR (t.state = 'running' AND t.stage = ${PUSH_DISPLAYED_STAGE}) THEN 'displayed'
  WHEN t.state IN ('delivered', 'running') THEN 'delivered'
  WHEN t.state IN ('sent', 'timeout') THEN 'sent'
  WHEN t.state = 'expired' THEN 'expired'
  ELSE 'failed' END)`;

/** Which devices a push's targets name (already deduplicated). */
export interface TargetIds {
  all?: boolean;
  deviceIds: number[];
  groupIds: number[];
}

/** A push the reader sees: made by them, or with a device inside their data scope (all: every push). */
function visible(access: DataAccess): RawBuilder<boolean> {
  if (access.scope === 'all') return sql<boolean>`true`;
  return sql<boolean>`(pushes.created_by = ${access.userId} or exists (
      select 1 from push_deliveries pv join devices dv on dv.id = pv.device_id
      where pv.push_id = pushes.id and ${inDataScope(access, 'dv')}))`;
}

/**
 * Every statement of the push module: `pushes` and `push_deliveries`; what it reads of devices, device groups,
 * users and uploaded objects, the `push_message` device tasks it adds (through the task module) and cancels, and
 * the system log entries written inside its transactions.
 */
export class PushRepository extends Repository {
  /** How many of the device groups `ids` are the tenant's. */
  countGroups(tenantId: number, ids: number[]): Promise<number> {
    return countGroupsOf(this.db, tenantId, ids);
  }

  /** How many of the devices `ids` are the tenant's and in the data scope. */
  countDevicesInReach(tenantId: number, access: DataAccess, ids: number[]): Promise<number> {
    return countDevicesOf(this.db, tenantId, ids, inDataScope(access));
  }

  /**
   * The tenant's devices in the data scope that the targets name (every one for `all`; else the devices given
   * and those of the groups given and their sub-groups): id and status, by id.
   */
  targetDevices(tenantId: number, access: DataAccess, targets: TargetIds) {
    let q = this.scope(tenantId)
      .selectFrom('devices')
      .select(['devices.id', 'devices.status'])
      .where(inDataScope(access));
    if (!targets.all) {
      const { deviceIds, groupIds } = targets;
      const any: RawBuilder<boolean>[] = [];
      if (deviceIds.length) any.push(sql<boolean>`devices.id = any(${deviceIds}::bigint[])`);
      if (groupIds.length)
        any.push(
          sql<boolean>`devices.group_id in (with recursive g(id) as (
            select id from device_groups where tenant_id = ${tenantId} and id = any(${groupIds}::bigint[])
            union select c.id from device_groups c join g on c.parent_id = g.id where c.tenant_id = ${tenantId}
          ) select id from g)`,
        );
      q = q.where(sql<boolean>`(${sql.join(any, sql` or `)})`);
    }
    return q.orderBy('devices.id').execute();
  }

  /** The tenant's uploaded object `key` (its key and type), or undefined. */
  findObject(tenantId: number, key: string) {
    return this.scope(tenantId)
      .selectFrom('objects')
      .select(['objects.key', 'objects.mime'])
      .where('objects.key', '=', key)
      .executeTakeFirst();
  }

  /** Adds a push; returns its row. */
  insertPush(tenantId: number, values: PushValues): Promise<PushRow> {
    return this.scope(tenantId).insertInto('pushes', values).returningAll().executeTakeFirstOrThrow();
  }

  /** Queues device tasks for the tenant (the task module's statement). */
  enqueueTasks(tenantId: number, specs: TaskSpec[]): Promise<ChangedTask[]> {
    return enqueueTasks(this.scope(tenantId), specs);
  }

  /** Records each device's delivery of the push as its new task (a delivery already there: task replaced, unclicked). */
  async upsertDeliveries(tenantId: number, pushId: number, tasks: Array<{ id: string; device_id: number }>) {
    await this.scope(tenantId)
      .insertInto(
        'push_deliveries',
        tasks.map((t) => ({ push_id: pushId, device_id: t.device_id, task_id: t.id })),
      )
      .onConflict((oc) =>
        oc
          .columns(['push_id', 'device_id'])
          .doUpdateSet({ task_id: (eb) => eb.ref('excluded.task_id'), clicked_at: null }),
      )
      .execute();
  }

  /** The first scheduled push whose time has come, locked, skipping those another node holds; or undefined. */
  claimDue(now: Date): Promise<PushRow | undefined> {
    return this.db
      .selectFrom('pushes')
      .selectAll()
      .where('state', '=', 'scheduled')
      .where('scheduled_at', '<=', now)
      .orderBy('scheduled_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
  }

  /** A scheduled push started now, in `state` (`done` when it had no device: finished too). */
  async markStarted(id: number, state: PushRow['state'], now: Date): Promise<void> {
    await this.db
      .updateTable('pushes')
      .set({ state, started_at: now, updated_at: now, ...(state === 'done' ? { finished_at: now } : {}) })
      .where('id', '=', id)
      .execute();
  }

  /** Pushes under way none of whose tasks is open any more become done (one guarded UPDATE: safe on N nodes). */
  async finishDone(): Promise<Array<{ id: string; tenant_id: string }>> {
    const { rows } = await sql<{ id: string; tenant_id: string }>`
      UPDATE pushes p SET state = 'done', finished_at = now(), updated_at = now()
      WHERE p.state = 'sending' AND NOT EXISTS (
        SELECT 1 FROM push_deliveries pd JOIN device_tasks t ON t.id = pd.task_id
        WHERE pd.push_id = p.id AND t.state = ANY(${[...OPEN_TASK_STATES]}::text[]))
      RETURNING p.id, p.tenant_id`.execute(this.db);
    return rows;
  }

  /** Which of these pushes of the reader's tenant it sees. */
  async visibleIds(access: DataAccess, ids: number[]): Promise<number[]> {
    const rows = await this.db
      .selectFrom('pushes')
      .select('pushes.id')
      .where('pushes.tenant_id', '=', access.tenantId)
      .where('pushes.id', 'in', ids)
      .where(visible(access))
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** Per push and delivery state: how many deliveries to devices in the data scope. */
  async counts(ids: number[], access: DataAccess) {
    const { rows } = await sql<{ push_id: string; state: DeliveryState; n: string }>`
      SELECT pd.push_id, ${deliveryState} AS state, count(*) AS n
      FROM push_deliveries pd
      JOIN devices d ON d.id = pd.device_id
      LEFT JOIN device_tasks t ON t.id = pd.task_id
      WHERE pd.push_id = ANY(${ids}::bigint[]) AND ${inDataScope(access, 'd')}
      GROUP BY 1, 2`.execute(this.db);
    return rows;
  }

  /** A page of the pushes the reader sees (by state, kind, time, title or body), newest first; how many match. */
  async listPage(tenantId: number, access: DataAccess, q: PushListQuery) {
    let base = this.scope(tenantId).selectFrom('pushes').where(visible(access));
    if (q.state) base = base.where('pushes.state', '=', q.state);
    if (q.kind) base = base.where('pushes.kind', '=', q.kind);
    if (q.from) base = base.where('pushes.created_at', '>=', new Date(q.from));
    if (q.to) base = base.where('pushes.created_at', '<', new Date(q.to));
    if (q.keyword) {
      const like = `%${q.keyword.replace(/[\\%_]/g, '\\$&')}%`;
      base = base.where((eb) => eb.or([eb('pushes.title', 'ilike', like), eb('pushes.body', 'ilike', like)]));
    }
    const [rows, total] = await Promise.all([
      base
        .leftJoin('users', 'users.id', 'pushes.created_by')
        .selectAll('pushes')
        .select('users.username as creator')
        .orderBy('pushes.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows: rows as PushWithCreator[], total: Number(total.n) };
  }

  /** The push if the reader sees it, with its sender's username; or undefined. */
  findVisible(tenantId: number, access: DataAccess, id: number): Promise<PushWithCreator | undefined> {
    return this.scope(tenantId)
      .selectFrom('pushes')
      .leftJoin('users', 'users.id', 'pushes.created_by')
      .selectAll('pushes')
      .select('users.username as creator')
      .where('pushes.id', '=', id)
      .where(visible(access))
      .executeTakeFirst();
  }

  /** A page of a push's deliveries to devices in the data scope (by state), by device; how many match. */
  async deliveryPage(tenantId: number, access: DataAccess, q: DeliveryListQuery) {
    const where = sql`pd.push_id = ${q.id} AND pd.tenant_id = ${tenantId} AND ${inDataScope(access, 'd')}
      ${q.state ? sql`AND ${deliveryState} = ${q.state}` : sql``}`;
    const from = sql`FROM push_deliveries pd JOIN devices d ON d.id = pd.device_id LEFT JOIN device_tasks t ON t.id = pd.task_id`;
    const [{ rows }, { rows: total }] = await Promise.all([
      sql<DeliveryRow>`SELECT pd.device_id, d.sn, d.name, d.status, pd.task_id, ${deliveryState} AS state, t.error, t.attempts,
          t.sent_at, t.delivered_at,
          CASE WHEN t.state = 'succeeded' OR (t.state = 'running' AND t.stage = ${PUSH_DISPLAYED_STAGE})
            THEN coalesce(t.finished_at, t.started_at) END AS displayed_at,
          pd.clicked_at, greatest(t.updated_at, pd.clicked_at) AS updated_at
        ${from} WHERE ${where}
        ORDER BY pd.device_id LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(this.db),
      sql<{ n: string }>`SELECT count(*) AS n ${from} WHERE ${where}`.execute(this.db),
    ]);
    return { rows, total: Number(total[0]?.n ?? 0) };
  }

  /** Cancels the push if it is still scheduled; whether it was. */
  async cancelScheduled(tenantId: number, id: number, now: Date): Promise<boolean> {
    const row = await this.scope(tenantId)
      .updateTable('pushes')
      .set({ state: 'canceled', finished_at: now, updated_at: now })
      .where('pushes.id', '=', id)
      .where('pushes.state', '=', 'scheduled')
      .returning('pushes.id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The push's deliveries to devices in the data scope that were not displayed, locked until the transaction ends. */
  async lockUndelivered(tenantId: number, access: DataAccess, id: number) {
    const { rows } = await sql<{ device_id: string; task_id: string | null; state: DeliveryState }>`
        SELECT pd.device_id, pd.task_id, ${deliveryState} AS state
        FROM push_deliveries pd JOIN devices d ON d.id = pd.device_id LEFT JOIN device_tasks t ON t.id = pd.task_id
        WHERE pd.push_id = ${id} AND pd.tenant_id = ${tenantId} AND ${inDataScope(access, 'd')}
          AND ${deliveryState} = ANY(${[...UNDELIVERED_STATES]}::text[])
        FOR UPDATE OF pd`.execute(this.db);
    return rows;
  }

  /** Cancels the tenant's tasks of `ids` that are still open (replaced by a retry); the changed tasks. */
  cancelOpenTasks(tenantId: number, ids: string[], now: Date): Promise<ChangedTask[]> {
    return this.scope(tenantId)
      .updateTable('device_tasks')
      .set({ state: 'canceled', error: 'replaced by a retry', finished_at: now, updated_at: now })
      .where('device_tasks.id', 'in', ids)
      .where('device_tasks.state', 'in', OPEN_TASK_STATES)
      .returningAll()
      .execute() as Promise<ChangedTask[]>;
  }

  /** The push is sending again, until `expireAt`. */
  async restart(tenantId: number, id: number, expireAt: Date, now: Date): Promise<void> {
    await this.scope(tenantId)
      .updateTable('pushes')
      .set({ state: 'sending', expire_at: expireAt, finished_at: null, updated_at: now })
      .where('pushes.id', '=', id)
      .execute();
  }

  /** The device's delivery of the task was clicked (the first click counts); its push and tenant, or undefined. */
  markClicked(deviceId: number, taskId: string, now: Date) {
    return this.db
      .updateTable('push_deliveries')
      .set({ clicked_at: now })
      .where('task_id', '=', taskId)
      .where('device_id', '=', deviceId)
      .where('clicked_at', 'is', null)
      .returning(['push_id', 'tenant_id'])
      .executeTakeFirst();
  }

  /** The state of each of these pushes. */
  async states(ids: number[]) {
    const { rows } = await sql<{
      id: string;
      state: string;
    }>`SELECT id, state FROM pushes WHERE id = ANY(${ids}::bigint[])`.execute(this.db);
    return rows;
  }
}

const department: DataAccess = { scope: 'department', tenantId: 3, userId: 7, departmentId: 5, departmentPath: '1/5/' };
const all: DataAccess = { scope: 'all', tenantId: 3, userId: 2, departmentId: null, departmentPath: null };
const at = new Date('2026-01-01T09:00:00Z');

export const queries = defineQueries(PushRepository, {
  enqueueTasks: skip('inserts through the task module’s enqueueTasks: those statements are its'),
  countGroups: skip('the device module counts them (countDevicesOf / countGroupsOf)'),
  countDevicesInReach: skip('the device module counts them (countDevicesOf / countGroupsOf)'),
  targetDevices: [
    [3, all, { all: true, deviceIds: [], groupIds: [] }],
    [3, department, { deviceIds: [41, 42], groupIds: [4] }],
    [3, department, { deviceIds: [41], groupIds: [] }],
  ],
  findObject: [[3, 'tenants/3/push/banner.png']],
  insertPush: [
    {
      args: [
        3,
        {
          kind: 'notice',
          title: 'Closing at 18:00',
          body: 'Please collect your prints before closing.',
          image_key: null,
          link: null,
          notice_seconds: 30,
          targets: '{"groupIds":[4]}',
          scope: '{"scope":"department","userId":7,"departmentId":5,"departmentPath":"1/5/"}',
          state: 'scheduled',
          scheduled_at: new Date('2026-01-02T09:00:00Z'),
          started_at: null,
          expire_at: new Date('2026-01-03T09:00:00Z'),
          created_by: 7,
        },
      ],
      results: [[{ id: 21 }]],
    },
  ],
  upsertDeliveries: [
    [
      3,
      21,
      [
        { id: '0b7c3a52-6f43-4f0e-9f51-1c8d2b7e4a10', device_id: 41 },
        { id: '5d2e9c1a-3b4f-4a6e-8c7d-2f1e0a9b8c7d', device_id: 42 },
      ],
    ],
  ],
  claimDue: [[at]],
  markStarted: [
    [21, 'sending', at],
    [21, 'done', at],
  ],
  finishDone: [[]],
  visibleIds: [
    [all, [21, 22]],
    [department, [21, 22]],
  ],
  counts: [[[21, 22], department]],
  listPage: [
    [3, all, { pageNo: 1, pageSize: 20 }],
    [
      3,
      department,
      {
        pageNo: 2,
        pageSize: 20,
        state: 'sending',
        kind: 'text',
        from: '2026-01-01T00:00:00.000Z',
        to: '2026-01-08T00:00:00.000Z',
        keyword: 'closing',
      },
    ],
  ],
  findVisible: [[3, department, 21]],
  deliveryPage: [
    [3, all, { id: 21, pageNo: 1, pageSize: 20 }],
    [3, department, { id: 21, pageNo: 1, pageSize: 20, state: 'failed' }],
  ],
  cancelScheduled: [[3, 21, at]],
  lockUndelivered: [[3, department, 21]],
  cancelOpenTasks: [[3, ['0b7c3a52-6f43-4f0e-9f51-1c8d2b7e4a10'], at]],
  restart: [[3, 21, new Date('2026-01-03T09:00:00Z'), at]],
  markClicked: [[41, '0b7c3a52-6f43-4f0e-9f51-1c8d2b7e4a10', at]],
  states: [[[21, 22]]],
});
