import { timingSafeEqual } from 'node:crypto';
import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
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
  type DeviceSort,
  type DeviceStatus,
  type PaperState,
  type TelemetrySeries,
} from '@cpc/contracts/device';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { hit, unhit, type Hit } from '../../lib/counters.ts';
import { sha256 } from '../../lib/tokens.ts';
import { newBindKey } from '../device-registry/index.ts';
import { cancelOpenTasks, type TaskService } from '../task/index.ts';
import { dataAccessOf, inDataScope, ownership, type DataAccess } from '../../lib/data-scope.ts';

export interface DeviceListQuery {
  pageNo: number;
  pageSize: number;
  status?: DeviceStatus;
  groupId?: number;
  /** A department and every department below it. */
  departmentId?: number;
  modelId?: number;
  keyword?: string;
  paper?: PaperState;
  sort?: DeviceSort;
  order: 'asc' | 'desc';
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);
const num = (v: string | number | null | undefined) =>
  v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100;
const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/**
 * ORDER BY of each sort key. Empty values go last, except that a device never seen counts as the longest silent
 * (first when ascending by last seen); both directions of sn, lastSeen and the default order follow an index.
 */
const ORDER_SQL = {
  sn: (dir: 'asc' | 'desc') => (dir === 'asc' ? sql`devices.sn asc` : sql`devices.sn desc`),
  lastSeen: (dir: 'asc' | 'desc') =>
    dir === 'asc'
      ? sql`devices.last_seen_at asc nulls first, devices.id asc`
      : sql`devices.last_seen_at desc nulls last, devices.id desc`,
  name: (dir: 'asc' | 'desc') =>
    sql`lower(nullif(devices.name, '')) ${sql.raw(dir)} nulls last, devices.id ${sql.raw(dir)}`,
  battery: (dir: 'asc' | 'desc') => sql`devices.battery ${sql.raw(dir)} nulls last, devices.id ${sql.raw(dir)}`,
  signal: (dir: 'asc' | 'desc') => sql`devices.signal ${sql.raw(dir)} nulls last, devices.id ${sql.raw(dir)}`,
  // the SIM's data left as its triggers keep it on the device (migration 0037); `list` reads it in two parts
  dataLeft: (dir: 'asc' | 'desc') => sql`devices.sim_left_mb ${sql.raw(dir)} nulls last, devices.id ${sql.raw(dir)}`,
};

/** A group and every group below it, as a subquery of ids (empty for another tenant's group). */
const subtreeIds = (tenantId: number, groupId: number) => sql<number>`(
  with recursive sub as (
    select id from device_groups where id = ${groupId} and tenant_id = ${tenantId}
    union all
    select c.id from device_groups c join sub on c.parent_id = sub.id where c.tenant_id = ${tenantId}
  ) select id from sub)`;

/** The status and group filters the list and the map share. */
function fleetFilters<QB extends SelectQueryBuilder<any, any, any>>(
  qb: QB,
  tenantId: number,
  f: { status?: DeviceStatus; groupId?: number },
): QB {
  let q = qb;
  if (f.status) q = q.where('devices.status', '=', f.status) as QB;
  if (f.groupId === 0) q = q.where('devices.group_id', 'is', null) as QB;
  else if (f.groupId) q = q.where(sql<boolean>`devices.group_id in ${subtreeIds(tenantId, f.groupId)}`) as QB;
  return q;
}

/** The tenant's devices the caller's data scope reaches (issue 12): any other is not found. */
const scopedDevices = (scope: TenantScope, access: DataAccess) =>
  scope.selectFrom('devices').where(inDataScope(access));

/** A department and every department below it, as a subquery of ids (empty for another tenant's). */
const departmentSubtree = (tenantId: number, departmentId: number) => sql<number>`(
  select d.id from departments d, departments top
  where top.id = ${departmentId} and top.tenant_id = ${tenantId}
    and d.tenant_id = ${tenantId} and d.path like top.path || '%')`;

/** Devices joined with their model, group and SIM: the columns of the fleet list. */
function listQuery(scope: TenantScope, access: DataAccess) {
  return scopedDevices(scope, access)
    .innerJoin('device_models as m', 'm.id', 'devices.model_id')
    .leftJoin('device_groups as g', 'g.id', 'devices.group_id')
    .leftJoin('departments as dep', 'dep.id', 'devices.department_id')
    .leftJoin('sims as s', 's.iccid', 'devices.iccid')
    .select([
      'devices.id',
      'devices.sn',
      'devices.name',
      'devices.remark',
      'devices.model_id',
      'm.name as model_name',
      'm.kind as model_kind',
      'devices.group_id',
      'g.name as group_name',
      'devices.department_id',
      'dep.name as department_name',
      'devices.status',
      'devices.paper',
      'devices.battery',
      'devices.signal',
      'devices.firmware',
      sql<number | null>`(s.plan_total_mb - s.used_mb)::float8`.as('sim_left'),
      sql<number | null>`s.plan_total_mb::float8`.as('sim_plan'),
      's.state as sim_state',
      'devices.last_seen_at',
      'devices.connected_at',
      'devices.province',
      'devices.bound_at',
    ]);
}
type ListRow = Awaited<ReturnType<ReturnType<typeof listQuery>['executeTakeFirstOrThrow']>>;

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

/**
 * A page by the SIM's data left, empty values last in both directions: the devices with a value in the index's
 * order (forwards or backwards on `(tenant_id, sim_left_mb, id)`), then those without one by id — two index
 * walks of at most `offset + size` rows each, where one ORDER BY with `nulls last` both ways would need two
 * indexes (or a sort of the whole tenant). The same rows in the same order as `ORDER_SQL.dataLeft`.
 */
async function dataLeftPage<QB extends SelectQueryBuilder<any, 'devices', any>>(
  qb: QB,
  dir: 'asc' | 'desc',
  offset: number,
  size: number,
): Promise<Array<{ id: number }>> {
  const n = offset + size;
  const [valued, empty] = await Promise.all([
    qb
      .select('devices.id')
      .where('devices.sim_left_mb', 'is not', null)
      .orderBy('devices.sim_left_mb', dir)
      .orderBy('devices.id', dir)
      .limit(n)
      .execute() as Promise<Array<{ id: number }>>,
    qb
      .select('devices.id')
      .where('devices.sim_left_mb', 'is', null)
      .orderBy('devices.id', dir)
      .limit(n)
      .execute() as Promise<Array<{ id: number }>>,
  ]);
  return [...valued, ...empty].slice(offset, n);
}

/** Customers' devices (DESIGN §4): binding, editing, the fleet list, detail, telemetry and map data. */
export class DeviceService {
  /** `tasks` tells open consoles about the tasks an unbinding cancels (absent in tools that only read). */
  constructor(
    private db: Db,
    private tasks?: Pick<TaskService, 'announce'>,
  ) {}

  private access(user: AuthUser): DataAccess {
    return dataAccessOf(user);
  }

  async list(user: AuthUser, q: DeviceListQuery): Promise<Paged<DeviceListItem>> {
    const access = this.access(user);
    const filter = <QB extends SelectQueryBuilder<any, any, any>>(qb: QB): QB => {
      let x = fleetFilters(qb, user.tenantId, q);
      if (q.departmentId)
        x = x.where(sql<boolean>`devices.department_id in ${departmentSubtree(user.tenantId, q.departmentId)}`) as QB;
      if (q.modelId) x = x.where('devices.model_id', '=', q.modelId) as QB;
      if (q.paper) x = x.where('devices.paper', '=', q.paper) as QB;
      // spelled out so the planner takes the small index of devices with a paper problem
      if (q.paper && q.paper !== 'ok') x = x.where('devices.paper', '<>', 'ok') as QB;
      if (q.keyword) {
        const like = likeOf(q.keyword);
        x = x.where((eb: ExpressionBuilder<any, any>) =>
          eb.or([eb('devices.sn', 'ilike', like), eb('devices.name', 'ilike', like)]),
        ) as QB;
      }
      return x;
    };
    // First the page's ids, ordered and filtered on the devices table alone (an index walk for the default, sn
    // and lastSeen orders), then the 20 rows with their model, group and SIM: joins never run over a whole fleet.
    const dir = q.order === 'desc' ? 'desc' : 'asc';
    const offset = (q.pageNo - 1) * q.pageSize;
    let ids = filter(scopedDevices(user.scope, access)).select('devices.id');
    ids = q.sort
      ? ids.orderBy(ORDER_SQL[q.sort](dir))
      : ids.orderBy('devices.bound_at', 'desc').orderBy('devices.id', 'desc');
    const [page, total] = await Promise.all([
      q.sort === 'dataLeft'
        ? dataLeftPage(filter(scopedDevices(user.scope, access)), dir, offset, q.pageSize)
        : ids.limit(q.pageSize).offset(offset).execute(),
      filter(scopedDevices(user.scope, access))
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    const order = page.map((r) => r.id);
    const rows = order.length ? await listQuery(user.scope, access).where('devices.id', 'in', order).execute() : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { list: order.flatMap((id) => (byId.has(id) ? [listItem(byId.get(id)!)] : [])), total: Number(total.n) };
  }

  async one(user: AuthUser, id: number): Promise<DeviceListItem> {
    const r = await listQuery(user.scope, this.access(user)).where('devices.id', '=', id).executeTakeFirst();
    if (!r) throw notFound('device');
    return listItem(r);
  }

  async detail(user: AuthUser, id: number): Promise<DeviceDetail> {
    const r = await listQuery(user.scope, this.access(user))
      .select([
        'devices.imei',
        'devices.iccid',
        'devices.heartbeat_s',
        'devices.lat',
        'devices.lng',
        'devices.located_at',
        'm.code as model_code',
        'm.paper_width_mm',
        'm.capabilities',
        's.iccid as sim_iccid',
        's.msisdn',
        's.carrier',
        sql<number | null>`s.used_mb::float8`.as('plan_used'),
        's.expires_at as sim_expires_at',
      ])
      .where('devices.id', '=', id)
      .executeTakeFirst();
    if (!r) throw notFound('device');
    const history = await user.scope
      .selectFrom('device_status_log')
      .select(['status', 'reason', 'at'])
      .where('device_id', '=', id)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(20)
      .execute();
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
    const device = await scopedDevices(user.scope, this.access(user))
      .select('id')
      .where('devices.id', '=', id)
      .executeTakeFirst();
    if (!device) throw notFound('device');
    // Buckets of whole minutes, so a month still answers a few hundred points.
    const bucketSeconds = Math.max(
      60,
      Math.ceil((to.getTime() - from.getTime()) / 1000 / TELEMETRY_MAX_POINTS / 60) * 60,
    );
    const rows = await user.scope
      .selectFrom('device_telemetry')
      .select([
        sql<Date>`date_bin(make_interval(secs => ${bucketSeconds}), at, ${from})`.as('bucket'),
        sql<number | null>`avg(battery)::float8`.as('battery'),
        sql<number | null>`avg(signal)::float8`.as('signal'),
        sql<number | null>`((array_agg(used_mb order by at desc) filter (where used_mb is not null))[1])::float8`.as(
          'used',
        ),
      ])
      .where('device_id', '=', id)
      .where('at', '>=', from)
      .where('at', '<', to)
      .groupBy('bucket')
      .orderBy('bucket')
      .execute();
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
    const access = this.access(user);
    const located = fleetFilters(scopedDevices(user.scope, access), user.tenantId, q)
      .where('devices.lat', 'is not', null)
      .where('devices.lng', 'is not', null);
    const [list, provinces] = await Promise.all([
      located
        .select([
          'devices.id',
          'devices.sn',
          'devices.name',
          'devices.status',
          'devices.paper',
          'devices.lat',
          'devices.lng',
        ])
        .orderBy('devices.id')
        .execute(),
      fleetFilters(scopedDevices(user.scope, access), user.tenantId, q)
        .where('devices.province', '<>', '')
        .select([
          'devices.province',
          sql<number>`count(*)`.as('total'),
          sql<number>`count(*) filter (where devices.status = 'online')`.as('online'),
        ])
        .groupBy('devices.province')
        .orderBy(sql`count(*)`, 'desc')
        .orderBy('devices.province')
        .execute(),
    ]);
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
   * Wrong keys are counted per account and serial number, in the audit log (shared by all nodes): a stranger
   * guessing keys locks out only themselves, never the owner holding the label.
   */
  /**
   * Takes one of the account's bind tries for this serial number before the key is compared: counted and checked
   * in one statement on the counters every node shares (lib/counters.ts), so of any number of simultaneous tries
   * at most BIND_MAX_FAILS compare a key; a refused try and a successful bind give their count back.
   */
  private async takeBindTry(tenantId: number, subject: string): Promise<Hit[]> {
    const hits = await hit(this.db, BIND_FAIL_WINDOW_S * 1000, [
      { bucket: 'device.bind', key: `${tenantId}:${subject}` },
    ]);
    if (hits[0].hits > BIND_MAX_FAILS) {
      await unhit(this.db, hits);
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

  private async groupOf(scope: TenantScope, groupId: number): Promise<void> {
    const g = await scope
      .selectFrom('device_groups')
      .select('id')
      .where('device_groups.id', '=', groupId)
      .executeTakeFirst();
    if (!g) throw notFound('group');
  }

  async bind(user: AuthUser, body: DeviceBindBody, ip: string): Promise<DeviceListItem> {
    const subject = body.sn.toLowerCase();
    const tried = await this.takeBindTry(user.tenantId, subject);
    // Unbound devices belong to no tenant yet, so this lookup is the one read outside a TenantScope.
    const device = await this.db
      .selectFrom('devices')
      .select(['id', 'tenant_id', 'bind_key_hash', 'iccid'])
      .where(sql<string>`lower(sn)`, '=', subject)
      .executeTakeFirst();
    const given = Buffer.from(sha256(body.bindKey));
    const keyOk =
      device !== undefined &&
      device.bind_key_hash.length === given.length &&
      timingSafeEqual(Buffer.from(device.bind_key_hash), given);
    if (!device || !keyOk) {
      await audit(this.db, {
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
    // the right key: this try was no guess
    await unhit(this.db, tried);
    if (device.tenant_id === user.tenantId) throw badRequest('sn', 'device.alreadyBound');
    if (device.tenant_id !== null) throw badRequest('sn', 'device.boundElsewhere');
    if (body.groupId) await this.groupOf(user.scope, body.groupId);

    // filed under the binder's department, owned by the binder: what the data scopes of issue 12 look at
    const owned = ownership(this.access(user));
    await user.scope.transaction(async (tx) => {
      // the device is claimed from the unbound pool (no tenant yet), so outside the scope's filter
      const res = await tx.db
        .updateTable('devices')
        .set({
          ...owned,
          tenant_id: user.tenantId,
          bound_at: new Date(),
          name: body.name ?? '',
          remark: '',
          group_id: body.groupId ?? null,
        })
        .where('id', '=', device.id)
        .where('tenant_id', 'is', null)
        .returning('status')
        .executeTakeFirst();
      // Someone else bound it between the check and now.
      if (!res) throw badRequest('sn', 'device.boundElsewhere');
      // Already online: the account's history starts with it online, or its online trend misses it until a reconnect.
      if (res.status === 'online')
        await tx.insertInto('device_status_log', { device_id: device.id, status: 'online', reason: 'bound' }).execute();
      if (device.iccid)
        await tx.db.updateTable('sims').set({ tenant_id: user.tenantId }).where('iccid', '=', device.iccid).execute();
      await audit(tx.db, {
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
    const { sn, canceled } = await user.scope.transaction(async (scope) => {
      const d = await scopedDevices(scope, access)
        .select([
          'devices.id',
          'devices.sn',
          'devices.iccid',
          'devices.status',
          'devices.name',
          'devices.remark',
          'devices.group_id',
        ])
        .where('devices.id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!d) throw notFound('device');
      // It leaves the account online: close its online span there, or the account's trend counts it for the rest of the window.
      if (d.status === 'online')
        await scope.insertInto('device_status_log', { device_id: id, status: 'offline', reason: 'unbound' }).execute();
      await scope
        .updateTable('devices')
        .set({
          tenant_id: null,
          bound_at: null,
          name: '',
          remark: '',
          group_id: null,
          department_id: null,
          owner_id: null,
          bind_key_hash: sha256(bindKey),
        })
        .where('devices.id', '=', id)
        .execute();
      if (d.iccid) await scope.updateTable('sims').set({ tenant_id: null }).where('sims.iccid', '=', d.iccid).execute();
      const canceled = await cancelOpenTasks(scope, id, 'device unbound');
      await audit(scope.db, {
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
   * Name, remark, and (issue 12) the department: changing that needs the `all` data scope, since a narrower
   * scope could file a device where its owner no longer sees it. Only devices inside the scope are found.
   */
  async edit(user: AuthUser, body: DeviceEditBody, ip: string): Promise<DeviceListItem> {
    const access = this.access(user);
    if (body.departmentId !== undefined) {
      if (access.scope !== 'all') throw new AppError(403, 'device.departmentNeedsAllScope');
      if (body.departmentId !== null) {
        const d = await user.scope
          .selectFrom('departments')
          .select('departments.id')
          .where('departments.id', '=', body.departmentId)
          .executeTakeFirst();
        if (!d) throw badRequest('departmentId', 'http.notFound', { what: 'department' });
      }
    }
    const before = await scopedDevices(user.scope, access)
      .select(['devices.name', 'devices.remark', 'devices.department_id'])
      .where('devices.id', '=', body.id)
      .executeTakeFirst();
    if (!before) throw notFound('device');
    const after = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.remark !== undefined ? { remark: body.remark } : {}),
      ...(body.departmentId !== undefined ? { department_id: body.departmentId } : {}),
    };
    const res = await user.scope
      .updateTable('devices')
      .set(after)
      .where('devices.id', '=', body.id)
      .where(inDataScope(access))
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw notFound('device');
    await audit(this.db, {
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
    if (groupId !== null) await this.groupOf(user.scope, groupId);
    const access = this.access(user);
    return user.scope.transaction(async (scope) => {
      const before = await scope
        .updateTable('devices')
        .from(
          scope
            .selectFrom('devices')
            .select(['devices.id', 'devices.group_id'])
            .where('devices.id', 'in', ids)
            .forUpdate()
            .as('old'),
        )
        .set({ group_id: groupId })
        .whereRef('devices.id', '=', 'old.id')
        .where(inDataScope(access))
        .returning(['old.id', 'old.group_id'])
        .execute();
      if (before.length !== ids.length) throw notFound('device');
      // one entry for the move: the devices' groups before (by id) → the group after
      await audit(scope.db, {
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
