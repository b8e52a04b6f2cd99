import { sql, type Selectable, type Transaction } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { DEFAULT_TIME_ZONE } from '@cpc/contracts/device-constants';
import {
  FINAL_UPGRADE_DEVICE_STATES,
  OPEN_TASK_STATES,
  UPGRADE_DEVICE_STATES,
  type FirmwareHistoryItem,
  type Paged,
  type ReleaseBody,
  type ReleaseDetail,
  type ReleaseDeviceItem,
  type ReleaseItem,
  type ReleasePreview,
  type ReleaseState,
  type ReleaseTargets,
  type UpgradeDeviceState,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import { isJsonObject, type Database } from '../../db/schema.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { enqueueTasks, type ChangedTask, type EventSink, type TaskService } from '../task/index.ts';
import { inWindow } from './window.ts';

type ReleaseRow = Selectable<Database['upgrade_releases']>;
type Tx = Transaction<Database>;

/** The advisory lock class of a release's bookkeeping (the release id is the second key): one writer at a time. */
const RELEASE_LOCK = 0x5550_4752; // "UPGR"
/** The advisory lock of the periodic reconcile: one node at a time. */
const RECONCILE_LOCK = 0x5550_4743; // "UPGC"
const FINAL = FINAL_UPGRADE_DEVICE_STATES as readonly string[];
const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());

/** Who acts: the tenant, the user (null: the system) and the client address, and the user's data scope. */
export interface UpgradeCaller {
  tenantId: number;
  userId: number;
  ip: string;
  access: DataAccess;
}

const emptyCounts = () =>
  Object.fromEntries(UPGRADE_DEVICE_STATES.map((s) => [s, 0])) as Record<UpgradeDeviceState, number>;

/**
 * Upgrade releases (issue 15). All of a release's progress is derived from `upgrade_devices` and the device tasks
 * they point at, by `reconcile(id)` — run when a task of the release changes (`onTaskChange`) and periodically on
 * one node — so a restart in the middle of a roll-out loses nothing: the next reconcile reads what devices did.
 */
export class UpgradeService {
  private pending = new Set<number>();
  private flushing: Promise<void> | null = null;

  constructor(
    private db: Db,
    private tasks: TaskService,
    private events: EventSink,
    private log: FastifyBaseLogger,
  ) {}

  // -------------------------------------------------------------------------------------------------------------
  // Creating

  private async firmware(scope: TenantScope, id: number) {
    const pkg = await scope
      .selectFrom('packages')
      .selectAll('packages')
      .where('packages.id', '=', id)
      .where('packages.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!pkg) throw notFound('firmware');
    if (pkg.kind !== 'firmware') throw badRequest('packageId', 'upgrade.notFirmware', { id });
    return pkg;
  }

  /** The devices the targets name, inside the caller's data scope; an explicit device that does not fit → 400. */
  private async resolve(
    scope: TenantScope,
    access: DataAccess,
    targets: ReleaseTargets,
    fits: string[],
    version: string,
  ) {
    let q = scope
      .selectFrom('devices')
      .innerJoin('device_models as m', 'm.id', 'devices.model_id')
      .select(['devices.id', 'devices.sn', 'devices.firmware', 'm.code'])
      .where(inDataScope(access));
    const explicit = targets.deviceIds?.length ? [...new Set(targets.deviceIds)] : null;
    if (explicit) {
      q = q.where('devices.id', 'in', explicit);
    } else {
      if (!targets.models?.length && !targets.groupIds?.length && !targets.versions?.length)
        throw badRequest('targets', 'upgrade.noTargets');
      if (targets.models?.length) q = q.where('m.code', 'in', targets.models);
      if (targets.versions?.length) q = q.where('devices.firmware', 'in', targets.versions);
      if (targets.groupIds?.length) {
        const groups = [...new Set(targets.groupIds)];
        const found = await scope
          .selectFrom('device_groups')
          .select('device_groups.id')
          .where('device_groups.id', 'in', groups)
          .execute();
        if (found.length !== groups.length) throw notFound('group');
        // a group and every group below it
        q = q.where(
          sql<boolean>`devices.group_id in (with recursive g(id) as (
            select id from device_groups where tenant_id = ${scope.tenantId} and id = any(${groups}::bigint[])
            union select c.id from device_groups c join g on c.parent_id = g.id where c.tenant_id = ${scope.tenantId}
          ) select id from g)`,
        );
      }
    }
    const rows = await q.orderBy('devices.id').execute();
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
    const pkg = await this.firmware(scope, packageId);
    const r = await this.resolve(scope, access, targets, pkg.models, pkg.version_name);
    return { matched: r.matched.length, incompatible: r.incompatible, current: r.current };
  }

  async create(u: UpgradeCaller, body: ReleaseBody): Promise<{ id: number; total: number; incompatible: number }> {
    const scope = new TenantScope(this.db, u.tenantId);
    const expireAt = new Date(body.expireAt);
    if (expireAt.getTime() <= Date.now()) throw badRequest('expireAt', 'upgrade.expired');
    const pkg = await this.firmware(scope, body.packageId);
    const { matched, incompatible } = await this.resolve(scope, u.access, body.targets, pkg.models, pkg.version_name);
    if (!matched.length) throw badRequest('targets', 'upgrade.noDevices');
    // the canary: a random share of the devices (at least one when there is a canary at all)
    const shuffled = [...matched];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    const canary = body.canaryPercent ? Math.max(1, Math.round((matched.length * body.canaryPercent) / 100)) : 0;
    const id = await this.db.transaction().execute(async (tx) => {
      const txScope = new TenantScope(tx, u.tenantId);
      const row = await txScope
        .insertInto('upgrade_releases', {
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
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (let i = 0; i < shuffled.length; i += 5000) {
        await txScope
          .insertInto(
            'upgrade_devices',
            shuffled.slice(i, i + 5000).map((d, k) => ({
              release_id: row.id,
              device_id: d.id,
              wave: i + k < canary ? 1 : 2,
              from_version: d.firmware,
            })),
          )
          .execute();
      }
      await audit(tx, {
        tenantId: u.tenantId,
        userId: u.userId,
        ip: u.ip,
        action: 'upgrade.create',
        resource: 'upgrade_release',
        resourceId: row.id,
        result: 'ok',
        changes: changedFields({}, { ...body, devices: matched.length, canary, incompatible }),
      });
      return Number(row.id);
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
    fn: (tx: Tx, r: ReleaseRow) => Promise<Partial<ReleaseRow> & { changed?: ChangedTask[] }>,
  ): Promise<{ id: number; state: ReleaseState }> {
    await this.visible(new TenantScope(this.db, u.tenantId), u.access, id);
    const { state, changed } = await this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(${RELEASE_LOCK}, ${id}::int)`.execute(tx);
      const r = await new TenantScope(tx, u.tenantId)
        .selectFrom('upgrade_releases')
        .selectAll('upgrade_releases')
        .where('upgrade_releases.id', '=', id)
        .executeTakeFirstOrThrow();
      const { changed = [], ...set } = await fn(tx, r);
      await tx
        .updateTable('upgrade_releases')
        .set({ ...set, updated_at: new Date() })
        .where('id', '=', id)
        .execute();
      await audit(tx, {
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
    const after = await this.db.selectFrom('upgrade_releases').select('state').where('id', '=', id).executeTakeFirst();
    return { id, state: (after?.state ?? state) as ReleaseState };
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
      const changed = await tx
        .updateTable('device_tasks')
        .set({ state: 'canceled', error: 'release canceled', finished_at: new Date(), updated_at: new Date() })
        .where('tenant_id', '=', u.tenantId)
        .where('state', 'in', OPEN_TASK_STATES)
        .where(
          'id',
          'in',
          tx
            .selectFrom('upgrade_devices')
            .select('task_id')
            .where('release_id', '=', id)
            .where('task_id', 'is not', null)
            .$castTo<string>(),
        )
        .returningAll()
        .execute();
      await tx
        .updateTable('upgrade_devices')
        .set({ state: 'canceled', reason: 'release canceled', updated_at: new Date() })
        .where('release_id', '=', id)
        .where('state', 'not in', FINAL_UPGRADE_DEVICE_STATES)
        .execute();
      return { state: 'canceled', finished_at: new Date(), changed };
    });
  }

  retry(u: UpgradeCaller, id: number) {
    return this.act(u, id, 'retry', async (tx, r) => {
      if (r.state === 'canceled') this.refuse(r);
      if (r.expire_at.getTime() <= Date.now()) throw badRequest('id', 'upgrade.expired');
      const wave = r.state === 'waiting' ? 1 : r.wave;
      const again = await tx
        .updateTable('upgrade_devices')
        .set({ state: 'queued', reason: '', progress: 0, task_id: null, wave, updated_at: new Date() })
        .where('release_id', '=', id)
        .where('state', '=', 'failed')
        .returning('device_id')
        .execute();
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
    return this.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${RECONCILE_LOCK}) as ok`.execute(conn);
      if (!rows[0]?.ok) return 0;
      try {
        const open = await conn
          .selectFrom('upgrade_releases')
          .select('id')
          .where('state', 'not in', ['completed', 'canceled'])
          .orderBy('id')
          .execute();
        for (const r of open) await this.reconcile(Number(r.id));
        return open.length;
      } finally {
        await sql`select pg_advisory_unlock(${RECONCILE_LOCK})`.execute(conn);
      }
    });
  }

  /**
   * Brings one release up to date: each device's step from its task; the wave's halt check; the wave's end (soak,
   * promote, completion); and new tasks up to the throttle for devices inside their window. Safe to run anywhere,
   * any time: one run per release at a time (a transaction advisory lock), all state read from the database.
   */
  async reconcile(id: number): Promise<void> {
    const now = new Date();
    const result = await this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(${RELEASE_LOCK}, ${id}::int)`.execute(tx);
      const r = await tx.selectFrom('upgrade_releases').selectAll().where('id', '=', id).executeTakeFirst();
      if (!r || r.state === 'canceled') return null;
      const pkg = await tx.selectFrom('packages').selectAll().where('id', '=', r.package_id).executeTakeFirstOrThrow();
      // 1. each device's step, from its task
      const { rows: synced } = await sql<{ device_id: number }>`
        UPDATE upgrade_devices ud SET state = x.state, progress = x.progress, reason = x.reason, updated_at = now()
        FROM (
          SELECT ud2.device_id,
            CASE
              WHEN t.state = 'succeeded' AND d.firmware = ${pkg.version_name} THEN 'verified'
              WHEN t.state = 'succeeded' THEN 'failed'
              WHEN t.state IN ('failed', 'expired') THEN 'failed'
              WHEN t.state = 'canceled' THEN 'canceled'
              WHEN t.stage IN ('downloading', 'downloaded', 'installing', 'rebooting') THEN t.stage
              ELSE 'queued' END AS state,
            CASE WHEN t.state = 'succeeded' THEN 100 ELSE t.progress END AS progress,
            CASE
              WHEN t.state = 'succeeded' AND d.firmware = ${pkg.version_name} THEN ''
              WHEN t.state = 'succeeded' THEN 'came back on version ' || d.firmware
              WHEN t.state = 'expired' THEN 'expired'
              WHEN t.state IN ('failed', 'canceled') THEN coalesce(nullif(t.error, ''), t.state::text)
              ELSE '' END AS reason
          FROM upgrade_devices ud2
          JOIN device_tasks t ON t.id = ud2.task_id
          JOIN devices d ON d.id = ud2.device_id
          WHERE ud2.release_id = ${id} AND ud2.state NOT IN ('verified', 'failed', 'canceled', 'skipped')
        ) x
        WHERE ud.release_id = ${id} AND ud.device_id = x.device_id
          AND (ud.state, ud.progress, ud.reason) IS DISTINCT FROM (x.state, x.progress::smallint, x.reason)
        RETURNING ud.device_id`.execute(tx);
      let changed = synced.length > 0;
      const set: Partial<ReleaseRow> = {};
      let state = r.state as ReleaseState;
      let wave = r.wave;
      let started: ChangedTask[] = [];
      // 2. past its expiry, no device starts: those not started are skipped
      if (now >= r.expire_at) {
        const skipped = await tx
          .updateTable('upgrade_devices')
          .set({ state: 'skipped', reason: 'release expired', updated_at: now })
          .where('release_id', '=', id)
          .where('state', '=', 'queued')
          .where('task_id', 'is', null)
          .execute();
        if (Number(skipped[0]?.numUpdatedRows ?? 0) > 0) changed = true;
      }
      for (let step = 0; step < 3; step++) {
        if (state === 'waiting' && r.soak_minutes != null) {
          const since = set.waiting_since ?? r.waiting_since ?? now;
          if (now.getTime() >= since.getTime() + r.soak_minutes * 60_000) {
            state = 'running';
            wave = 2;
            Object.assign(set, { state, wave, waiting_since: null });
          }
        }
        if (state !== 'running') break;
        const { rows: counts } = await sql<{ state: UpgradeDeviceState; started: boolean; n: string }>`
          SELECT state, task_id IS NOT NULL AS started, count(*) AS n FROM upgrade_devices
          WHERE release_id = ${id} AND wave = ${wave} GROUP BY 1, 2`.execute(tx);
        const c = (pred: (s: UpgradeDeviceState, started: boolean) => boolean) =>
          counts.filter((x) => pred(x.state, x.started)).reduce((a, x) => a + Number(x.n), 0);
        const total = c(() => true);
        const failed = c((s) => s === 'failed');
        const finished = c((s) => s === 'failed' || s === 'verified');
        const final = c((s) => FINAL.includes(s));
        const active = c((s, started) => started && !FINAL.includes(s));
        if (failed >= r.fail_min_count && failed * 100 >= r.fail_percent * finished) {
          state = 'halted';
          Object.assign(set, {
            state,
            halt_reason: `wave ${wave}: ${failed} of ${finished} finished devices failed (threshold ${r.fail_percent}%, at least ${r.fail_min_count})`,
          });
          break;
        }
        if (final === total) {
          const rest =
            wave === 1
              ? Number(
                  (
                    await tx
                      .selectFrom('upgrade_devices')
                      .select(sql<string>`count(*)`.as('n'))
                      .where('release_id', '=', id)
                      .where('wave', '=', 2)
                      .executeTakeFirstOrThrow()
                  ).n,
                )
              : 0;
          if (wave === 1 && rest > 0) {
            state = 'waiting';
            Object.assign(set, { state, waiting_since: now });
            if (r.soak_minutes == null) break;
            continue;
          }
          state = 'completed';
          Object.assign(set, { state, finished_at: now });
          break;
        }
        const slots = r.throttle - active;
        if (slots <= 0 || now >= r.expire_at) break;
        started = await this.start(tx, r, pkg, wave, slots, now);
        break;
      }
      if (Object.keys(set).length) {
        changed = true;
        await tx
          .updateTable('upgrade_releases')
          .set({ ...set, updated_at: now })
          .where('id', '=', id)
          .execute();
        if (set.state && set.state !== r.state)
          await audit(tx, {
            tenantId: Number(r.tenant_id),
            userId: null,
            ip: '',
            action: `upgrade.${set.state === 'halted' ? 'halt' : set.state === 'running' ? 'promote' : set.state}`,
            resource: 'upgrade_release',
            resourceId: id,
            result: 'ok',
            details: set.halt_reason ? { reason: set.halt_reason } : undefined,
            changes: changedFields({ state: r.state, wave: r.wave }, { state, wave }),
          });
      }
      if (started.length) changed = true;
      return { tenantId: Number(r.tenant_id), state, changed, started };
    });
    if (!result) return;
    if (result.started.length) {
      this.tasks.announce(result.started);
      await this.tasks.dispatch(result.started.map((t) => t.id));
    }
    if (result.changed) this.publish(result.tenantId, id, result.state);
  }

  /** New tasks for up to `slots` queued devices of the wave that are inside their maintenance window now. */
  private async start(
    tx: Tx,
    r: ReleaseRow,
    pkg: Selectable<Database['packages']>,
    wave: number,
    slots: number,
    now: Date,
  ): Promise<ChangedTask[]> {
    const window = r.window_start && r.window_end ? { start: r.window_start, end: r.window_end } : null;
    let zones: string[] | null = null;
    if (window) {
      const all = await tx
        .selectFrom('upgrade_devices as ud')
        .innerJoin('devices as d', 'd.id', 'ud.device_id')
        .select('d.time_zone')
        .distinct()
        .where('ud.release_id', '=', r.id)
        .where('ud.wave', '=', wave)
        .where('ud.state', '=', 'queued')
        .where('ud.task_id', 'is', null)
        .execute();
      zones = all.map((z) => z.time_zone).filter((z) => inWindow(window, z || DEFAULT_TIME_ZONE, now));
      if (!zones.length) return [];
    }
    let q = tx
      .selectFrom('upgrade_devices as ud')
      .innerJoin('devices as d', 'd.id', 'ud.device_id')
      .select('ud.device_id')
      .where('ud.release_id', '=', r.id)
      .where('ud.wave', '=', wave)
      .where('ud.state', '=', 'queued')
      .where('ud.task_id', 'is', null)
      .where('d.tenant_id', '=', r.tenant_id);
    if (zones) q = q.where('d.time_zone', 'in', zones);
    const next = await q.orderBy('d.status', 'desc').orderBy('ud.device_id').limit(slots).execute();
    if (!next.length) return [];
    const params = {
      releaseId: Number(r.id),
      packageId: Number(pkg.id),
      kind: pkg.kind,
      identifier: pkg.identifier,
      versionName: pkg.version_name,
      versionCode: Number(pkg.version_code),
      size: Number(pkg.size),
      sha256: pkg.sha256,
    };
    const rows = await enqueueTasks(
      new TenantScope(tx, Number(r.tenant_id)),
      next.map((d) => ({
        deviceId: Number(d.device_id),
        type: 'upgrade' as const,
        params,
        expireAt: r.expire_at,
        createdBy: r.created_by == null ? null : Number(r.created_by),
      })),
    );
    await sql`
      UPDATE upgrade_devices ud SET task_id = x.task_id, updated_at = now()
      FROM (SELECT unnest(${rows.map((t) => t.device_id)}::bigint[]) AS device_id,
                   unnest(${rows.map((t) => t.id)}::uuid[]) AS task_id) x
      WHERE ud.release_id = ${r.id} AND ud.device_id = x.device_id`.execute(tx);
    return rows;
  }

  private publish(tenantId: number, releaseId: number, state: string) {
    this.events.publish(tenantId, { type: 'upgrade', data: { releaseId, state } });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading

  /** A release the caller sees: of its tenant, with at least one device inside its data scope. */
  private async visible(scope: TenantScope, access: DataAccess, id: number) {
    const r = await scope
      .selectFrom('upgrade_releases')
      .select('upgrade_releases.id')
      .where('upgrade_releases.id', '=', id)
      .where(this.releaseInScope(access))
      .executeTakeFirst();
    if (!r) throw notFound('release');
  }

  /** Which of these releases a reader with this data scope sees (`releaseInScope`), for its live events. */
  async visibleIds(access: DataAccess, ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    const rows = await this.db
      .selectFrom('upgrade_releases')
      .select('upgrade_releases.id')
      .where('upgrade_releases.tenant_id', '=', access.tenantId)
      .where('upgrade_releases.id', 'in', ids)
      .where(this.releaseInScope(access))
      .execute();
    return new Set(rows.map((r) => Number(r.id)));
  }

  private releaseInScope(access: DataAccess) {
    if (access.scope === 'all') return sql<boolean>`true`;
    return sql<boolean>`exists (select 1 from upgrade_devices ux join devices on devices.id = ux.device_id
      where ux.release_id = upgrade_releases.id and ${inDataScope(access)})`;
  }

  private async countsOf(ids: number[]) {
    if (!ids.length) return [];
    const { rows } = await sql<{ release_id: string; wave: number; state: UpgradeDeviceState; n: string }>`
      SELECT release_id, wave, state, count(*) AS n FROM upgrade_devices
      WHERE release_id = ANY(${ids}::bigint[]) GROUP BY 1, 2, 3`.execute(this.db);
    return rows;
  }

  private item(
    r: ReleaseRow & { package_name: string; version_name: string },
    rows: Array<{ release_id: string; wave: number; state: UpgradeDeviceState; n: string }>,
  ): ReleaseItem {
    const counts = emptyCounts();
    let total = 0;
    for (const x of rows.filter((x) => Number(x.release_id) === Number(r.id))) {
      counts[x.state] += Number(x.n);
      total += Number(x.n);
    }
    return {
      id: Number(r.id),
      name: r.name,
      packageId: Number(r.package_id),
      packageName: r.package_name,
      version: r.version_name,
      state: r.state as ReleaseState,
      wave: r.wave,
      haltReason: r.halt_reason,
      canaryPercent: r.canary_percent,
      soakMinutes: r.soak_minutes,
      throttle: r.throttle,
      window: r.window_start && r.window_end ? { start: r.window_start, end: r.window_end } : null,
      failPercent: r.fail_percent,
      failMinCount: r.fail_min_count,
      expireAt: iso(r.expire_at)!,
      promoteAt:
        r.state === 'waiting' && r.waiting_since && r.soak_minutes != null
          ? iso(new Date(r.waiting_since.getTime() + r.soak_minutes * 60_000))
          : null,
      total,
      counts,
      createdAt: iso(r.created_at)!,
      finishedAt: iso(r.finished_at),
    };
  }

  private releases(scope: TenantScope, access: DataAccess) {
    return scope
      .selectFrom('upgrade_releases')
      .innerJoin('packages as p', 'p.id', 'upgrade_releases.package_id')
      .selectAll('upgrade_releases')
      .select(['p.name as package_name', 'p.version_name'])
      .where(this.releaseInScope(access));
  }

  async list(
    scope: TenantScope,
    access: DataAccess,
    q: { pageNo: number; pageSize: number; state?: ReleaseState },
  ): Promise<Paged<ReleaseItem>> {
    let base = this.releases(scope, access);
    if (q.state) base = base.where('upgrade_releases.state', '=', q.state);
    const [rows, total] = await Promise.all([
      base
        .orderBy('upgrade_releases.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base
        .clearSelect()
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    const counts = await this.countsOf(rows.map((r) => Number(r.id)));
    return { list: rows.map((r) => this.item(r, counts)), total: Number(total.n) };
  }

  async detail(scope: TenantScope, access: DataAccess, id: number): Promise<ReleaseDetail> {
    const r = await this.releases(scope, access).where('upgrade_releases.id', '=', id).executeTakeFirst();
    if (!r) throw notFound('release');
    const counts = await this.countsOf([id]);
    const waves = [1, 2].map((wave) => {
      const c = emptyCounts();
      let total = 0;
      for (const x of counts.filter((x) => x.wave === wave)) {
        c[x.state] += Number(x.n);
        total += Number(x.n);
      }
      return { wave, total, counts: c };
    });
    const reasons = await scope
      .selectFrom('upgrade_devices')
      .select(['upgrade_devices.reason', sql<string>`count(*)`.as('n')])
      .where('upgrade_devices.release_id', '=', id)
      .where('upgrade_devices.state', '=', 'failed')
      .groupBy('upgrade_devices.reason')
      .orderBy(sql`count(*)`, 'desc')
      .limit(20)
      .execute();
    // the progress chart: finished devices by when they finished, in up to 60 steps since the start
    const started = r.created_at.getTime();
    const end = r.finished_at ? r.finished_at.getTime() : Date.now();
    const step = Math.max(1, Math.ceil((end - started) / 1000 / 60));
    const { rows: steps } = await sql<{ b: string; verified: string; failed: string }>`
      SELECT floor(extract(epoch FROM (updated_at - ${r.created_at}::timestamptz)) / ${step})::int AS b,
        count(*) FILTER (WHERE state = 'verified') AS verified, count(*) FILTER (WHERE state = 'failed') AS failed
      FROM upgrade_devices WHERE release_id = ${id} AND state IN ('verified', 'failed') GROUP BY 1 ORDER BY 1`.execute(
      this.db,
    );
    let verified = 0;
    let failed = 0;
    const timeline = [{ at: iso(r.created_at)!, verified: 0, failed: 0 }];
    for (const x of steps) {
      verified += Number(x.verified);
      failed += Number(x.failed);
      timeline.push({ at: new Date(started + (Number(x.b) + 1) * step * 1000).toISOString(), verified, failed });
    }
    return {
      ...this.item(r, counts),
      timeline,
      waves,
      reasons: reasons.map((x) => ({ reason: x.reason || 'failed', count: Number(x.n) })),
      targets: (isJsonObject(r.targets) ? r.targets : {}) as ReleaseTargets,
    };
  }

  async devices(
    scope: TenantScope,
    access: DataAccess,
    q: { id: number; pageNo: number; pageSize: number; state?: UpgradeDeviceState },
  ): Promise<Paged<ReleaseDeviceItem>> {
    await this.visible(scope, access, q.id);
    let base = scope
      .selectFrom('upgrade_devices')
      .innerJoin('devices', 'devices.id', 'upgrade_devices.device_id')
      .where('upgrade_devices.release_id', '=', q.id)
      .where(inDataScope(access));
    if (q.state) base = base.where('upgrade_devices.state', '=', q.state);
    const [rows, total] = await Promise.all([
      base
        .selectAll('upgrade_devices')
        .select(['devices.sn', 'devices.name'])
        .orderBy('upgrade_devices.updated_at', 'desc')
        .orderBy('upgrade_devices.device_id')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      list: rows.map((x) => ({
        deviceId: Number(x.device_id),
        sn: x.sn,
        name: x.name,
        wave: x.wave,
        state: x.state as UpgradeDeviceState,
        progress: x.progress,
        reason: x.reason,
        fromVersion: x.from_version,
        taskId: x.task_id,
        updatedAt: iso(x.updated_at)!,
      })),
      total: Number(total.n),
    };
  }

  async history(
    scope: TenantScope,
    access: DataAccess,
    q: { deviceId: number; pageNo: number; pageSize: number },
  ): Promise<Paged<FirmwareHistoryItem>> {
    const device = await scope
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', '=', q.deviceId)
      .where(inDataScope(access))
      .executeTakeFirst();
    if (!device) throw notFound('device');
    const base = scope
      .selectFrom('device_firmware_history')
      .where('device_firmware_history.device_id', '=', q.deviceId);
    const [rows, total] = await Promise.all([
      base
        .leftJoin('upgrade_releases as r', 'r.id', 'device_firmware_history.release_id')
        .selectAll('device_firmware_history')
        .select('r.name as release_name')
        .orderBy('device_firmware_history.at', 'desc')
        .orderBy('device_firmware_history.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      list: rows.map((x) => ({
        id: Number(x.id),
        fromVersion: x.from_version,
        toVersion: x.to_version,
        source: x.source as 'release' | 'hello',
        releaseId: x.release_id == null ? null : Number(x.release_id),
        releaseName: x.release_name,
        at: iso(x.at)!,
      })),
      total: Number(total.n),
    };
  }
}
