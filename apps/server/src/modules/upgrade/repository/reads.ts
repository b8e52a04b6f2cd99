import { sql } from 'kysely';
import type { ReleaseState, UpgradeDeviceState } from '@cpc/contracts';
import { defineQueries } from '../../../db/query-spec.ts';
import { inDataScope, type DataAccess } from '../../../lib/data-scope.ts';
import { Repository } from '../../../db/repository.ts';

/** A release's devices counted by wave and step. */
export interface WaveStateCount {
  release_id: string;
  wave: number;
  state: UpgradeDeviceState;
  n: string;
}

/** A page: its number and size. */
export interface PageQuery {
  pageNo: number;
  pageSize: number;
}

/** A release the caller sees: of its tenant, with at least one device inside its data scope. */
function releaseInScope(access: DataAccess) {
  if (access.scope === 'all') return sql<boolean>`true`;
  return sql<boolean>`exists (select 1 from upgrade_devices ux join devices on devices.id = ux.device_id
      where ux.release_id = upgrade_releases.id and ${inDataScope(access)})`;
}

/**
 * The statements that read releases, their devices and the devices' firmware history, each pinned to the caller's
 * tenant and data scope (`upgrade_releases`, `upgrade_devices`, `device_firmware_history`, with the `packages` and
 * `devices` they name).
 */
export class UpgradeReadRepository extends Repository {
  /** Whether the caller sees the release. */
  async isVisible(access: DataAccess, id: number): Promise<boolean> {
    const r = await this.scope(access.tenantId)
      .selectFrom('upgrade_releases')
      .select('upgrade_releases.id')
      .where('upgrade_releases.id', '=', id)
      .where(releaseInScope(access))
      .executeTakeFirst();
    return !!r;
  }

  /** Which of these releases a reader with this data scope sees. */
  async visibleIds(access: DataAccess, ids: number[]): Promise<number[]> {
    const rows = await this.db
      .selectFrom('upgrade_releases')
      .select('upgrade_releases.id')
      .where('upgrade_releases.tenant_id', '=', access.tenantId)
      .where('upgrade_releases.id', 'in', ids)
      .where(releaseInScope(access))
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** The releases' devices counted by wave and step. */
  async countsOf(ids: number[]): Promise<WaveStateCount[]> {
    const { rows } = await sql<WaveStateCount>`
      SELECT release_id, wave, state, count(*) AS n FROM upgrade_devices
      WHERE release_id = ANY(${ids}::bigint[]) GROUP BY 1, 2, 3`.execute(this.db);
    return rows;
  }

  /** The releases the caller sees, with their package's name and version. */
  private releases(access: DataAccess) {
    return this.scope(access.tenantId)
      .selectFrom('upgrade_releases')
      .innerJoin('packages as p', 'p.id', 'upgrade_releases.package_id')
      .selectAll('upgrade_releases')
      .select(['p.name as package_name', 'p.version_name'])
      .where(releaseInScope(access));
  }

  /** A page of the releases the caller sees (of one state), newest first, and how many in all. */
  async listPage(access: DataAccess, q: PageQuery & { state?: ReleaseState }) {
    let base = this.releases(access);
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
    return { rows, total: Number(total.n) };
  }

  /** One release the caller sees. */
  findVisible(access: DataAccess, id: number) {
    return this.releases(access).where('upgrade_releases.id', '=', id).executeTakeFirst();
  }

  /** The release's most common failure reasons (20 at most), most first. */
  failureReasons(tenantId: number, id: number) {
    return this.scope(tenantId)
      .selectFrom('upgrade_devices')
      .select(['upgrade_devices.reason', sql<string>`count(*)`.as('n')])
      .where('upgrade_devices.release_id', '=', id)
      .where('upgrade_devices.state', '=', 'failed')
      .groupBy('upgrade_devices.reason')
      .orderBy(sql`count(*)`, 'desc')
      .limit(20)
      .execute();
  }

  /** The release's finished devices by the `step` seconds since its start in which they finished. */
  async finishedBySteps(
    id: number,
    createdAt: Date,
    step: number,
  ): Promise<{ b: string; verified: string; failed: string }[]> {
    const { rows } = await sql<{ b: string; verified: string; failed: string }>`
      SELECT floor(extract(epoch FROM (updated_at - ${createdAt}::timestamptz)) / ${step})::int AS b,
        count(*) FILTER (WHERE state = 'verified') AS verified, count(*) FILTER (WHERE state = 'failed') AS failed
      FROM upgrade_devices WHERE release_id = ${id} AND state IN ('verified', 'failed') GROUP BY 1 ORDER BY 1`.execute(
      this.db,
    );
    return rows;
  }

  /** A page of the release's devices in the caller's scope (of one step), last changed first, and how many. */
  async devicesPage(access: DataAccess, q: PageQuery & { id: number; state?: UpgradeDeviceState }) {
    let base = this.scope(access.tenantId)
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
    return { rows, total: Number(total.n) };
  }

  /** Whether the device is the tenant's and inside the caller's data scope. */
  async deviceVisible(access: DataAccess, deviceId: number): Promise<boolean> {
    const device = await this.scope(access.tenantId)
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', '=', deviceId)
      .where(inDataScope(access))
      .executeTakeFirst();
    return !!device;
  }

  /** A page of the device's firmware history, newest first, with the release's name, and how many. */
  async historyPage(tenantId: number, q: PageQuery & { deviceId: number }) {
    const base = this.scope(tenantId)
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
    return { rows, total: Number(total.n) };
  }
}

const department: DataAccess = {
  tenantId: 7,
  userId: 41,
  scope: 'department',
  departmentId: 5,
  departmentPath: '1/5/',
};
const all: DataAccess = { ...department, scope: 'all' };
const counted = [[], [{ n: '0' }]];

export const upgradeReadQueries = defineQueries(UpgradeReadRepository, {
  isVisible: [
    [department, 12],
    [all, 12],
  ],
  visibleIds: [[department, [12, 13]]],
  countsOf: [[[12, 13]]],
  listPage: [
    { args: [department, { pageNo: 1, pageSize: 20 }], results: counted },
    { args: [all, { pageNo: 2, pageSize: 20, state: 'running' }], results: counted },
  ],
  findVisible: [[department, 12]],
  failureReasons: [[7, 12]],
  finishedBySteps: [[12, new Date('2026-03-01T08:00:00Z'), 60]],
  devicesPage: [
    { args: [department, { id: 12, pageNo: 1, pageSize: 20 }], results: counted },
    { args: [department, { id: 12, pageNo: 1, pageSize: 20, state: 'failed' }], results: counted },
  ],
  deviceVisible: [[department, 101]],
  historyPage: [{ args: [7, { deviceId: 101, pageNo: 1, pageSize: 20 }], results: counted }],
});
