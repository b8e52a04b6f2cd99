import { sql, type Selectable } from 'kysely';
import { REQUIRED_APP_MAX_ATTEMPTS, type DeploymentKind, type installedQuery } from '@cpc/contracts';
import type { InventoryMsg } from '@cpc/contracts/device-protocol';
import type { z } from 'zod';
import type { Db } from '../../../db/database.ts';
import type { DeviceAiModels, DeviceApps, DeviceInventory, RequiredApps } from '../../../db/generated.ts';
import { TenantScope } from '../../../db/tenant-scope.ts';
import { orAll, type DevicesInScope } from './scope.ts';

/** A device's inventory as reported: apps and models (deduplicated, sorted) and the hash of both lists. */
export interface InventoryReport {
  hash: string;
  apps: InventoryMsg['apps'];
  models: InventoryMsg['models'];
  storageFreeMb: number | null;
}

/** A device that runs an app (or model), with the version it runs and how many match in all. */
export interface InstalledDeviceRow {
  id: string;
  sn: string;
  name: string;
  status: string;
  version_name: string;
  version_code: string;
  total: string;
}

/**
 * The application repository's statements on inventories (`device_inventory`, `device_apps`, `device_ai_models`)
 * and required apps (`required_apps`, and the device tasks the policy counts). ApplicationRepository hands its
 * calls here; nothing else uses this class.
 */
export class InventoryStatements {
  constructor(private db: Db) {}

  private scope(tenantId: number): TenantScope {
    return new TenantScope(this.db, tenantId);
  }

  // ----------------------------------------------------------------------------------------------------------
  // Inventory

  /**
   * Stores a device's inventory unless its hash is the one stored (the row locked while compared): the apps and
   * models are replaced, the hash and times set. Answers whether it changed.
   */
  storeInventory(tenantId: number, deviceId: number, inv: InventoryReport): Promise<boolean> {
    return this.scope(tenantId).transaction(async (tx) => {
      const before = await tx
        .selectFrom('device_inventory')
        .select('device_inventory.hash')
        .where('device_inventory.device_id', '=', deviceId)
        .forUpdate()
        .executeTakeFirst();
      if (before?.hash === inv.hash) return false;
      await tx.deleteFrom('device_apps').where('device_apps.device_id', '=', deviceId).execute();
      await tx.deleteFrom('device_ai_models').where('device_ai_models.device_id', '=', deviceId).execute();
      if (inv.apps.length)
        await tx
          .insertInto(
            'device_apps',
            inv.apps.map((a) => ({
              device_id: deviceId,
              pkg: a.pkg,
              name: a.name,
              version_code: a.versionCode,
              version_name: a.versionName,
            })),
          )
          .execute();
      if (inv.models.length)
        await tx
          .insertInto(
            'device_ai_models',
            inv.models.map((m) => ({
              device_id: deviceId,
              name: m.name,
              version: m.version,
              framework: m.framework ?? '',
            })),
          )
          .execute();
      const values = {
        hash: inv.hash,
        storage_free_mb: inv.storageFreeMb,
        reported_at: new Date(),
        changed_at: new Date(),
      };
      await tx
        .insertInto('device_inventory', { device_id: deviceId, ...values })
        .onConflict((oc) => oc.column('device_id').doUpdateSet(values))
        .execute();
      return true;
    });
  }

  /** A device's last inventory: its row, apps (by package name) and models (by name). */
  async readInventory(
    tenantId: number,
    deviceId: number,
  ): Promise<{
    inv: Selectable<DeviceInventory> | undefined;
    apps: Selectable<DeviceApps>[];
    models: Selectable<DeviceAiModels>[];
  }> {
    const scope = this.scope(tenantId);
    const [inv, apps, models] = await Promise.all([
      scope
        .selectFrom('device_inventory')
        .selectAll()
        .where('device_inventory.device_id', '=', deviceId)
        .executeTakeFirst(),
      scope
        .selectFrom('device_apps')
        .selectAll()
        .where('device_apps.device_id', '=', deviceId)
        .orderBy('pkg')
        .execute(),
      scope
        .selectFrom('device_ai_models')
        .selectAll()
        .where('device_ai_models.device_id', '=', deviceId)
        .orderBy('name')
        .execute(),
    ]);
    return { inv, apps, models };
  }

  /** Device → installed version code (models: null) of `identifier`, for the devices among `deviceIds` that have it. */
  async installedOn(
    tenantId: number,
    kind: DeploymentKind,
    identifier: string,
    deviceIds: number[],
  ): Promise<Map<number, number | null>> {
    if (!deviceIds.length) return new Map();
    if (kind === 'app') {
      const rows = await this.scope(tenantId)
        .selectFrom('device_apps')
        .select(['device_apps.device_id', 'device_apps.version_code'])
        .where('device_apps.pkg', '=', identifier)
        .where('device_apps.device_id', 'in', deviceIds)
        .execute();
      return new Map(rows.map((r) => [Number(r.device_id), Number(r.version_code)]));
    }
    const rows = await this.scope(tenantId)
      .selectFrom('device_ai_models')
      .select('device_ai_models.device_id')
      .where('device_ai_models.name', '=', identifier)
      .where('device_ai_models.device_id', 'in', deviceIds)
      .execute();
    return new Map(rows.map((r) => [Number(r.device_id), null]));
  }

  /** The devices among `deviceIds` that have reported an inventory. */
  async listReporting(tenantId: number, deviceIds: number[]): Promise<Set<number>> {
    const rows = await this.scope(tenantId)
      .selectFrom('device_inventory')
      .select('device_inventory.device_id')
      .where('device_inventory.device_id', 'in', deviceIds)
      .execute();
    return new Set(rows.map((r) => Number(r.device_id)));
  }

  /** The FROM clause of "which devices run it": the app's (or model's) rows of the devices in scope. */
  private installedFrom(tenantId: number, q: z.output<typeof installedQuery>, devices: DevicesInScope) {
    const t = q.kind === 'app' ? 'device_apps' : 'device_ai_models';
    const key = q.kind === 'app' ? sql.ref('x.pkg') : sql.ref('x.name');
    const vName = q.kind === 'app' ? sql.ref('x.version_name') : sql.ref('x.version');
    const vCode = q.kind === 'app' ? sql`x.version_code` : sql`0`;
    const from = sql`${sql.table(t)} x JOIN devices ON devices.id = x.device_id
      WHERE x.tenant_id = ${tenantId} AND devices.tenant_id = ${tenantId} AND ${key} = ${q.identifier} AND ${orAll(devices)}`;
    const only = q.versionName ? sql`AND ${vName} = ${q.versionName}` : sql``;
    return { from, only, vName, vCode };
  }

  /** How many devices in scope run each version of the app (or model), the most common first. */
  async countInstalledVersions(
    tenantId: number,
    q: z.output<typeof installedQuery>,
    devices: DevicesInScope,
  ): Promise<{ version_name: string; version_code: string; n: string }[]> {
    const { from, vName, vCode } = this.installedFrom(tenantId, q, devices);
    const { rows } = await sql<{ version_name: string; version_code: string; n: string }>`
      SELECT ${vName} AS version_name, max(${vCode}) AS version_code, count(*) AS n FROM ${from}
      GROUP BY ${vName} ORDER BY n DESC, version_name DESC`.execute(this.db);
    return rows;
  }

  /** A page of the devices in scope that run the app (or model, at `versionName` when given), by serial number. */
  async listInstalledDevices(
    tenantId: number,
    q: z.output<typeof installedQuery>,
    devices: DevicesInScope,
  ): Promise<InstalledDeviceRow[]> {
    const { from, only, vName, vCode } = this.installedFrom(tenantId, q, devices);
    const { rows } =
      await sql<InstalledDeviceRow>`SELECT devices.id, devices.sn, devices.name, devices.status, ${vName} AS version_name, ${vCode} AS version_code,
         count(*) OVER () AS total
       FROM ${from} ${only} ORDER BY devices.sn LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(
        this.db,
      );
    return rows;
  }

  /** How many devices in scope run the app (or model, at `versionName` when given). */
  async countInstalledDevices(
    tenantId: number,
    q: z.output<typeof installedQuery>,
    devices: DevicesInScope,
  ): Promise<number> {
    const { from, only } = this.installedFrom(tenantId, q, devices);
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM ${from} ${only}`.execute(this.db);
    return Number(rows[0].n);
  }

  // ----------------------------------------------------------------------------------------------------------
  // Required apps

  /** The tenant's required apps, by identifier. */
  listRequired(tenantId: number): Promise<Selectable<RequiredApps>[]> {
    return this.scope(tenantId).selectFrom('required_apps').selectAll().orderBy('identifier').execute();
  }

  /** The tenant's required apps as the policy reads them (in no particular order). */
  listRequiredForPolicy(tenantId: number): Promise<Selectable<RequiredApps>[]> {
    return this.scope(tenantId).selectFrom('required_apps').selectAll().execute();
  }

  /** The tenants that have a required app. */
  async listTenantsWithRequired(): Promise<number[]> {
    const rows = await this.db.selectFrom('required_apps').select('tenant_id').distinct().execute();
    return rows.map((t) => Number(t.tenant_id));
  }

  /** Replaces the tenant's required apps; answers what they were (identifier and minimum, by identifier). */
  async replaceRequired(
    tenantId: number,
    apps: { identifier: string; minVersionCode: number | null }[],
    createdBy: number | null,
  ): Promise<{ identifier: string; min_version_code: number | null }[]> {
    const scope = this.scope(tenantId);
    const before = await scope
      .selectFrom('required_apps')
      .select(['identifier', 'min_version_code'])
      .orderBy('identifier')
      .execute();
    await scope.deleteFrom('required_apps').execute();
    if (apps.length)
      await scope
        .insertInto(
          'required_apps',
          apps.map((a) => ({ identifier: a.identifier, min_version_code: a.minVersionCode, created_by: createdBy })),
        )
        .execute();
    return before;
  }

  /** How many reporting devices in scope lack the app at `minCode` or above. */
  async countMissing(tenantId: number, identifier: string, minCode: number, devices: DevicesInScope): Promise<number> {
    const { rows } = await sql<{ n: string }>`
        SELECT count(*) AS n FROM device_inventory i JOIN devices ON devices.id = i.device_id
        WHERE i.tenant_id = ${tenantId} AND ${orAll(devices)} AND NOT EXISTS (
          SELECT 1 FROM device_apps a WHERE a.device_id = i.device_id AND a.pkg = ${identifier} AND a.version_code >= ${minCode})`.execute(
      this.db,
    );
    return Number(rows[0].n);
  }

  /** The tenant's lock of the required-apps policy, held until this repository's transaction ends. */
  async lockPolicy(tenantId: number): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`required-app:${tenantId}`}))`.execute(this.db);
  }

  /**
   * The reporting devices (of `deviceIds`, or all) that lack the app at `minCode` or above, have no open install
   * of it, and whose policy installs of it failed fewer than REQUIRED_APP_MAX_ATTEMPTS times; by id.
   */
  async listDevicesLacking(
    tenantId: number,
    identifier: string,
    minCode: number,
    deviceIds: number[] | undefined,
  ): Promise<number[]> {
    const only = deviceIds ? sql`AND i.device_id = ANY(${deviceIds}::bigint[])` : sql``;
    const { rows } = await sql<{ device_id: string }>`
          SELECT i.device_id FROM device_inventory i
          WHERE i.tenant_id = ${tenantId} ${only}
            AND NOT EXISTS (SELECT 1 FROM device_apps a WHERE a.device_id = i.device_id AND a.pkg = ${identifier}
              AND a.version_code >= ${minCode})
            AND NOT EXISTS (SELECT 1 FROM device_tasks t WHERE t.device_id = i.device_id AND t.tenant_id = ${tenantId}
              AND t.type = 'install_app' AND t.params->>'identifier' = ${identifier}
              AND t.state IN ('queued','sent','delivered','running','timeout'))
            AND (SELECT count(*) FROM device_tasks t WHERE t.device_id = i.device_id AND t.tenant_id = ${tenantId}
              AND t.type = 'install_app' AND t.params->>'identifier' = ${identifier} AND t.params->>'policy' = 'true'
              AND t.state IN ('failed','timeout','expired')) < ${REQUIRED_APP_MAX_ATTEMPTS}
          ORDER BY i.device_id`.execute(this.db);
    return rows.map((x) => Number(x.device_id));
  }
}
