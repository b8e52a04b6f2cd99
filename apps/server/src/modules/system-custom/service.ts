import type {
  CustomAppItem,
  DeviceProfile,
  Paged,
  ProfileAssignResult,
  ProfileDetail,
  ProfileDeviceItem,
  ProfileItem,
  ProfilePublishResult,
  customProfileCreateBody,
  customProfileUpdateBody,
  profileAssignBody,
  profileDevicesQuery,
  profileListQuery,
} from '@cpc/contracts';
import type { ProfileMsg } from '@cpc/contracts/device-protocol';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import type { ChangedTask, EventSink, TaskService } from '../task/index.ts';
import { DeviceSide } from './device-side.ts';
import { ProfileEditing } from './profiles.ts';
import { ProfileReading } from './reading.ts';
import { SystemCustomRepository } from './repository/index.ts';
import { Resolution } from './resolution.ts';
import type { CustomCaller, MediaPart } from './types.ts';

export { APPLY_EXPIRE_S, type CustomCaller } from './types.ts';
export { deviceSettingsOf, hashProfilePassword } from './settings.ts';

/**
 * System customization profiles (issue 16): versions (one draft, published ones frozen), assignments to devices and
 * groups, resolution (device beats group, nearest group beats farther), an apply_profile task per device whose
 * desired version changed, and each device's report of its effective configuration (drift). What a device should
 * run is re-derived from the assignments by `reconcile` (after every change, and periodically: a device moved
 * between groups, or a new device in an assigned group, is picked up by the next run); the apply state is read from
 * `device_tasks`, so nothing here is only in memory.
 *
 * The module's entry for the app and the routes; the work is done by use case: `ProfileEditing` (profiles, versions,
 * assignments), `Resolution`, `DeviceSide` (apply outcome, reports, media downloads) and `ProfileReading`, every
 * statement in `SystemCustomRepository`.
 */
export class SystemCustomService {
  private editing: ProfileEditing;
  private resolution: Resolution;
  private deviceSide: DeviceSide;
  private reading: ProfileReading;

  constructor(db: Db, storage: ObjectStorage, tasks: TaskService, events: EventSink) {
    const repo = new SystemCustomRepository(db);
    this.resolution = new Resolution(repo, tasks, events);
    this.editing = new ProfileEditing(repo, storage, events, this.resolution);
    this.deviceSide = new DeviceSide(repo, events);
    this.reading = new ProfileReading(repo, storage);
  }

  // Profiles, versions, assignments

  create(u: CustomCaller, body: z.output<typeof customProfileCreateBody>): Promise<{ id: number }> {
    return this.editing.create(u, body);
  }

  update(u: CustomCaller, body: z.output<typeof customProfileUpdateBody>): Promise<{ id: number }> {
    return this.editing.update(u, body);
  }

  publish(u: CustomCaller, id: number): Promise<ProfilePublishResult> {
    return this.editing.publish(u, id);
  }

  remove(u: CustomCaller, id: number): Promise<void> {
    return this.editing.remove(u, id);
  }

  assign(u: CustomCaller, body: z.output<typeof profileAssignBody>): Promise<ProfileAssignResult> {
    return this.editing.assign(u, body);
  }

  // Resolution

  /** Resolves every device of `tx`'s tenant inside that transaction (see `Resolution.reconcile`). */
  reconcile(
    tx: TenantScope,
    createdBy: number | null,
    /** Devices whose configuration is gone (their profile was deleted): sent the defaults if nothing else applies. */
    stale: Set<number> = new Set(),
  ): Promise<{ rows: ChangedTask[]; changed: number[] }> {
    return this.resolution.reconcile(new SystemCustomRepository(tx.db), tx.tenantId, createdBy, stale);
  }

  /** Resolves again every tenant that has assignments or device states (the periodic reconcile). */
  reconcileAll(): Promise<number> {
    return this.resolution.reconcileAll();
  }

  // The device's side

  onTaskChange(row: ChangedTask): Promise<void> {
    return this.deviceSide.onTaskChange(row);
  }

  onReport(deviceId: number, msg: ProfileMsg): Promise<void> {
    return this.deviceSide.onReport(deviceId, msg);
  }

  withLinks(params: unknown, url: (part: MediaPart) => string): Record<string, unknown> {
    return this.deviceSide.withLinks(params, url);
  }

  mediaOfTask(taskId: string, part: MediaPart): Promise<{ key: string; sha256: string; mime: string } | null> {
    return this.deviceSide.mediaOfTask(taskId, part);
  }

  // Reading

  list(u: CustomCaller, q: z.output<typeof profileListQuery>): Promise<Paged<ProfileItem>> {
    return this.reading.list(u, q);
  }

  detail(u: CustomCaller, id: number): Promise<ProfileDetail> {
    return this.reading.detail(u, id);
  }

  devices(u: CustomCaller, q: z.output<typeof profileDevicesQuery>): Promise<Paged<ProfileDeviceItem>> {
    return this.reading.devices(u, q);
  }

  device(u: CustomCaller, deviceId: number): Promise<DeviceProfile> {
    return this.reading.device(u, deviceId);
  }

  apps(u: CustomCaller): Promise<CustomAppItem[]> {
    return this.reading.apps(u);
  }
}
