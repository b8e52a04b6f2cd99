import {
  SYSTEM_CUSTOM_PARTS,
  type ProfileAssignResult,
  type ProfilePublishResult,
  customProfileCreateBody,
  customProfileUpdateBody,
  profileAssignBody,
} from '@cpc/contracts';
import { profileHashes } from '@cpc/contracts/device-protocol';
import type { z } from 'zod';
import type { ObjectStorage } from '../../lib/storage.ts';
import { changedFields } from '../../lib/audit.ts';
import { AppError, notFound } from '../../plugins/errors.ts';
import type { EventSink } from '../task/index.ts';
import { ProfileParts, type AppliedParts, type PartsBase } from './parts.ts';
import type { SystemCustomRepository, VersionValues } from './repository/index.ts';
import type { Resolution } from './resolution.ts';
import { deviceSettingsOf, partChanges } from './settings.ts';
import type { CustomCaller, StoredSettings } from './types.ts';

type UpdateBody = z.output<typeof customProfileUpdateBody>;

/** A version's columns for these settings and passwords (the hashes a device reports are compared with). */
function versionValues(base: PartsBase, hashes: ReturnType<typeof profileHashes>): VersionValues {
  return {
    settings: JSON.stringify(base.settings),
    kiosk_password: base.kiosk ? JSON.stringify(base.kiosk) : null,
    applock_password: base.applock ? JSON.stringify(base.applock) : null,
    hash: hashes.hash,
    part_hashes: JSON.stringify(hashes.parts),
  };
}

/** The parts this body names, taken from `parts`; the others from the draft as it is now (`now`). */
function mergeNamedParts(body: UpdateBody, now: PartsBase, parts: AppliedParts): PartsBase {
  const settings: StoredSettings = { ...now.settings };
  let kiosk = now.kiosk;
  let applock = now.applock;
  for (const p of SYSTEM_CUSTOM_PARTS) {
    if (body[p] === undefined) continue;
    const v = (parts.settings as Record<string, unknown>)[p];
    if (v === undefined) delete (settings as Record<string, unknown>)[p];
    else (settings as Record<string, unknown>)[p] = v;
    if (p === 'topScreen') kiosk = parts.kiosk;
    if (p === 'appLock') applock = parts.applock;
  }
  return { settings, kiosk, applock };
}

/**
 * Profiles and their versions (one draft, published ones frozen) and their assignments to devices and groups; every
 * change that alters what devices should run resolves the tenant again inside the same transaction.
 */
export class ProfileEditing {
  private parts: ProfileParts;

  constructor(
    private repo: SystemCustomRepository,
    storage: ObjectStorage,
    private events: EventSink,
    private resolution: Resolution,
  ) {
    this.parts = new ProfileParts(repo, storage);
  }

  private async profileRow(repo: SystemCustomRepository, tenantId: number, id: number, lock = false) {
    const row = await repo.profiles.findProfile(tenantId, id, lock);
    if (!row) throw notFound('profile');
    return row;
  }

  /** What an edit starts from: the draft, else the latest published version (copied into a new draft). */
  private async draftBase(repo: SystemCustomRepository, tenantId: number, profileId: number) {
    const vs = await repo.profiles.versionsOf(tenantId, [profileId]);
    const draft = vs.find((v) => v.version == null);
    const from = draft ?? vs.find((v) => v.version != null);
    return {
      draftId: draft ? Number(draft.id) : null,
      settings: (from?.settings ?? {}) as StoredSettings,
      kiosk: (from?.kiosk_password ?? null) as PartsBase['kiosk'],
      applock: (from?.applock_password ?? null) as PartsBase['applock'],
    };
  }

  async create(u: CustomCaller, body: z.output<typeof customProfileCreateBody>): Promise<{ id: number }> {
    const parts = await this.parts.apply(u.tenantId, body, { settings: {}, kiosk: null, applock: null });
    const id = await this.repo.transaction(async (tx) => {
      const id = await tx.profiles.insertProfile(u.tenantId, {
        name: body.name,
        description: body.description,
        createdBy: u.id,
      });
      await tx.profiles.insertDraft(u.tenantId, id, versionValues(parts, parts.hashes));
      await tx.profiles.audit({
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'systemCustom.create',
        resource: 'custom_profile',
        resourceId: id,
        result: 'ok',
        changes: {
          ...changedFields({}, { name: body.name, description: body.description }),
          ...partChanges({}, parts.settings, parts.passwordsChanged),
        },
      });
      return id;
    });
    this.events.publish(u.tenantId, { type: 'systemCustom', data: { profileId: id, deviceIds: [] } });
    if (body.publish) await this.publish(u, id);
    return { id };
  }

  async update(u: CustomCaller, body: UpdateBody): Promise<{ id: number }> {
    // media and apps are checked (and passwords hashed) before the transaction; the draft is then written under the
    // profile's row lock, from the draft as it is then (a concurrent edit of other parts is kept)
    const profile = await this.profileRow(this.repo, u.tenantId, body.id);
    const base = await this.draftBase(this.repo, u.tenantId, Number(profile.id));
    // "publish" with nothing to publish is refused before anything changes
    if (body.publish && base.draftId == null && !SYSTEM_CUSTOM_PARTS.some((p) => body[p] !== undefined))
      throw new AppError(409, 'systemCustom.nothingToPublish', undefined, { field: 'id' });
    const parts = await this.parts.apply(u.tenantId, body, base);
    await this.repo.transaction((tx) => this.writeDraft(tx, u, body, parts));
    this.events.publish(u.tenantId, { type: 'systemCustom', data: { profileId: body.id, deviceIds: [] } });
    if (body.publish) await this.publish(u, body.id);
    return { id: body.id };
  }

  /** The edit's transaction: the draft as it is now, with the parts the body named replaced; name and description. */
  private async writeDraft(tx: SystemCustomRepository, u: CustomCaller, body: UpdateBody, parts: AppliedParts) {
    const before = await this.profileRow(tx, u.tenantId, body.id, true);
    const now = await this.draftBase(tx, u.tenantId, body.id);
    // parts this body did not name are taken from the draft as it is now
    const merged = mergeNamedParts(body, now, parts);
    const hashes = profileHashes(deviceSettingsOf(merged.settings, merged.kiosk, merged.applock));
    const values = { ...versionValues(merged, hashes), updated_at: new Date() };
    const touchesParts = SYSTEM_CUSTOM_PARTS.some((p) => body[p] !== undefined);
    // a change of the name or description alone is no new version
    if (touchesParts && now.draftId != null) await tx.profiles.updateVersion(u.tenantId, now.draftId, values);
    else if (touchesParts) await tx.profiles.insertDraft(u.tenantId, body.id, values);
    const meta: { name?: string; description?: string } = {};
    if (body.name !== undefined) meta.name = body.name;
    if (body.description !== undefined) meta.description = body.description;
    await tx.profiles.touchProfile(u.tenantId, body.id, meta);
    await tx.profiles.audit({
      tenantId: u.tenantId,
      userId: u.id,
      ip: u.ip,
      action: 'systemCustom.update',
      resource: 'custom_profile',
      resourceId: body.id,
      result: 'ok',
      changes: {
        ...changedFields({ name: before.name, description: before.description }, meta),
        ...partChanges(now.settings, merged.settings, parts.passwordsChanged),
      },
    });
  }

  async publish(u: CustomCaller, id: number): Promise<ProfilePublishResult> {
    const { result, rows, deviceIds } = await this.repo.transaction(async (tx) => {
      await this.profileRow(tx, u.tenantId, id, true);
      const vs = await tx.profiles.versionsOf(u.tenantId, [id]);
      const draft = vs.find((v) => v.version == null);
      if (!draft) throw new AppError(409, 'systemCustom.nothingToPublish', undefined, { field: 'id' });
      const next = Math.max(0, ...vs.map((v) => v.version ?? 0)) + 1;
      await tx.profiles.publishDraft(u.tenantId, Number(draft.id), next, u.id);
      await tx.profiles.touchProfile(u.tenantId, id);
      await tx.profiles.audit({
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'systemCustom.publish',
        resource: 'custom_profile',
        resourceId: id,
        result: 'ok',
        changes: changedFields({ version: next - 1 || null }, { version: next }),
      });
      const r = await this.resolution.reconcile(tx, u.tenantId, u.id);
      return {
        result: { versionId: Number(draft.id), version: next, queued: r.rows.length },
        rows: r.rows,
        deviceIds: r.changed,
      };
    });
    await this.resolution.afterCommit(u.tenantId, id, rows, deviceIds);
    return result;
  }

  async remove(u: CustomCaller, id: number): Promise<void> {
    const { rows, deviceIds } = await this.repo.transaction(async (tx) => {
      const before = await this.profileRow(tx, u.tenantId, id, true);
      // before the delete takes its assignments' rows: an assignment holding the lock may be replacing one of them
      await tx.states.lockResolution(u.tenantId);
      const governed = await tx.states.governedDevices(u.tenantId, id);
      await tx.profiles.deleteProfile(u.tenantId, id);
      await tx.profiles.audit({
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'systemCustom.delete',
        resource: 'custom_profile',
        resourceId: id,
        result: 'ok',
        changes: changedFields({ name: before.name, description: before.description }, {}),
      });
      const r = await this.resolution.reconcile(tx, u.tenantId, u.id, new Set(governed));
      return { rows: r.rows, deviceIds: r.changed };
    });
    await this.resolution.afterCommit(u.tenantId, id, rows, deviceIds);
  }

  async assign(u: CustomCaller, body: z.output<typeof profileAssignBody>): Promise<ProfileAssignResult> {
    const deviceIds = [...new Set(body.deviceIds)];
    const groupIds = [...new Set(body.groupIds)];
    const { rows, changed, affected } = await this.repo.transaction(async (tx) => {
      await this.profileRow(tx, u.tenantId, body.id, true);
      // One assignment of the tenant at a time, under the lock its resolution takes below anyway (after the
      // profile's row, as publish and delete take them): the delete-then-insert that keeps one profile per device
      // and group would otherwise let two simultaneous assignments both insert, and the later one fail.
      await tx.states.lockResolution(u.tenantId);
      await this.assertTargets(tx, u, deviceIds, groupIds);
      if (body.unassign) await tx.profiles.deleteAssignments(u.tenantId, { profileId: body.id, deviceIds, groupIds });
      else {
        // a device or group has one profile of its own: the new one replaces it
        await tx.profiles.deleteAssignments(u.tenantId, { deviceIds, groupIds });
        await tx.profiles.insertAssignments(u.tenantId, [
          ...deviceIds.map((d) => ({ profile_id: body.id, device_id: d, created_by: u.id })),
          ...groupIds.map((g) => ({ profile_id: body.id, group_id: g, created_by: u.id })),
        ]);
      }
      await tx.profiles.audit({
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: body.unassign ? 'systemCustom.unassign' : 'systemCustom.assign',
        resource: 'custom_profile',
        resourceId: body.id,
        result: 'ok',
        changes: body.unassign
          ? changedFields({ deviceIds, groupIds }, { deviceIds: [], groupIds: [] })
          : changedFields({}, { deviceIds, groupIds }),
      });
      const r = await this.resolution.reconcile(tx, u.tenantId, u.id);
      const affected = await tx.states.countStatesOf(u.tenantId, body.id);
      return { rows: r.rows, changed: r.changed, affected };
    });
    await this.resolution.afterCommit(u.tenantId, body.id, rows, changed);
    return { queued: rows.length, affected };
  }

  /** Every device (within the caller's data scope) and group named exists, else 404. */
  private async assertTargets(tx: SystemCustomRepository, u: CustomCaller, deviceIds: number[], groupIds: number[]) {
    if (
      deviceIds.length &&
      (await tx.profiles.countDevicesInScope(u.tenantId, deviceIds, u.devices)) !== deviceIds.length
    )
      throw notFound('device');
    if (groupIds.length && (await tx.profiles.countGroups(u.tenantId, groupIds)) !== groupIds.length)
      throw notFound('group');
  }
}
