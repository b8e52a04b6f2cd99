import type {
  DeviceFences,
  FenceCounts,
  FenceDetail,
  FenceDeviceRow,
  FenceEventItem,
  FenceItem,
  FenceTrack,
  Paged,
} from '@cpc/contracts';
import { notFound } from '../../plugins/errors.ts';
import { scheduleActive } from './geometry.ts';
import type {
  FenceDevicesFilter,
  FenceEventsFilter,
  FenceRepository,
  FenceRow,
  FenceStateRepository,
} from './repository/index.ts';
import { iso, isoOrNull, type FenceCaller } from './types.ts';

export type FenceTargets = { deviceIds: number[]; groupIds: number[] };

/**
 * Reading fences: the list and a fence's detail with its targets and counts (devices in the reader's data scope
 * only), its devices with their state, the events, a device's fences and its track.
 */
export class FenceReader {
  constructor(
    private repo: FenceRepository,
    private state: FenceStateRepository,
  ) {}

  private async counts(u: FenceCaller, fenceIds: number[]): Promise<Map<number, FenceCounts>> {
    const out = new Map<number, FenceCounts>(
      fenceIds.map((id) => [id, { devices: 0, inside: 0, outside: 0, unknown: 0 }]),
    );
    if (!fenceIds.length) return out;
    for (const r of await this.repo.counts(u.tenantId, u.access, fenceIds)) {
      out.set(Number(r.fence_id), {
        devices: r.devices,
        inside: r.inside,
        outside: r.outside,
        unknown: r.devices - r.inside - r.outside,
      });
    }
    return out;
  }

  /** The explicit targets of fences: groups, and the devices in the caller's data scope (the others stay hidden). */
  async targetsOf(u: FenceCaller, fenceIds: number[]): Promise<Map<number, FenceTargets>> {
    const out = new Map<number, FenceTargets>(fenceIds.map((id) => [id, { deviceIds: [], groupIds: [] }]));
    if (!fenceIds.length) return out;
    for (const r of await this.repo.targets(u.tenantId, u.access, fenceIds)) {
      const t = out.get(Number(r.fence_id))!;
      if (r.device_id != null) t.deviceIds.push(Number(r.device_id));
      if (r.group_id != null) t.groupIds.push(Number(r.group_id));
    }
    return out;
  }

  private item(r: FenceRow, targets: FenceTargets, counts: FenceCounts, now: Date): FenceItem {
    return {
      id: Number(r.id),
      name: r.name,
      shape: r.shape,
      bbox: [r.min_lng, r.min_lat, r.max_lng, r.max_lat],
      schedule: r.schedule,
      alertOn: r.alert_on,
      dwellS: r.dwell_s,
      enabled: r.enabled,
      activeNow: r.enabled && scheduleActive(r.schedule, now),
      deviceIds: targets.deviceIds,
      groupIds: targets.groupIds,
      counts,
      version: r.version,
      createdAt: iso(r.created_at),
      updatedAt: iso(r.updated_at),
    };
  }

  async list(
    u: FenceCaller,
    q: { pageNo: number; pageSize: number; keyword?: string; enabled?: boolean },
  ): Promise<Paged<FenceItem>> {
    const { rows, total } = await this.repo.listPage(u.tenantId, q);
    const ids = rows.map((r) => Number(r.id));
    const [targets, counts] = await Promise.all([this.targetsOf(u, ids), this.counts(u, ids)]);
    const now = new Date();
    return {
      list: rows.map((r) => this.item(r, targets.get(Number(r.id))!, counts.get(Number(r.id))!, now)),
      total,
    };
  }

  async detail(u: FenceCaller, id: number): Promise<FenceDetail> {
    const r = await this.repo.findFence(u.tenantId, id);
    if (!r) throw notFound('fence');
    const [targets, counts] = await Promise.all([this.targetsOf(u, [id]), this.counts(u, [id])]);
    const t = targets.get(id)!;
    const [devices, groups] = await Promise.all([
      t.deviceIds.length ? this.repo.devicesByIds(u.tenantId, u.access, t.deviceIds) : [],
      t.groupIds.length ? this.repo.groupsByIds(u.tenantId, t.groupIds) : [],
    ]);
    return {
      ...this.item(r, t, counts.get(id)!, new Date()),
      devices: devices.map((d) => ({ id: Number(d.id), sn: d.sn, name: d.name })),
      groups: groups.map((g) => ({ id: Number(g.id), name: g.name })),
    };
  }

  async devices(u: FenceCaller, q: FenceDevicesFilter): Promise<Paged<FenceDeviceRow>> {
    if (!(await this.repo.findFence(u.tenantId, q.id))) throw notFound('fence');
    const rows = await this.repo.devicePage(u.tenantId, u.access, q);
    let total = rows[0]?.total ?? 0;
    if (!rows.length && q.pageNo > 1) total = await this.repo.deviceCount(u.tenantId, u.access, q);
    return {
      list: rows.map((r) => ({
        deviceId: Number(r.id),
        sn: r.sn,
        name: r.name,
        online: r.status === 'online',
        side: r.side ?? 'unknown',
        since: isoOrNull(r.since),
        pending: r.pending_side && r.pending_since ? { side: r.pending_side, since: iso(r.pending_since) } : null,
        lastPosition:
          r.lat != null && r.lng != null && r.located_at
            ? { lat: r.lat, lng: r.lng, accuracyM: null, at: iso(r.located_at) }
            : null,
      })),
      total,
    };
  }

  async eventList(u: FenceCaller, q: FenceEventsFilter): Promise<Paged<FenceEventItem>> {
    const { rows, total } = await this.repo.eventPage(u.tenantId, u.access, q);
    return {
      list: rows.map((r) => ({
        id: Number(r.id),
        fenceId: Number(r.fence_id),
        fenceName: r.fence_name,
        deviceId: Number(r.device_id),
        deviceSn: r.sn,
        deviceName: r.device_name,
        kind: r.kind,
        at: iso(r.at),
        lat: r.lat,
        lng: r.lng,
      })),
      total,
    };
  }

  /** The device (in the caller's reach, else 404) with its last position. */
  private async device(u: FenceCaller, deviceId: number) {
    const d = await this.repo.deviceInReach(u.tenantId, u.access, deviceId);
    if (!d) throw notFound('device');
    return d;
  }

  async deviceFences(u: FenceCaller, deviceId: number): Promise<DeviceFences> {
    await this.device(u, deviceId);
    const rows = await this.state.fencesOfDevice(deviceId, u.tenantId);
    const now = new Date();
    return {
      list: rows.map((r) => ({
        fenceId: Number(r.id),
        name: r.name,
        shape: r.shape,
        alertOn: r.alert_on,
        enabled: r.enabled,
        activeNow: r.enabled && scheduleActive(r.schedule, now),
        side: r.side ?? 'unknown',
        since: isoOrNull(r.since),
      })),
    };
  }

  async track(u: FenceCaller, deviceId: number, hours: number): Promise<FenceTrack> {
    const d = await this.device(u, deviceId);
    const rows = await this.repo.track(deviceId, hours);
    return {
      deviceId,
      hours,
      positions: rows.map((r) => ({ lat: r.lat, lng: r.lng, accuracyM: r.accuracy_m, at: iso(r.at) })),
      last:
        d.lat != null && d.lng != null && d.located_at
          ? { lat: d.lat, lng: d.lng, accuracyM: null, at: iso(d.located_at) }
          : null,
    };
  }
}
