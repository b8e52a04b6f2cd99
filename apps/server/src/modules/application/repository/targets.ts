import { sql } from 'kysely';
import type { DeploymentKind } from '@cpc/contracts';
import type { Db } from '../../../db/database.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { orAll, type DevicesInScope } from './scope.ts';

/** The package a deployment installs, as deployments read it. */
export interface DeployedPackage {
  id: number;
  kind?: string;
  name: string;
  identifier: string;
  version_name: string;
  version_code: string | number;
  size: string | number;
  sha256: string;
}

/**
 * The application repository's reads of other modules' tables for a deployment: the packages it installs, the
 * devices and groups it targets, the names of who made it. ApplicationRepository hands its calls here; nothing
 * else uses this class.
 */
export class TargetStatements {
  constructor(private db: Db) {}

  private scope(tenantId: number): TenantScope {
    return new TenantScope(this.db, tenantId);
  }

  /** An undeleted package of the tenant. */
  findLivePackage(tenantId: number, id: number): Promise<DeployedPackage | undefined> {
    return this.scope(tenantId)
      .selectFrom('packages')
      .select(['id', 'kind', 'identifier', 'version_name', 'version_code', 'size', 'sha256', 'name'])
      .where('packages.id', '=', id)
      .where('packages.deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** The newest undeleted version of an app of the tenant. */
  findLatestApp(tenantId: number, identifier: string): Promise<DeployedPackage | undefined> {
    return this.scope(tenantId)
      .selectFrom('packages')
      .select(['id', 'identifier', 'name', 'version_name', 'version_code', 'size', 'sha256'])
      .where('packages.kind', '=', 'app')
      .where('packages.identifier', '=', identifier)
      .where('packages.deleted_at', 'is', null)
      .orderBy('packages.version_code', 'desc')
      .orderBy('packages.id', 'desc')
      .executeTakeFirst();
  }

  /** Every undeleted version of the kind (at most 500), by identifier then newest first. */
  listDeployablePackages(tenantId: number, kind: DeploymentKind) {
    return this.scope(tenantId)
      .selectFrom('packages')
      .select(['id', 'name', 'identifier', 'version_name', 'version_code', 'size'])
      .where('packages.kind', '=', kind)
      .where('packages.deleted_at', 'is', null)
      .orderBy('packages.identifier')
      .orderBy('packages.version_code', 'desc')
      .orderBy('packages.id', 'desc')
      .limit(500)
      .execute();
  }

  /** Names of packages of the tenant, by id. */
  async packageNames(tenantId: number, ids: number[]): Promise<Map<number, string>> {
    const rows = await this.scope(tenantId)
      .selectFrom('packages')
      .select(['id', 'name'])
      .where('packages.id', 'in', ids)
      .execute();
    return new Map(rows.map((p) => [Number(p.id), p.name]));
  }

  /** Usernames, by id. */
  async usernames(ids: number[]): Promise<Map<number, string>> {
    const rows = await this.db.selectFrom('users').select(['id', 'username']).where('id', 'in', ids).execute();
    return new Map(rows.map((x) => [Number(x.id), x.username]));
  }

  /** The devices among `deviceIds` that are the tenant's and in the caller's scope. */
  async listDevicesInScope(tenantId: number, deviceIds: number[], devices: DevicesInScope): Promise<number[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', 'in', deviceIds)
      .where(orAll(devices))
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** One device of the tenant in the caller's scope, or undefined. */
  findDeviceInScope(tenantId: number, deviceId: number, devices: DevicesInScope) {
    return this.scope(tenantId)
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', '=', deviceId)
      .where(orAll(devices))
      .executeTakeFirst();
  }

  /** The tenant a device is bound to (null: not bound, or no such device). */
  async findDeviceTenant(deviceId: number): Promise<number | null> {
    const dev = await this.db.selectFrom('devices').select(['tenant_id']).where('id', '=', deviceId).executeTakeFirst();
    return dev?.tenant_id ?? null;
  }

  /** The groups among `groupIds` that are the tenant's. */
  async listGroups(tenantId: number, groupIds: number[]): Promise<number[]> {
    const rows = await this.scope(tenantId)
      .selectFrom('device_groups')
      .select('device_groups.id')
      .where('device_groups.id', 'in', groupIds)
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /** The devices in the caller's scope of the groups and all their sub-groups. */
  async listGroupDevices(tenantId: number, groupIds: number[], devices: DevicesInScope): Promise<number[]> {
    const { rows } = await sql<{ id: number }>`
        WITH RECURSIVE g AS (
          SELECT id FROM device_groups WHERE tenant_id = ${tenantId} AND id = ANY(${groupIds}::bigint[])
          UNION
          SELECT c.id FROM device_groups c JOIN g ON c.parent_id = g.id WHERE c.tenant_id = ${tenantId}
        )
        SELECT devices.id FROM devices
        WHERE devices.tenant_id = ${tenantId} AND devices.group_id IN (SELECT id FROM g) AND ${orAll(devices)}`.execute(
      this.db,
    );
    return rows.map((r) => Number(r.id));
  }
}
