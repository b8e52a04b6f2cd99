import { sql, type RawBuilder, type Selectable } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import {
  DELIVERY_STATES,
  OPEN_TASK_STATES,
  PUSH_CLICKED_EVENT,
  PUSH_DISPLAYED_STAGE,
  PUSH_SCHEDULE_MAX_DAYS,
  UNDELIVERED_STATES,
  type DataScope,
  type DeliveryCounts,
  type DeliveryItem,
  type DeliveryListQuery,
  type DeliveryState,
  type Paged,
  type PushBody,
  type PushItem,
  type PushListQuery,
  type PushPreview,
  type PushState,
  type PushTargets,
} from '@cpc/contracts';
import type { EventMsg } from '@cpc/contracts/device-protocol';
import type { Db } from '../../db/database.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import { isJsonObject, type Database } from '../../db/schema.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { enqueueTasks, type ChangedTask, type EventSink, type TaskService } from '../task/index.ts';

type PushRow = Selectable<Database['pushes']>;

/** Who acts: the tenant, the user and the client address, and the user's data scope. */
export interface PushCaller {
  tenantId: number;
  userId: number;
  ip: string;
  access: DataAccess;
}

/** Live `push` events of one push are sent at most this often (a 10,000-device push: not one per device). */
export const PUSH_EVENT_MS = 500;
/** Tasks are inserted this many at a time (PostgreSQL takes at most 65,535 parameters per statement). */
const CHUNK = 2000;

const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());
const emptyCounts = (): DeliveryCounts =>
  Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;

/**
 * A delivery's state, read from its task (alias `t`) and its click (`pd.clicked_at`): never stored, so it is
 * always what the device did, and a restart loses nothing.
 */
const deliveryState = sql<DeliveryState>`(CASE
  WHEN pd.clicked_at IS NOT NULL THEN 'clicked'
  WHEN t.id IS NULL OR t.state = 'queued' THEN 'queued'
  WHEN t.state = 'succeeded' OR (t.state = 'running' AND t.stage = ${PUSH_DISPLAYED_STAGE}) THEN 'displayed'
  WHEN t.state IN ('delivered', 'running') THEN 'delivered'
  WHEN t.state IN ('sent', 'timeout') THEN 'sent'
  WHEN t.state = 'expired' THEN 'expired'
  ELSE 'failed' END)`;

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

/**
 * Push tasks (issue 16). A push's deliveries are `push_message` device tasks (the task framework queues them for
 * offline devices and sends them again on reconnect until the push's expiry); a scheduled push is started by a
 * periodic on whichever node claims it first (`FOR UPDATE SKIP LOCKED`), and a push is `done` once none of its
 * tasks is open (a guarded UPDATE, safe on N nodes). Live `push` events are coalesced per push.
 */
export class PushService {
  private pending = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private db: Db,
    private tasks: TaskService,
    private events: EventSink,
    private log: FastifyBaseLogger,
    private eventMs = PUSH_EVENT_MS,
  ) {}

  // -------------------------------------------------------------------------------------------------------------
  // Targets

  /** The devices the targets name inside `access`; a device or group outside it → 404, nothing sent. */
  private async resolve(
    scope: TenantScope,
    access: DataAccess,
    targets: PushTargets,
    strict: boolean,
  ): Promise<Array<{ id: number; online: boolean }>> {
    const deviceIds = [...new Set(targets.deviceIds ?? [])];
    const groupIds = [...new Set(targets.groupIds ?? [])];
    if (!targets.all && !deviceIds.length && !groupIds.length) throw badRequest('targets', 'push.noTargets');
    if (strict && groupIds.length) {
      const found = await scope
        .selectFrom('device_groups')
        .select('device_groups.id')
        .where('device_groups.id', 'in', groupIds)
        .execute();
      if (found.length !== groupIds.length) throw notFound('group');
    }
    if (strict && deviceIds.length) {
      const found = await scope
        .selectFrom('devices')
        .select('devices.id')
        .where('devices.id', 'in', deviceIds)
        .where(inDataScope(access))
        .execute();
      if (found.length !== deviceIds.length) throw notFound('device');
    }
    let q = scope.selectFrom('devices').select(['devices.id', 'devices.status']).where(inDataScope(access));
    if (!targets.all) {
      const any: RawBuilder<boolean>[] = [];
      if (deviceIds.length) any.push(sql<boolean>`devices.id = any(${deviceIds}::bigint[])`);
      if (groupIds.length)
        any.push(
          sql<boolean>`devices.group_id in (with recursive g(id) as (
            select id from device_groups where tenant_id = ${scope.tenantId} and id = any(${groupIds}::bigint[])
            union select c.id from device_groups c join g on c.parent_id = g.id where c.tenant_id = ${scope.tenantId}
          ) select id from g)`,
        );
      q = q.where(sql<boolean>`(${sql.join(any, sql` or `)})`);
    }
    const rows = await q.orderBy('devices.id').execute();
    return rows.map((r) => ({ id: Number(r.id), online: r.status === 'online' }));
  }

  async preview(scope: TenantScope, access: DataAccess, targets: PushTargets): Promise<PushPreview> {
    const rows = await this.resolve(scope, access, targets, true);
    return { devices: rows.length, online: rows.filter((r) => r.online).length };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Creating

  async create(u: PushCaller, body: PushBody): Promise<{ id: number; state: PushState; devices: number }> {
    const scope = new TenantScope(this.db, u.tenantId);
    const now = Date.now();
    let imageKey: string | null = null;
    if (body.kind === 'image') {
      if (!body.imageKey) throw badRequest('imageKey', 'push.imageRequired');
      const obj = await scope
        .selectFrom('objects')
        .select(['objects.key', 'objects.mime'])
        .where('objects.key', '=', body.imageKey)
        .executeTakeFirst();
      if (!obj) throw badRequest('imageKey', 'upload.objectMissing');
      // the upload flow read the type from the bytes; anything but an image is refused here
      if (!obj.mime.startsWith('image/')) throw badRequest('imageKey', 'push.notImage');
      imageKey = obj.key;
    }
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
    const devices = await this.resolve(scope, u.access, body.targets, true);
    if (!devices.length) throw badRequest('targets', 'push.noDevices');

    const values = {
      kind: body.kind,
      title: body.title.trim(),
      body: body.body ?? '',
      image_key: imageKey,
      link: body.kind === 'link' ? (body.link ?? null) : null,
      notice_seconds: body.kind === 'notice' ? (body.noticeSeconds ?? null) : null,
    };
    const { id, started } = await scope.transaction(async (tx) => {
      const row = await tx
        .insertInto('pushes', {
          ...values,
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
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const started = scheduledAt
        ? []
        : await this.deliver(
            tx,
            row,
            devices.map((d) => d.id),
          );
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.userId,
        ip: u.ip,
        action: 'push.create',
        resource: 'push',
        resourceId: row.id,
        result: 'ok',
        changes: changedFields(
          {},
          {
            ...values,
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

  /** Inserts the deliveries and their tasks of `deviceIds` inside the caller's transaction. */
  private async deliver(tx: TenantScope, r: PushRow, deviceIds: number[], expireAt = r.expire_at) {
    const params = {
      pushId: Number(r.id),
      kind: r.kind,
      title: r.title,
      body: r.body,
      ...(r.image_key ? { imageKey: r.image_key } : {}),
      ...(r.link ? { link: r.link } : {}),
      ...(r.notice_seconds ? { noticeSeconds: r.notice_seconds } : {}),
    };
    const all: ChangedTask[] = [];
    for (let i = 0; i < deviceIds.length; i += CHUNK) {
      const part = deviceIds.slice(i, i + CHUNK);
      const rows = await enqueueTasks(
        tx,
        part.map((deviceId) => ({
          deviceId,
          type: 'push_message' as const,
          params,
          expireAt,
          createdBy: r.created_by == null ? null : Number(r.created_by),
          maxAttempts: 10,
        })),
      );
      await tx
        .insertInto(
          'push_deliveries',
          rows.map((t) => ({ push_id: r.id, device_id: t.device_id, task_id: t.id })),
        )
        .onConflict((oc) =>
          oc
            .columns(['push_id', 'device_id'])
            .doUpdateSet({ task_id: (eb) => eb.ref('excluded.task_id'), clicked_at: null }),
        )
        .execute();
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
      const done = await this.db.transaction().execute(async (trx) => {
        const r = await trx
          .selectFrom('pushes')
          .selectAll()
          .where('state', '=', 'scheduled')
          .where('scheduled_at', '<=', new Date())
          .orderBy('scheduled_at')
          .limit(1)
          .forUpdate()
          .skipLocked()
          .executeTakeFirst();
        if (!r) return null;
        const tx = new TenantScope(trx, Number(r.tenant_id));
        const devices = await this.resolve(tx, storedAccess(r), r.targets as PushTargets, false);
        const started = await this.deliver(
          tx,
          r,
          devices.map((d) => d.id),
        );
        const state: PushState = started.length ? 'sending' : 'done';
        await trx
          .updateTable('pushes')
          .set({
            state,
            started_at: new Date(),
            updated_at: new Date(),
            ...(started.length ? {} : { finished_at: new Date() }),
          })
          .where('id', '=', r.id)
          .execute();
        await audit(trx, {
          tenantId: Number(r.tenant_id),
          userId: null,
          ip: '',
          action: 'push.start',
          resource: 'push',
          resourceId: r.id,
          result: 'ok',
          changes: changedFields({ state: r.state }, { state, devices: devices.length }),
        });
        return { tenantId: Number(r.tenant_id), id: Number(r.id), state, started };
      });
      if (!done) return n;
      n++;
      await this.afterStart(done.tenantId, done.id, done.state, done.started);
    }
  }

  /** Pushes under way none of whose tasks is open any more are done (one guarded UPDATE: safe on N nodes). */
  async finishDone(): Promise<number> {
    const { rows } = await sql<{ id: string; tenant_id: string }>`
      UPDATE pushes p SET state = 'done', finished_at = now(), updated_at = now()
      WHERE p.state = 'sending' AND NOT EXISTS (
        SELECT 1 FROM push_deliveries pd JOIN device_tasks t ON t.id = pd.task_id
        WHERE pd.push_id = p.id AND t.state = ANY(${[...OPEN_TASK_STATES]}::text[]))
      RETURNING p.id, p.tenant_id`.execute(this.db);
    for (const r of rows)
      this.events.publish(Number(r.tenant_id), { type: 'push', data: { id: Number(r.id), state: 'done' } });
    return rows.length;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading

  /** Which of these pushes a reader with this data scope sees (`visible`), for its live events. */
  async visibleIds(access: DataAccess, ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await this.db
      .selectFrom('pushes')
      .select('pushes.id')
      .where('pushes.tenant_id', '=', access.tenantId)
      .where('pushes.id', 'in', ids)
      .where(this.visible(access))
      .execute();
    return new Set(rows.map((r) => Number(r.id)));
  }

  /** A push the caller sees: made by them, or with a device inside their data scope (all: every push). */
  private visible(access: DataAccess): RawBuilder<boolean> {
    if (access.scope === 'all') return sql<boolean>`true`;
    return sql<boolean>`(pushes.created_by = ${access.userId} or exists (
      select 1 from push_deliveries pv join devices dv on dv.id = pv.device_id
      where pv.push_id = pushes.id and ${inDataScope(access, 'dv')}))`;
  }

  private async counts(ids: number[], access: DataAccess) {
    if (!ids.length) return new Map<number, DeliveryCounts>();
    const { rows } = await sql<{ push_id: string; state: DeliveryState; n: string }>`
      SELECT pd.push_id, ${deliveryState} AS state, count(*) AS n
      FROM push_deliveries pd
      JOIN devices d ON d.id = pd.device_id
      LEFT JOIN device_tasks t ON t.id = pd.task_id
      WHERE pd.push_id = ANY(${ids}::bigint[]) AND ${inDataScope(access, 'd')}
      GROUP BY 1, 2`.execute(this.db);
    const out = new Map<number, DeliveryCounts>();
    for (const r of rows) {
      const c = out.get(Number(r.push_id)) ?? emptyCounts();
      c[r.state] = Number(r.n);
      out.set(Number(r.push_id), c);
    }
    return out;
  }

  private toItem(
    r: PushRow & { creator: string | null },
    counts: DeliveryCounts | undefined,
    signed: (k: string) => string,
  ): PushItem {
    const c = counts ?? emptyCounts();
    return {
      id: Number(r.id),
      kind: r.kind as PushItem['kind'],
      title: r.title,
      body: r.body,
      imageUrl: r.image_key ? signed(r.image_key) : null,
      link: r.link,
      noticeSeconds: r.notice_seconds,
      targets: (isJsonObject(r.targets) ? r.targets : {}) as PushTargets,
      state: r.state as PushState,
      scheduledAt: iso(r.scheduled_at),
      startedAt: iso(r.started_at),
      expireAt: iso(r.expire_at)!,
      createdAt: iso(r.created_at)!,
      createdBy: r.creator,
      total: Object.values(c).reduce((a, n) => a + n, 0),
      counts: c,
    };
  }

  async list(
    scope: TenantScope,
    access: DataAccess,
    q: PushListQuery,
    signed: (k: string) => string,
  ): Promise<Paged<PushItem>> {
    let base = scope.selectFrom('pushes').where(this.visible(access));
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
    const counts = await this.counts(
      rows.map((r) => Number(r.id)),
      access,
    );
    return { list: rows.map((r) => this.toItem(r, counts.get(Number(r.id)), signed)), total: Number(total.n) };
  }

  private async row(scope: TenantScope, access: DataAccess, id: number) {
    const r = await scope
      .selectFrom('pushes')
      .leftJoin('users', 'users.id', 'pushes.created_by')
      .selectAll('pushes')
      .select('users.username as creator')
      .where('pushes.id', '=', id)
      .where(this.visible(access))
      .executeTakeFirst();
    if (!r) throw notFound('push');
    return r;
  }

  async detail(scope: TenantScope, access: DataAccess, id: number, signed: (k: string) => string): Promise<PushItem> {
    const r = await this.row(scope, access, id);
    const counts = await this.counts([id], access);
    return this.toItem(r, counts.get(id), signed);
  }

  async deliveries(scope: TenantScope, access: DataAccess, q: DeliveryListQuery): Promise<Paged<DeliveryItem>> {
    await this.row(scope, access, q.id);
    const where = sql`pd.push_id = ${q.id} AND pd.tenant_id = ${scope.tenantId} AND ${inDataScope(access, 'd')}
      ${q.state ? sql`AND ${deliveryState} = ${q.state}` : sql``}`;
    const from = sql`FROM push_deliveries pd JOIN devices d ON d.id = pd.device_id LEFT JOIN device_tasks t ON t.id = pd.task_id`;
    const [{ rows }, { rows: total }] = await Promise.all([
      sql<{
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
      }>`SELECT pd.device_id, d.sn, d.name, d.status, pd.task_id, ${deliveryState} AS state, t.error, t.attempts,
          t.sent_at, t.delivered_at,
          CASE WHEN t.state = 'succeeded' OR (t.state = 'running' AND t.stage = ${PUSH_DISPLAYED_STAGE})
            THEN coalesce(t.finished_at, t.started_at) END AS displayed_at,
          pd.clicked_at, greatest(t.updated_at, pd.clicked_at) AS updated_at
        ${from} WHERE ${where}
        ORDER BY pd.device_id LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(this.db),
      sql<{ n: string }>`SELECT count(*) AS n ${from} WHERE ${where}`.execute(this.db),
    ]);
    return {
      list: rows.map((r) => ({
        deviceId: Number(r.device_id),
        sn: r.sn,
        deviceName: r.name,
        online: r.status === 'online',
        taskId: r.task_id,
        state: r.state,
        error: r.error ?? '',
        attempts: r.attempts ?? 0,
        sentAt: iso(r.sent_at),
        deliveredAt: iso(r.delivered_at),
        displayedAt: iso(r.displayed_at),
        clickedAt: iso(r.clicked_at),
        updatedAt: iso(r.updated_at),
      })),
      total: Number(total[0]?.n ?? 0),
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Actions

  async cancel(u: PushCaller, id: number): Promise<{ id: number; state: PushState }> {
    const scope = new TenantScope(this.db, u.tenantId);
    const r = await this.row(scope, u.access, id);
    const row = await scope
      .updateTable('pushes')
      .set({ state: 'canceled', finished_at: new Date(), updated_at: new Date() })
      .where('pushes.id', '=', id)
      .where('pushes.state', '=', 'scheduled')
      .returning('pushes.id')
      .executeTakeFirst();
    if (!row) throw new AppError(400, 'push.badState', { state: r.state }, { field: 'id' });
    await audit(this.db, {
      tenantId: u.tenantId,
      userId: u.userId,
      ip: u.ip,
      action: 'push.cancel',
      resource: 'push',
      resourceId: id,
      result: 'ok',
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
    const scope = new TenantScope(this.db, u.tenantId);
    const r = await this.row(scope, u.access, id);
    if (r.state === 'scheduled' || r.state === 'canceled')
      throw new AppError(400, 'push.badState', { state: r.state }, { field: 'id' });
    const expireAt = newExpiry ? new Date(newExpiry) : r.expire_at;
    if (expireAt.getTime() <= Date.now()) throw badRequest(newExpiry ? 'expireAt' : 'id', 'push.expired');
    const { started, canceled } = await scope.transaction(async (tx) => {
      const { rows } = await sql<{ device_id: string; task_id: string | null; state: DeliveryState }>`
        SELECT pd.device_id, pd.task_id, ${deliveryState} AS state
        FROM push_deliveries pd JOIN devices d ON d.id = pd.device_id LEFT JOIN device_tasks t ON t.id = pd.task_id
        WHERE pd.push_id = ${id} AND pd.tenant_id = ${u.tenantId} AND ${inDataScope(u.access, 'd')}
          AND ${deliveryState} = ANY(${[...UNDELIVERED_STATES]}::text[])
        FOR UPDATE OF pd`.execute(tx.db);
      if (!rows.length) throw badRequest('id', 'push.nothingToRetry');
      const old = rows.map((x) => x.task_id).filter((x): x is string => !!x);
      const canceled = old.length
        ? await tx
            .updateTable('device_tasks')
            .set({ state: 'canceled', error: 'replaced by a retry', finished_at: new Date(), updated_at: new Date() })
            .where('device_tasks.id', 'in', old)
            .where('device_tasks.state', 'in', OPEN_TASK_STATES)
            .returningAll()
            .execute()
        : [];
      await tx
        .updateTable('pushes')
        .set({ state: 'sending', expire_at: expireAt, finished_at: null, updated_at: new Date() })
        .where('pushes.id', '=', id)
        .execute();
      const started = await this.deliver(
        tx,
        { ...r, expire_at: expireAt },
        rows.map((x) => Number(x.device_id)),
        expireAt,
      );
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.userId,
        ip: u.ip,
        action: 'push.retry',
        resource: 'push',
        resourceId: id,
        result: 'ok',
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

  // -------------------------------------------------------------------------------------------------------------
  // The devices' side

  /** A device says its user tapped a push (`event` kind push.clicked, data {taskId}). */
  async onEvent(deviceId: number, m: EventMsg): Promise<void> {
    if (m.kind !== PUSH_CLICKED_EVENT) return;
    const taskId = m.data?.taskId;
    if (typeof taskId !== 'string' || !/^[0-9a-f-]{36}$/i.test(taskId)) return;
    const row = await this.db
      .updateTable('push_deliveries')
      .set({ clicked_at: new Date() })
      .where('task_id', '=', taskId)
      .where('device_id', '=', deviceId)
      .where('clicked_at', 'is', null)
      .returning(['push_id', 'tenant_id'])
      .executeTakeFirst();
    if (row) this.touch(Number(row.tenant_id), Number(row.push_id));
  }

  /** A task of a push changed on this node: tell the consoles, at most once per push every `eventMs`. */
  onTaskChange(row: ChangedTask): void {
    if (row.type !== 'push_message' || !isJsonObject(row.params)) return;
    const id = row.params.pushId;
    if (typeof id === 'number') this.touch(Number(row.tenant_id), id);
  }

  private touch(tenantId: number, id: number): void {
    this.pending.set(id, tenantId);
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.eventMs);
  }

  private async flush(): Promise<void> {
    const batch = [...this.pending];
    this.pending.clear();
    try {
      await this.finishDone();
      const { rows } = batch.length
        ? await sql<{
            id: string;
            state: PushState;
          }>`SELECT id, state FROM pushes WHERE id = ANY(${batch.map(([id]) => id)}::bigint[])`.execute(this.db)
        : { rows: [] };
      const state = new Map(rows.map((r) => [Number(r.id), r.state]));
      for (const [id, tenantId] of batch)
        if (state.has(id)) this.events.publish(tenantId, { type: 'push', data: { id, state: state.get(id)! } });
    } catch (err) {
      this.log.warn({ err }, 'push: live events failed');
    } finally {
      this.timer = null;
      if (this.pending.size) this.timer = setTimeout(() => void this.flush(), this.eventMs);
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
