import { sql, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { DeviceSort, DeviceStatus, PaperState } from '@cpc/contracts/device';
import { defineQueries, skip } from '../../../db/query-spec.ts';
import { hit, unhit, type Hit } from '../../../lib/counters.ts';
import { inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { cancelOpenTasks, type ChangedTask } from '../../task/index.ts';
import {
  ORDER_SQL,
  dataLeftPage,
  departmentSubtree,
  fleetFilters,
  likeOf,
  listQuery,
  scopedDevices,
  type ListRow,
} from './fleet-sql.ts';
import { Repository } from '../../../db/repository.ts';

export type { ListRow } from './fleet-sql.ts';

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

/** What binding changes on a device claimed from the unbound pool. */
export interface ClaimValues {
  department_id: number | null;
  owner_id: number | null;
  name: string;
  group_id: number | null;
}

/**
 * Every statement of the device module on the devices of a tenant: the fleet list, one device, its telemetry and
 * the map (each inside the caller's data scope, `inDataScope`), and binding, unbinding, editing and moving.
 * The groups' statements are DeviceGroupRepository's (repository/groups.ts).
 */
export class DeviceRepository extends Repository {
  /** How many of the devices `ids` are the tenant's and meet `within` (a data scope's condition on `devices`). */
  async countOf(tenantId: number, ids: number[], within: RawBuilder<boolean> = sql<boolean>`true`): Promise<number> {
    const found = await this.scope(tenantId)
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', 'in', ids)
      .where(within)
      .execute();
    return found.length;
  }

  /** Counts one try on the shared counters (lib/counters.ts) and answers the counts. */
  hit(windowMs: number, key: { bucket: string; key: string }): Promise<Hit[]> {
    return hit(this.db, windowMs, [key]);
  }

  /** Gives counted tries back. */
  unhit(hits: Hit[]): Promise<void> {
    return unhit(this.db, hits);
  }

  /** The task module cancels the device's unfinished tasks, in this repository's transaction. */
  cancelOpenTasks(tenantId: number, deviceId: number, reason: string): Promise<ChangedTask[]> {
    return cancelOpenTasks(this.scope(tenantId), deviceId, reason);
  }

  // -----------------------------------------------------------------------------------------------------------
  // The fleet

  /**
   * A page of the fleet's ids, in order, and how many match: ordered and filtered on the devices table alone (an
   * index walk for the default, sn and lastSeen orders), so the joins of `listRows` never run over a whole fleet.
   */
  async listPage(tenantId: number, access: DataAccess, q: DeviceListQuery): Promise<{ ids: number[]; total: number }> {
    const scope = this.scope(tenantId);
    const filter = <QB extends SelectQueryBuilder<any, any, any>>(qb: QB): QB => {
      let x = fleetFilters(qb, tenantId, q);
      if (q.departmentId)
        x = x.where(sql<boolean>`devices.department_id in ${departmentSubtree(tenantId, q.departmentId)}`) as QB;
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
    const dir = q.order === 'desc' ? 'desc' : 'asc';
    const offset = (q.pageNo - 1) * q.pageSize;
    let ids = filter(scopedDevices(scope, access)).select('devices.id');
    ids = q.sort
      ? ids.orderBy(ORDER_SQL[q.sort](dir))
      : ids.orderBy('devices.bound_at', 'desc').orderBy('devices.id', 'desc');
    const [page, total] = await Promise.all([
      q.sort === 'dataLeft'
        ? dataLeftPage(filter(scopedDevices(scope, access)), dir, offset, q.pageSize)
        : ids.limit(q.pageSize).offset(offset).execute(),
      filter(scopedDevices(scope, access))
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return { ids: page.map((r) => r.id), total: Number(total.n) };
  }

  /** The list's rows of these devices (in no order), with their model, group, department and SIM. */
  listRows(tenantId: number, access: DataAccess, ids: number[]): Promise<ListRow[]> {
    return listQuery(this.scope(tenantId), access).where('devices.id', 'in', ids).execute();
  }

  /** One device's row of the list, or undefined outside the tenant or the data scope. */
  findListRow(tenantId: number, access: DataAccess, id: number): Promise<ListRow | undefined> {
    return listQuery(this.scope(tenantId), access).where('devices.id', '=', id).executeTakeFirst();
  }

  /** One device with its model and SIM in full, or undefined outside the tenant or the data scope. */
  findDetail(tenantId: number, access: DataAccess, id: number) {
    return listQuery(this.scope(tenantId), access)
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
  }

  /** The device's latest status changes, newest first. */
  recentStatus(tenantId: number, deviceId: number, limit: number) {
    return this.scope(tenantId)
      .selectFrom('device_status_log')
      .select(['status', 'reason', 'at'])
      .where('device_id', '=', deviceId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** Whether the device is the tenant's and inside the data scope. */
  async inScope(tenantId: number, access: DataAccess, id: number): Promise<boolean> {
    const device = await scopedDevices(this.scope(tenantId), access)
      .select('id')
      .where('devices.id', '=', id)
      .executeTakeFirst();
    return device !== undefined;
  }

  /**
   * The device's telemetry in [from, to) by buckets of `bucketSeconds` from `from`: the mean battery and signal,
   * and the last used counter of each bucket.
   */
  telemetryBuckets(tenantId: number, deviceId: number, from: Date, to: Date, bucketSeconds: number) {
    return this.scope(tenantId)
      .selectFrom('device_telemetry')
      .select([
        sql<Date>`date_bin(make_interval(secs => ${bucketSeconds}), at, ${from})`.as('bucket'),
        sql<number | null>`avg(battery)::float8`.as('battery'),
        sql<number | null>`avg(signal)::float8`.as('signal'),
        sql<number | null>`((array_agg(used_mb order by at desc) filter (where used_mb is not null))[1])::float8`.as(
          'used',
        ),
      ])
      .where('device_id', '=', deviceId)
      .where('at', '>=', from)
      .where('at', '<', to)
      .groupBy('bucket')
      .orderBy('bucket')
      .execute();
  }

  /** The located devices of the filters (by id) and the count per province (most first). */
  async mapRows(tenantId: number, access: DataAccess, q: { status?: DeviceStatus; groupId?: number }) {
    const scope = this.scope(tenantId);
    const located = fleetFilters(scopedDevices(scope, access), tenantId, q)
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
      fleetFilters(scopedDevices(scope, access), tenantId, q)
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
    return { list, provinces };
  }

  // -----------------------------------------------------------------------------------------------------------
  // Binding, editing, moving

  /** Whether the group is the tenant's. */
  async groupExists(tenantId: number, groupId: number): Promise<boolean> {
    const g = await this.scope(tenantId)
      .selectFrom('device_groups')
      .select('id')
      .where('device_groups.id', '=', groupId)
      .executeTakeFirst();
    return g !== undefined;
  }

  /** Whether the department is the tenant's. */
  async departmentExists(tenantId: number, departmentId: number): Promise<boolean> {
    const d = await this.scope(tenantId)
      .selectFrom('departments')
      .select('departments.id')
      .where('departments.id', '=', departmentId)
      .executeTakeFirst();
    return d !== undefined;
  }

  /**
   * A device by serial number (lower case), bound or not: unbound devices belong to no tenant yet, so this is
   * the one read outside a TenantScope.
   */
  findBySn(snLower: string) {
    return this.db
      .selectFrom('devices')
      .select(['id', 'tenant_id', 'bind_key_hash', 'iccid'])
      .where(sql<string>`lower(sn)`, '=', snLower)
      .executeTakeFirst();
  }

  /**
   * Claims an unbound device for the tenant (outside the scope's filter: it has no tenant yet); answers its
   * status, or undefined when someone else bound it first.
   */
  claim(tenantId: number, id: number, values: ClaimValues) {
    return this.db
      .updateTable('devices')
      .set({
        department_id: values.department_id,
        owner_id: values.owner_id,
        tenant_id: tenantId,
        bound_at: new Date(),
        name: values.name,
        remark: '',
        group_id: values.group_id,
      })
      .where('id', '=', id)
      .where('tenant_id', 'is', null)
      .returning('status')
      .executeTakeFirst();
  }

  /** A line of the device's status history. */
  async logStatus(
    tenantId: number,
    deviceId: number,
    status: 'online' | 'offline',
    reason: 'bound' | 'unbound',
  ): Promise<void> {
    await this.scope(tenantId).insertInto('device_status_log', { device_id: deviceId, status, reason }).execute();
  }

  /** Gives the device's SIM to the tenant that bound it (any SIM, bound or not). */
  async claimSim(tenantId: number, iccid: string): Promise<void> {
    await this.db.updateTable('sims').set({ tenant_id: tenantId }).where('iccid', '=', iccid).execute();
  }

  /** The device inside the tenant and the data scope, locked, with what unbinding clears. */
  lockForUnbind(tenantId: number, access: DataAccess, id: number) {
    return scopedDevices(this.scope(tenantId), access)
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
  }

  /** Back to the unbound pool: no tenant, name, remark, group, department or owner; a new bind key's hash. */
  async release(tenantId: number, id: number, bindKeyHash: string): Promise<void> {
    await this.scope(tenantId)
      .updateTable('devices')
      .set({
        tenant_id: null,
        bound_at: null,
        name: '',
        remark: '',
        group_id: null,
        department_id: null,
        owner_id: null,
        bind_key_hash: bindKeyHash,
      })
      .where('devices.id', '=', id)
      .execute();
  }

  /** The tenant's SIM back to the unbound pool. */
  async releaseSim(tenantId: number, iccid: string): Promise<void> {
    await this.scope(tenantId).updateTable('sims').set({ tenant_id: null }).where('sims.iccid', '=', iccid).execute();
  }

  /** What an edit may change, of a device inside the tenant and the data scope. */
  editable(tenantId: number, access: DataAccess, id: number) {
    return scopedDevices(this.scope(tenantId), access)
      .select(['devices.name', 'devices.remark', 'devices.department_id'])
      .where('devices.id', '=', id)
      .executeTakeFirst();
  }

  /** Changes a device inside the tenant and the data scope; answers whether it was found. */
  async update(
    tenantId: number,
    access: DataAccess,
    id: number,
    values: { name?: string; remark?: string; department_id?: number | null },
  ): Promise<boolean> {
    const res = await this.scope(tenantId)
      .updateTable('devices')
      .set(values)
      .where('devices.id', '=', id)
      .where(inDataScope(access))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /**
   * Moves the devices (those of the tenant and the data scope, locked) into the group; answers each moved
   * device's group before.
   */
  moveToGroup(tenantId: number, access: DataAccess, ids: number[], groupId: number | null) {
    const scope = this.scope(tenantId);
    return scope
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
  }
}

const access = (scope: DataAccess['scope']): DataAccess => ({
  scope,
  tenantId: 3,
  userId: 12,
  departmentId: 5,
  departmentPath: '1/5/',
});

const firstPage: DeviceListQuery = { pageNo: 1, pageSize: 20, order: 'asc' };

export const deviceQueries = defineQueries(DeviceRepository, {
  countOf: [
    [3, [101, 102]],
    [
      3,
      [101, 102],
      inDataScope({ tenantId: 3, scope: 'department', userId: 41, departmentId: 5, departmentPath: '1/5/' }),
    ],
  ],
  hit: skip('counts on the shared counters of lib/counters.ts: those statements are lib’s'),
  unhit: skip('gives counts back on the shared counters of lib/counters.ts: those statements are lib’s'),
  cancelOpenTasks: skip('the task module’s statement (cancelOpenTasks), in this repository’s transaction'),
  listPage: [
    { args: [3, access('all'), firstPage], results: [[{ id: 101 }], [{ n: '1' }]] },
    {
      args: [
        3,
        access('own'),
        { ...firstPage, pageNo: 2, order: 'desc', sort: 'lastSeen', status: 'online', groupId: 21 },
      ],
      results: [[{ id: 101 }], [{ n: '21' }]],
    },
    {
      args: [
        3,
        access('department'),
        { ...firstPage, sort: 'name', groupId: 0, departmentId: 5, modelId: 2, paper: 'out', keyword: 'XP_58' },
      ],
      results: [[{ id: 101 }], [{ n: '1' }]],
    },
    {
      args: [3, access('all'), { ...firstPage, pageNo: 3, sort: 'dataLeft', order: 'desc' }],
      results: [[{ id: 101 }], [], [{ n: '41' }]],
    },
  ],
  listRows: [[3, access('all'), [101, 102]]],
  findListRow: [[3, access('own'), 101]],
  findDetail: [[3, access('department'), 101]],
  recentStatus: [[3, 101, 20]],
  inScope: [[3, access('own'), 101]],
  telemetryBuckets: [[3, 101, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-02T00:00:00Z'), 300]],
  mapRows: [
    [3, access('all'), {}],
    [3, access('own'), { status: 'offline', groupId: 21 }],
  ],
  groupExists: [[3, 21]],
  departmentExists: [[3, 5]],
  findBySn: [['xp58-000101']],
  claim: [[3, 101, { department_id: 5, owner_id: 12, name: 'Front desk', group_id: 21 }]],
  logStatus: [[3, 101, 'online', 'bound']],
  claimSim: [[3, '89860012345678901234']],
  lockForUnbind: [[3, access('own'), 101]],
  release: [[3, 101, 'hash-of-the-new-bind-key']],
  releaseSim: [[3, '89860012345678901234']],
  editable: [[3, access('department'), 101]],
  update: [
    [3, access('all'), 101, { name: 'Front desk', remark: 'by the door' }],
    [3, access('own'), 101, { department_id: 5 }],
  ],
  moveToGroup: [
    [3, access('all'), [101, 102], 21],
    [3, access('department'), [101], null],
  ],
});
