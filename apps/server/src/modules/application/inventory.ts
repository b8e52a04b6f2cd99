import { createHash } from 'node:crypto';
import type { DeviceInventory, InstalledResult, installedQuery } from '@cpc/contracts';
import type { InventoryMsg } from '@cpc/contracts/device-protocol';
import type { z } from 'zod';
import type { ScopedCaller } from '../../lib/data-scope.ts';
import { notFound } from '../../plugins/errors.ts';
import type { EventSink } from '../task/index.ts';
import { iso } from './deployments.ts';
import type { ApplicationRepository, InventoryReport } from './repository/index.ts';

/** A report's lists deduplicated and sorted, and the hash that tells whether they changed. */
export function inventoryReport(msg: InventoryMsg): InventoryReport {
  const apps = [...new Map(msg.apps.map((a) => [a.pkg, a])).values()].sort((a, b) => a.pkg.localeCompare(b.pkg));
  const models = [...new Map(msg.models.map((m) => [m.name, m])).values()].sort((a, b) => a.name.localeCompare(b.name));
  const hash = createHash('sha256')
    .update(JSON.stringify({ apps, models: models.map((m) => ({ ...m, framework: m.framework ?? '' })) }))
    .digest('hex');
  return { hash, apps, models, storageFreeMb: msg.storageFreeMb ?? null };
}

/** The apps and AI models devices report: stored as reported, read per device and as "which devices run X". */
export class Inventories {
  constructor(
    private repo: ApplicationRepository,
    private events: EventSink,
    /** The required-apps policy, applied to a device once its report is stored. */
    private applyPolicy: (tenantId: number, deviceIds: number[]) => Promise<number>,
  ) {}

  /**
   * A device's inventory (the gateway calls it for each `inventory` message): stored only when it changed (a hash
   * of the sorted lists), then the required-apps policy is applied to the device.
   */
  async onInventory(deviceId: number, msg: InventoryMsg): Promise<void> {
    const tenantId = await this.repo.findDeviceTenant(deviceId);
    if (!tenantId) return; // not bound: nobody to show it to
    const changed = await this.repo.storeInventory(tenantId, deviceId, inventoryReport(msg));
    if (changed) this.events.publish(tenantId, { type: 'application', data: { deviceIds: [deviceId] } });
    await this.applyPolicy(tenantId, [deviceId]);
  }

  async inventory(u: ScopedCaller, deviceId: number): Promise<DeviceInventory> {
    const dev = await this.repo.findDeviceInScope(u.tenantId, deviceId, u.devices);
    if (!dev) throw notFound('device');
    const { inv, apps, models } = await this.repo.readInventory(u.tenantId, deviceId);
    return {
      deviceId,
      reportedAt: inv ? iso(inv.reported_at) : null,
      storageFreeMb: inv?.storage_free_mb ?? null,
      apps: apps.map((a) => ({
        pkg: a.pkg,
        name: a.name,
        versionCode: Number(a.version_code),
        versionName: a.version_name,
      })),
      models: models.map((m) => ({ name: m.name, version: m.version, framework: m.framework })),
    };
  }

  /** "Which devices run version X": the devices with the app (or model), and how many run each version. */
  async installed(u: ScopedCaller, q: z.output<typeof installedQuery>): Promise<InstalledResult> {
    const versions = await this.repo.countInstalledVersions(u.tenantId, q, u.devices);
    const rows = await this.repo.listInstalledDevices(u.tenantId, q, u.devices);
    let total = rows.length ? Number(rows[0].total) : 0;
    if (!rows.length && q.pageNo > 1) total = await this.repo.countInstalledDevices(u.tenantId, q, u.devices);
    return {
      list: rows.map((r) => ({
        deviceId: Number(r.id),
        deviceSn: r.sn,
        deviceName: r.name,
        online: r.status === 'online',
        versionName: r.version_name,
        versionCode: Number(r.version_code),
      })),
      total,
      versions: versions.map((v) => ({
        versionName: v.version_name,
        versionCode: Number(v.version_code),
        devices: Number(v.n),
      })),
    };
  }
}
