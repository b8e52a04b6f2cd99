import type { SystemCustomPart } from '@cpc/contracts';
import { profileDriftFields, type DeviceProfileSettings, type ProfileMsg } from '@cpc/contracts/device-protocol';
import type { ChangedTask, EventSink } from '../task/index.ts';
import type { SystemCustomRepository } from './repository/index.ts';
import { EMPTY, num, type MediaPart } from './types.ts';

/** The device's side: its apply tasks' outcome, its report of its effective configuration, the media it downloads. */
export class DeviceSide {
  constructor(
    private repo: SystemCustomRepository,
    private events: EventSink,
  ) {}

  /** A task of this node changed: a succeeded apply makes its version the applied one; the consoles hear of it. */
  async onTaskChange(row: ChangedTask): Promise<void> {
    if (row.type !== 'apply_profile') return;
    const params = (row.params ?? {}) as { versionId?: number | null; profileId?: number | null };
    if (row.state === 'succeeded') await this.repo.states.markApplied(row.device_id, row.id, params.versionId ?? null);
    this.events.publish(row.tenant_id, {
      type: 'systemCustom',
      data: { profileId: params.profileId ?? null, deviceIds: [Number(row.device_id)] },
    });
  }

  /**
   * The device's effective configuration (up `profile`): stored, and compared with what it should run. While an
   * apply task is open the device has not applied the new version yet: no drift is judged until it reports after
   * applying. Otherwise any difference in the hash is drift, naming the parts whose hashes differ.
   */
  async onReport(deviceId: number, msg: ProfileMsg): Promise<void> {
    const r = await this.repo.states.reportContext(deviceId, msg.versionId);
    if (!r) return;
    const desired = r.hash ?? EMPTY.hash;
    const desiredParts = (r.part_hashes ?? EMPTY.parts) as Record<SystemCustomPart, string | null>;
    // drift is a change away from what the device applied: a failed apply is a failure, not drift
    const judged = !r.open && (r.task_state == null || r.task_state === 'succeeded');
    const drifted = judged && msg.hash !== desired;
    const fields = drifted ? profileDriftFields(desiredParts, msg.parts) : [];
    const tenantId = Number(r.tenant_id);
    await this.repo.states.saveReport(deviceId, tenantId, {
      reported_hash: msg.hash,
      reported_parts: JSON.stringify(msg.parts),
      reported_version_id: msg.versionId,
      applied_version_id: r.reported_version_ok ? msg.versionId : null,
      drift: drifted,
      drift_fields: fields,
      reported_at: new Date(),
      updated_at: new Date(),
    });
    if ((r.drift ?? false) !== drifted || !r.has_state || drifted)
      this.events.publish(tenantId, {
        type: 'systemCustom',
        data: { profileId: num(r.profile_id), deviceIds: [deviceId] },
      });
  }

  /** Media links of an apply task's settings, added at each delivery (fresh signed links, never stored). */
  withLinks(params: unknown, url: (part: MediaPart) => string): Record<string, unknown> {
    const p = (params ?? {}) as { settings?: DeviceProfileSettings };
    if (!p.settings) return {};
    const settings: DeviceProfileSettings = { ...p.settings };
    if (settings.bootAnimation) settings.bootAnimation = { ...settings.bootAnimation, url: url('bootAnimation') };
    if (settings.wallpaper) settings.wallpaper = { ...settings.wallpaper, url: url('wallpaper') };
    return { settings };
  }

  /** The object a device downloads for a part of an open apply task (null: no such task or part). */
  async mediaOfTask(taskId: string, part: MediaPart): Promise<{ key: string; sha256: string; mime: string } | null> {
    const m = await this.repo.states.openTaskMedia(taskId, part);
    return m?.key && m.sha256 ? { key: m.key, sha256: m.sha256, mime: m.mime ?? 'application/octet-stream' } : null;
  }
}
