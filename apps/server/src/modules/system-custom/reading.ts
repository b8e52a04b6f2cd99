import {
  RESOLUTION_RULE,
  type CustomAppItem,
  type DeviceProfile,
  type Paged,
  type ProfileDetail,
  type ProfileDeviceItem,
  type ProfileItem,
  type ProfileSettings,
  type SystemCustomPart,
  type TaskState,
  profileDevicesQuery,
  profileListQuery,
} from '@cpc/contracts';
import type { z } from 'zod';
import type { ObjectStorage } from '../../lib/storage.ts';
import { notFound } from '../../plugins/errors.ts';
import type { DeviceStateRow, ProfileReadRepository, SystemCustomRepository } from './repository/index.ts';
import { applyState, partsOf, settingsView, versionView } from './settings.ts';
import { iso, isoOrNull, num, type CustomCaller, type StoredSettings } from './types.ts';

type ProfileRow = {
  id: number | string;
  name: string;
  description: string;
  created_at: Date | string;
  updated_at: Date | string;
};
type Assignment = Awaited<ReturnType<ProfileReadRepository['assignmentsOf']>>[number];
type Candidate = Awaited<ReturnType<ProfileReadRepository['candidatesOf']>>[number];

/** A device's state row as the console lists it. */
function deviceItem(r: DeviceStateRow): ProfileDeviceItem {
  const task = r.task_state ? { state: r.task_state as TaskState, error: r.task_error as string } : null;
  const state = applyState(task);
  return {
    deviceId: Number(r.device_id),
    sn: r.sn,
    name: r.device_name,
    online: r.status === 'online',
    source: (r.source ?? 'device') as 'device' | 'group',
    groupId: num(r.source_group_id),
    groupName: r.group_name ?? null,
    desiredVersionId: num(r.desired_version_id),
    desiredVersion: num(r.desired_version),
    appliedVersionId: num(r.applied_version_id),
    appliedVersion: num(r.applied_version),
    state,
    reason: state === 'failed' ? (task?.error ?? '') : '',
    drift: !!r.drift,
    driftFields: (r.drift_fields ?? []) as SystemCustomPart[],
    taskId: r.task_id ?? null,
    reportedAt: isoOrNull(r.reported_at),
    updatedAt: iso(r.updated_at),
  };
}

function assignmentView(a: Assignment): ProfileDetail['assignments'][number] {
  return a.device_id != null
    ? {
        target: 'device' as const,
        id: Number(a.device_id),
        name: a.device_name || a.sn || '',
        sn: a.sn,
        at: iso(a.created_at),
      }
    : {
        target: 'group' as const,
        id: Number(a.group_id),
        name: a.group_name ?? '',
        sn: null,
        at: iso(a.created_at),
      };
}

function candidateView(c: Candidate): DeviceProfile['candidates'][number] {
  return {
    source: c.depth === 0 ? ('device' as const) : ('group' as const),
    groupId: num(c.group_id),
    groupName: c.group_name,
    profileId: Number(c.profile_id),
    profileName: c.profile_name,
  };
}

/** What the console reads: profiles with their counts, a profile's versions and devices, a device's profile. */
export class ProfileReading {
  constructor(
    private repo: SystemCustomRepository,
    private storage: ObjectStorage,
  ) {}

  private async profileRow(tenantId: number, id: number) {
    const row = await this.repo.profiles.findProfile(tenantId, id);
    if (!row) throw notFound('profile');
    return row;
  }

  async list(u: CustomCaller, q: z.output<typeof profileListQuery>): Promise<Paged<ProfileItem>> {
    const { rows, total } = await this.repo.reads.listProfiles(u.tenantId, q);
    return { list: await this.items(u, rows), total };
  }

  private async items(u: CustomCaller, rows: ProfileRow[]): Promise<ProfileItem[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => Number(r.id));
    const vs = await this.repo.profiles.versionsOf(u.tenantId, ids);
    // devices assigned outside the caller's data scope are not counted (nor listed by `detail`)
    const assigned = await this.repo.reads.assignmentCounts(u.tenantId, ids, u.devices);
    const counts = await this.repo.reads.stateCounts(u.tenantId, ids, u.devices);
    return rows.map((r) => {
      const id = Number(r.id);
      const mine = vs.filter((v) => Number(v.profile_id) === id);
      const current = mine.find((v) => v.version != null);
      const draft = mine.find((v) => v.version == null);
      const a = assigned.find((x) => Number(x.profile_id) === id);
      const c = counts.find((x) => Number(x.profile_id) === id);
      return {
        id,
        name: r.name,
        description: r.description,
        version: current?.version ?? null,
        hasDraft: !!draft,
        parts: partsOf(current ?? draft),
        assignedDevices: Number(a?.devices ?? 0),
        assignedGroups: Number(a?.groups ?? 0),
        devices: Number(c?.devices ?? 0),
        applied: Number(c?.applied ?? 0),
        failed: Number(c?.failed ?? 0),
        drifted: Number(c?.drifted ?? 0),
        createdAt: iso(r.created_at),
        updatedAt: iso(r.updated_at),
      };
    });
  }

  private async userNames(ids: Array<number | string | null>): Promise<Map<number, string>> {
    const want = [...new Set(ids.filter((x) => x != null).map(Number))];
    if (!want.length) return new Map();
    const us = await this.repo.reads.userNames(want);
    return new Map(us.map((x) => [Number(x.id), x.username]));
  }

  async detail(u: CustomCaller, id: number): Promise<ProfileDetail> {
    const row = await this.profileRow(u.tenantId, id);
    const [item] = await this.items(u, [row]);
    const vs = await this.repo.profiles.versionsOf(u.tenantId, [id]);
    const users = await this.userNames(vs.map((v) => v.published_by));
    const draft = vs.find((v) => v.version == null);
    const published = vs.filter((v) => v.version != null);
    const assignments = await this.repo.reads.assignmentsOf(u.tenantId, id, u.devices);
    return {
      ...item,
      draft: draft ? versionView(this.storage, draft, users) : null,
      current: published[0] ? versionView(this.storage, published[0], users) : null,
      history: published.map((v) => versionView(this.storage, v, users)),
      assignments: assignments.map(assignmentView),
      rule: RESOLUTION_RULE,
    };
  }

  async devices(u: CustomCaller, q: z.output<typeof profileDevicesQuery>): Promise<Paged<ProfileDeviceItem>> {
    await this.profileRow(u.tenantId, q.id);
    const { rows, total } = await this.repo.reads.profileDevices(u.tenantId, u.devices, q);
    return { list: rows.map(deviceItem), total };
  }

  async device(u: CustomCaller, deviceId: number): Promise<DeviceProfile> {
    const dev = await this.repo.reads.deviceInScope(u.tenantId, deviceId, u.devices);
    if (!dev) throw notFound('device');
    const candidates = await this.repo.reads.candidatesOf(u.tenantId, deviceId, dev.group_id);
    const r = await this.repo.reads.deviceState(u.tenantId, u.devices, deviceId);
    const item = r ? deviceItem(r) : null;
    let settings: ProfileSettings | null = null;
    if (r?.desired_version_id != null) {
      const v = await this.repo.profiles.versionById(u.tenantId, Number(r.desired_version_id));
      if (v) settings = settingsView(this.storage, v.settings as StoredSettings, v.kiosk_password, v.applock_password);
    }
    const governed = r?.profile_id != null;
    return {
      deviceId,
      profile: governed ? { id: Number(r.profile_id), name: r.profile_name ?? '' } : null,
      source: governed ? (r.source ?? null) : null,
      groupId: governed ? num(r.source_group_id) : null,
      groupName: governed ? (r.group_name ?? null) : null,
      candidates: candidates.map(candidateView),
      desiredVersionId: item?.desiredVersionId ?? null,
      desiredVersion: item?.desiredVersion ?? null,
      appliedVersionId: item?.appliedVersionId ?? null,
      appliedVersion: item?.appliedVersion ?? null,
      state: item?.state ?? 'none',
      reason: item?.reason ?? '',
      drift: item?.drift ?? false,
      driftFields: item?.driftFields ?? [],
      taskId: item?.taskId ?? null,
      reportedAt: item?.reportedAt ?? null,
      settings,
      rule: RESOLUTION_RULE,
    };
  }

  /** The customer's applications a profile may name: one row per package name, its latest upload. */
  async apps(u: CustomCaller): Promise<CustomAppItem[]> {
    const rows = await this.repo.reads.latestApps(u.tenantId);
    return rows.map((r) => ({ pkg: r.identifier, name: r.name, versionName: r.version_name }));
  }
}
