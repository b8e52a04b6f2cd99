import { timingSafeEqual } from 'node:crypto';
import type { Paged } from '@cpc/contracts';
import {
  BIND_FAIL_WINDOW_S,
  BIND_MAX_FAILS,
  TELEMETRY_MAX_DAYS,
  TELEMETRY_MAX_POINTS,
  type DeviceBindBody,
  type DeviceDetail,
  type DeviceEditBody,
  type DeviceListItem,
  type DeviceMapData,
  type DeviceStatus,
  type TelemetrySeries,
} from '@cpc/contracts/device';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { changedFields } from '../../lib/audit.ts';
import type { Hit } from '../../lib/counters.ts';
import { sha256 } from '../../lib/tokens.ts';
import { newBindKey } from '../device-registry/index.ts';
import type { TaskService } from '../task/index.ts';
import { dataAccessOf, ownership, type DataAccess } from '../../lib/data-scope.ts';
import { DeviceRepository, type DeviceListQuery, type ListRow } from './repository/index.ts';

export type { DeviceListQuery } from './repository/index.ts';

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
const num = (v: string | number | null | undefined) =>
  v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100;

function listItem(r: ListRow): DeviceListItem {
  return {
    id: r.id,
    sn: r.sn,
    name: r.name,
    remark: r.remark,
    modelId: r.model_id,
    modelName: r.model_name,
    modelKind: r.model_kind,
    groupId: r.group_id,
    groupName: r.group_name,
    departmentId: r.department_id,
    departmentName: r.department_name,
    status: r.status,
    paper: r.paper,
    battery: r.battery,
    signal: r.signal,
    firmware: r.firmware,
    simDataLeftMb: num(r.sim_left),
    simPlanMb: num(r.sim_plan),
    simState: r.sim_state,
    lastSeenAt: iso(r.last_seen_at),
    connectedAt: r.status === 'online' ? iso(r.connected_at) : null,
    province: r.province,
    boundAt: iso(r.bound_at),
  };
}

/** Customers' devices (DESIGN §4): binding, editing, the fleet list, detail, telemetry and map data. */
export class DeviceService {
  private repo: DeviceRepository;

  /** `tasks` tells open consoles about the tasks an unbinding cancels (absent in tools that only read). */
  constructor(
    db: Db,
    private tasks?: Pick<TaskService, 'announce'>,
  ) {
    this.repo = new DeviceRepository(db);
  }

  private access(user: AuthUser): DataAccess {
    return dataAccessOf(user);
  }

  async list(user: AuthUser, q: DeviceListQuery): Promise<Paged<DeviceListItem>> {
    const access = this.access(user);
    // First the page's ids, then the 20 rows with their model, group and SIM: joins never run over a whole fleet.
    const { ids, total } = await this.repo.listPage(user.tenantId, access, q);
    const rows = ids.length ? await this.repo.listRows(user.tenantId, access, ids) : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { list: ids.flatMap((id) => (byId.has(id) ? [listItem(byId.get(id)!)] : [])), total };
  }

  async one(user: AuthUser, id: number): Promise<DeviceListItem> {
    const r = await this.repo.findListRow(user.tenantId, this.access(user), id);
    if (!r) throw notFound('device');
    return listItem(r);
  }

  async detail(user: AuthUser, id: number): Promise<DeviceDetail> {
    const r = await this.repo.findDetail(user.tenantId, this.access(user), id);
    if (!r) throw notFound('device');
    const history = await this.repo.recentStatus(user.tenantId, id, 20);
    return {
      ...listItem(r),
      imei: r.imei,
      iccid: r.iccid,
      heartbeatS: r.heartbeat_s,
      model: {
        id: r.model_id,
        code: r.model_code,
        name: r.model_name,
        kind: r.model_kind,
        paperWidthMm: r.paper_width_mm,
        capabilities: r.capabilities,
      },
      location: r.lat !== null && r.lng !== null ? { lat: r.lat, lng: r.lng, at: iso(r.located_at) } : null,
      sim:
        r.sim_iccid !== null
          ? {
              iccid: r.sim_iccid,
              msisdn: r.msisdn ?? '',
              carrier: r.carrier ?? '',
              planTotalMb: num(r.sim_plan) ?? 0,
              usedMb: num(r.plan_used) ?? 0,
              leftMb: num(r.sim_left) ?? 0,
              expiresAt: iso(r.sim_expires_at),
              state: r.sim_state ?? 'active',
            }
          : null,
      recentStatus: history.map((h) => ({ status: h.status, reason: h.reason, at: h.at.toISOString() })),
    };
  }

  async telemetry(user: AuthUser, id: number, q: { from?: string; to?: string }): Promise<TelemetrySeries> {
    const to = q.to ? new Date(q.to) : new Date();
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 86_400_000);
    if (from >= to) throw badRequest('from', 'device.fromAfterTo');
    if (to.getTime() - from.getTime() > TELEMETRY_MAX_DAYS * 86_400_000)
      throw badRequest('to', 'device.rangeTooLong', { n: TELEMETRY_MAX_DAYS });
    if (!(await this.repo.inScope(user.tenantId, this.access(user), id))) throw notFound('device');
    // Buckets of whole minutes, so a month still answers a few hundred points.
    const bucketSeconds = Math.max(
      60,
      Math.ceil((to.getTime() - from.getTime()) / 1000 / TELEMETRY_MAX_POINTS / 60) * 60,
    );
    const rows = await this.repo.telemetryBuckets(user.tenantId, id, from, to, bucketSeconds);
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      bucketSeconds,
      points: rows.map((r) => ({
        at: new Date(r.bucket).toISOString(),
        battery: num(r.battery),
        signal: num(r.signal),
        usedMb: num(r.used),
      })),
    };
  }

  async map(user: AuthUser, q: { status?: DeviceStatus; groupId?: number }): Promise<DeviceMapData> {
    const { list, provinces } = await this.repo.mapRows(user.tenantId, this.access(user), q);
    return {
      list: list.map((d) => ({
        id: d.id,
        sn: d.sn,
        name: d.name,
        status: d.status,
        paper: d.paper,
        lat: d.lat!,
        lng: d.lng!,
      })),
      provinces: provinces.map((p) => ({ province: p.province, total: Number(p.total), online: Number(p.online) })),
    };
  }

  // -------------------------------------------------------------------------------------------------------------
  // Binding

  /**
   * Takes one of the account's bind tries for this serial number before the key is compared: counted and checked
   * in one statement on the counters every node shares (lib/counters.ts), so of any number of simultaneous tries
   * at most BIND_MAX_FAILS compare a key; a refused try and a successful bind give their count back. Wrong keys
   * are counted per account and serial number: a stranger guessing keys locks out only themselves, never the
   * owner holding the label.
   */
  private async takeBindTry(tenantId: number, subject: string): Promise<Hit[]> {
    const hits = await this.repo.hit(BIND_FAIL_WINDOW_S * 1000, {
      bucket: 'device.bind',
      key: `${tenantId}:${subject}`,
    });
    if (hits[0].hits > BIND_MAX_FAILS) {
      await this.repo.unhit(hits);
      const seconds = Math.max(1, Math.ceil(hits[0].ttlMs / 1000));
      throw new AppError(
        429,
        'device.bindThrottled',
        { n: BIND_FAIL_WINDOW_S / 60 },
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    return hits;
  }

  private async groupOf(tenantId: number, groupId: number): Promise<void> {
    if (!(await this.repo.groupExists(tenantId, groupId))) throw notFound('group');
  }

  /**
   * The device of the serial number when the key is its own (compared in constant time); a wrong key or an unknown
   * serial number is written to the system log and refused.
   */
  private async deviceOfKey(user: AuthUser, subject: string, bindKey: string, ip: string) {
    const device = await this.repo.findBySn(subject);
    const given = Buffer.from(sha256(bindKey));
    const keyOk =
      device !== undefined &&
      device.bind_key_hash.length === given.length &&
      timingSafeEqual(Buffer.from(device.bind_key_hash), given);
    if (!device || !keyOk) {
      await this.repo.audit({
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        action: 'device.bind',
        result: 'fail',
        subject,
        resource: 'device',
        details: { reason: device ? 'wrong key' : 'unknown sn' },
      });
      throw badRequest('bindKey', 'device.bindKeyWrong');
    }
    return device;
  }

  async bind(user: AuthUser, body: DeviceBindBody, ip: string): Promise<DeviceListItem> {
    const subject = body.sn.toLowerCase();
    const tried = await this.takeBindTry(user.tenantId, subject);
    const device = await this.deviceOfKey(user, subject, body.bindKey, ip);
    // the right key: this try was no guess
    await this.repo.unhit(tried);
    if (device.tenant_id === user.tenantId) throw badRequest('sn', 'device.alreadyBound');
    if (device.tenant_id !== null) throw badRequest('sn', 'device.boundElsewhere');
    if (body.groupId) await this.groupOf(user.tenantId, body.groupId);

    // filed under the binder's department, owned by the binder: what the data scopes look at
    const owned = ownership(this.access(user));
    await this.repo.transaction(async (tx) => {
      const res = await tx.claim(user.tenantId, device.id, {
        ...owned,
        name: body.name ?? '',
        group_id: body.groupId ?? null,
      });
      // Someone else bound it between the check and now.
      if (!res) throw badRequest('sn', 'device.boundElsewhere');
      // Already online: the account's history starts with it online, or its online trend misses it until a reconnect.
      if (res.status === 'online') await tx.logStatus(user.tenantId, device.id, 'online', 'bound');
      if (device.iccid) await tx.claimSim(user.tenantId, device.iccid);
      await tx.audit({
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        action: 'device.bind',
        result: 'ok',
        subject,
        resource: 'device',
        resourceId: device.id,
        changes: changedFields(
          { tenantId: null, name: '', groupId: null },
          { tenantId: user.tenantId, name: body.name ?? '', groupId: body.groupId ?? null },
        ),
      });
    });
    return this.one(user, device.id);
  }

  /**
   * Back to the unbound pool: name, remark and group cleared, unfinished tasks canceled (and the consoles told),
   * the SIM released. A bind key is used once: the key on the label (or the last one issued) stops working and a
   * new one is answered, shown to the owner who unbinds this once, to hand to the next owner (staff can issue
   * another in the registry).
   */
  async unbind(user: AuthUser, id: number, ip: string): Promise<{ sn: string; bindKey: string }> {
    const bindKey = newBindKey();
    const access = this.access(user);
    const { sn, canceled } = await this.repo.transaction(async (tx) => {
      const d = await tx.lockForUnbind(user.tenantId, access, id);
      if (!d) throw notFound('device');
      // It leaves the account online: close its online span there, or the account's trend counts it for the rest of the window.
      if (d.status === 'online') await tx.logStatus(user.tenantId, id, 'offline', 'unbound');
      await tx.release(user.tenantId, id, sha256(bindKey));
      if (d.iccid) await tx.releaseSim(user.tenantId, d.iccid);
      const canceled = await tx.cancelOpenTasks(user.tenantId, id, 'device unbound');
      await tx.audit({
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        action: 'device.unbind',
        result: 'ok',
        resource: 'device',
        resourceId: id,
        changes: changedFields(
          { tenantId: user.tenantId, name: d.name, remark: d.remark, groupId: d.group_id, bindKey: 'old' },
          { tenantId: null, name: '', remark: '', groupId: null, bindKey: 'new' },
        ),
        details: { sn: d.sn, canceledTasks: canceled.length },
      });
      return { sn: d.sn, canceled };
    });
    this.tasks?.announce(canceled);
    return { sn, bindKey };
  }

  /**
   * Name, remark, and the department: changing that needs the `all` data scope, since a narrower scope could
   * file a device where its owner no longer sees it. Only devices inside the scope are found.
   */
  async edit(user: AuthUser, body: DeviceEditBody, ip: string): Promise<DeviceListItem> {
    const access = this.access(user);
    if (body.departmentId !== undefined) {
      if (access.scope !== 'all') throw new AppError(403, 'device.departmentNeedsAllScope');
      if (body.departmentId !== null && !(await this.repo.departmentExists(user.tenantId, body.departmentId)))
        throw badRequest('departmentId', 'http.notFound', { what: 'department' });
    }
    const before = await this.repo.editable(user.tenantId, access, body.id);
    if (!before) throw notFound('device');
    const after = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.remark !== undefined ? { remark: body.remark } : {}),
      ...(body.departmentId !== undefined ? { department_id: body.departmentId } : {}),
    };
    if (!(await this.repo.update(user.tenantId, access, body.id, after))) throw notFound('device');
    await this.repo.audit({
      tenantId: user.tenantId,
      userId: user.id,
      ip,
      action: 'device.edit',
      result: 'ok',
      resource: 'device',
      resourceId: body.id,
      changes: changedFields(before, after),
    });
    return this.one(user, body.id);
  }

  /** All or nothing: a device or group of another account means 404 and nothing moves. */
  async move(user: AuthUser, ids: number[], groupId: number | null, ip: string): Promise<number> {
    if (groupId !== null) await this.groupOf(user.tenantId, groupId);
    const access = this.access(user);
    return this.repo.transaction(async (tx) => {
      const before = await tx.moveToGroup(user.tenantId, access, ids, groupId);
      if (before.length !== ids.length) throw notFound('device');
      // one entry for the move: the devices' groups before (by id) → the group after
      await tx.audit({
        tenantId: user.tenantId,
        userId: user.id,
        ip,
        action: 'device.move',
        result: 'ok',
        resource: 'device',
        resourceId: ids.length === 1 ? ids[0] : '',
        changes: changedFields(
          { groupId: Object.fromEntries(before.map((d) => [d.id, d.group_id])) },
          { groupId: Object.fromEntries(before.map((d) => [d.id, groupId])) },
        ),
      });
      return ids.length;
    });
  }
}
