import type { ScopedCaller } from '../../lib/data-scope.ts';
import { createHash, randomBytes, scrypt } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import sharp from 'sharp';
import {
  OPEN_TASK_STATES,
  RESOLUTION_RULE,
  SYSTEM_CUSTOM_PARTS,
  WALLPAPER_MAX_BYTES,
  WALLPAPER_MAX_PIXELS,
  WALLPAPER_MIN_PIXELS,
  type BootAnimationFormat,
  type CustomAppItem,
  type DeviceProfile,
  type Paged,
  type ProfileApplyState,
  type ProfileAssignResult,
  type ProfileDetail,
  type ProfileDeviceItem,
  type ProfileItem,
  type ProfilePublishResult,
  type ProfileSettings,
  type ProfileVersion,
  type SystemCustomPart,
  type TaskState,
  customProfileCreateBody,
  customProfileUpdateBody,
  profileAssignBody,
  profileDevicesQuery,
  profileListQuery,
} from '@cpc/contracts';
import {
  profileDriftFields,
  profileHashes,
  type DeviceProfileSettings,
  type ProfileMsg,
  type ProfilePasswordHash,
} from '@cpc/contracts/device-protocol';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { enqueueTasks, type ChangedTask, type EventSink, type TaskService } from '../task/index.ts';
import { zipFrames } from './media.ts';

/** Who asks: the tenant's scope, the user, and the devices its data scope reaches (absent: all of the tenant's). */
/** The caller and its data scope (`scopedCaller`). */
export type CustomCaller = ScopedCaller;

interface StoredMedia {
  key: string;
  sha256: string;
  size: number;
  mime: string;
  originalName: string;
}
/** A version's parts as stored (no secrets: the passwords are columns of their own). */
interface StoredSettings {
  bootAnimation?: StoredMedia & { format: BootAnimationFormat; fps: number; loop: boolean; frames: number | null };
  desktop?: { columns: number; rows: number; iconSize: string; apps: string[]; hiddenSystemIcons: string[] };
  wallpaper?: StoredMedia & { fit: string; width: number; height: number };
  defaultStartApp?: { pkg: string; delaySec: number };
  topScreen?: { enabled: boolean; pkg: string };
  appLock?: { mode: 'allow' | 'block'; packages: string[] };
}
interface VersionRow {
  id: number | string;
  profile_id: number | string;
  version: number | null;
  settings: unknown;
  kiosk_password: unknown;
  applock_password: unknown;
  hash: string;
  part_hashes: unknown;
  created_at: Date | string;
  published_at: Date | string | null;
  published_by: number | string | null;
}

/** An apply task stays open this long for a device that is offline (delivered on its reconnect until then). */
export const APPLY_EXPIRE_S = 7 * 24 * 3600;
/** The advisory-lock namespace of a tenant's resolution (one resolution per tenant at a time, on any node). */
const LOCK_NS = 0x5c0516;
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;
type MediaPart = 'bootAnimation' | 'wallpaper';

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null | undefined) => (d == null ? null : iso(d));
const num = (v: number | string | bigint | null | undefined) => (v == null ? null : Number(v));
const EMPTY = profileHashes({});

/** A write-only password as stored and sent to devices: scrypt with a fresh salt (never the password itself). */
export async function hashProfilePassword(password: string): Promise<ProfilePasswordHash> {
  const salt = randomBytes(16);
  const hash = await new Promise<Buffer>((resolve, reject) =>
    scrypt(
      password.normalize('NFC'),
      salt,
      SCRYPT.keylen,
      { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p, maxmem: 256 * SCRYPT.N * SCRYPT.r },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
  return { alg: 'scrypt', salt: salt.toString('hex'), hash: hash.toString('hex'), ...SCRYPT };
}

/** The configuration a device gets for a version (no links: they are added at each delivery). */
export function deviceSettingsOf(
  s: StoredSettings,
  kiosk: ProfilePasswordHash | null,
  applock: ProfilePasswordHash | null,
): DeviceProfileSettings {
  const out: DeviceProfileSettings = {};
  if (s.bootAnimation) {
    const b = s.bootAnimation;
    out.bootAnimation = {
      key: b.key,
      sha256: b.sha256,
      size: b.size,
      mime: b.mime,
      format: b.format,
      fps: b.fps,
      loop: b.loop,
    };
  }
  if (s.desktop) out.desktop = { ...s.desktop };
  if (s.wallpaper) {
    const w = s.wallpaper;
    out.wallpaper = { key: w.key, sha256: w.sha256, size: w.size, mime: w.mime, fit: w.fit };
  }
  if (s.defaultStartApp) out.defaultStartApp = { ...s.defaultStartApp };
  if (s.topScreen) out.topScreen = { ...s.topScreen, exitPassword: kiosk };
  if (s.appLock) out.appLock = { ...s.appLock, unlockPassword: applock };
  return out;
}

/** The apply state the console shows, from the device's last apply task. */
function applyState(task: { state: TaskState; error: string } | null): ProfileApplyState {
  if (!task) return 'none';
  switch (task.state) {
    case 'queued':
    case 'sent':
    case 'timeout':
      return 'queued';
    case 'delivered':
    case 'running':
      return 'delivered';
    case 'succeeded':
      return 'applied';
    default:
      return 'failed';
  }
}

/**
 * System customization profiles (issue 16): versions (one draft, published ones frozen), assignments to devices and
 * groups, resolution (device beats group, nearest group beats farther), an apply_profile task per device whose
 * desired version changed, and each device's report of its effective configuration (drift). What a device should
 * run is re-derived from the assignments by `reconcile` (after every change, and periodically: a device moved
 * between groups, or a new device in an assigned group, is picked up by the next run); the apply state is read from
 * `device_tasks`, so nothing here is only in memory.
 */
export class SystemCustomService {
  constructor(
    private db: Db,
    private storage: ObjectStorage,
    private tasks: TaskService,
    private events: EventSink,
  ) {}

  // ----------------------------------------------------------------------------------------------------------
  // Profiles and versions

  private async profileRow(scope: TenantScope, id: number, lock = false) {
    let q = scope.selectFrom('custom_profiles').selectAll().where('custom_profiles.id', '=', id);
    if (lock) q = q.forUpdate();
    const row = await q.executeTakeFirst();
    if (!row) throw notFound('profile');
    return row;
  }

  private async versions(scope: TenantScope, profileIds: number[]): Promise<VersionRow[]> {
    if (!profileIds.length) return [];
    return (await scope
      .selectFrom('custom_profile_versions')
      .selectAll()
      .where('custom_profile_versions.profile_id', 'in', profileIds)
      .orderBy('custom_profile_versions.version', 'desc')
      .execute()) as VersionRow[];
  }

  /** Is each named app one of the customer's applications (a `packages` row of kind app)? Else 400 naming it. */
  private async assertOwnApps(scope: TenantScope, named: Array<{ field: string; pkg: string }>): Promise<void> {
    if (!named.length) return;
    const rows = await scope
      .selectFrom('packages')
      .select('packages.identifier')
      .where('packages.kind', '=', 'app')
      .where('packages.deleted_at', 'is', null)
      .where(
        'packages.identifier',
        'in',
        named.map((n) => n.pkg),
      )
      .execute();
    const own = new Set(rows.map((r) => r.identifier));
    const missing = named.find((n) => !own.has(n.pkg));
    if (missing) throw badRequest(missing.field, 'systemCustom.unknownApp', { pkg: missing.pkg });
  }

  /** An uploaded object of the tenant's `custom` bucket, its bytes and their SHA-256 (else 404 / 400). */
  private async media(scope: TenantScope, key: string, field: string, part: MediaPart) {
    const row = await scope
      .selectFrom('objects')
      .select(['objects.key', 'objects.mime', 'objects.size', 'objects.bucket', 'objects.original_name'])
      .where('objects.key', '=', key)
      .executeTakeFirst();
    if (!row) throw notFound('upload');
    const wrong = () =>
      badRequest(field, part === 'wallpaper' ? 'systemCustom.notWallpaper' : 'systemCustom.notAnimation');
    if (row.bucket !== 'custom') throw wrong();
    const bytes = await this.storage.read(key);
    if (!bytes) throw notFound('upload');
    return {
      row,
      bytes,
      wrong,
      stored: {
        key,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        size: Number(row.size),
        mime: row.mime,
        originalName: row.original_name,
      } satisfies StoredMedia,
    };
  }

  private async wallpaperOf(
    scope: TenantScope,
    input: { key: string; fit: string },
    before: StoredSettings['wallpaper'],
  ): Promise<NonNullable<StoredSettings['wallpaper']>> {
    if (before && before.key === input.key) return { ...before, fit: input.fit };
    const m = await this.media(scope, input.key, 'wallpaper.key', 'wallpaper');
    if (!['image/jpeg', 'image/png', 'image/webp'].includes(m.row.mime)) throw m.wrong();
    if (m.bytes.length > WALLPAPER_MAX_BYTES)
      throw badRequest('wallpaper.key', 'systemCustom.wallpaperTooLarge', { n: WALLPAPER_MAX_BYTES / 1024 / 1024 });
    let meta: { width?: number; height?: number; format?: string };
    try {
      meta = await sharp(m.bytes, { failOn: 'error', limitInputPixels: WALLPAPER_MAX_PIXELS ** 2 }).metadata();
    } catch {
      throw badRequest('wallpaper.key', 'systemCustom.imageBroken');
    }
    const width = meta.width ?? 0;
    const height = meta.height ?? 0;
    const fits = (n: number) => n >= WALLPAPER_MIN_PIXELS && n <= WALLPAPER_MAX_PIXELS;
    if (!fits(width) || !fits(height))
      throw badRequest('wallpaper.key', 'systemCustom.wallpaperPixels', {
        min: WALLPAPER_MIN_PIXELS,
        max: WALLPAPER_MAX_PIXELS,
        width,
        height,
      });
    return { ...m.stored, fit: input.fit, width, height };
  }

  private async bootAnimationOf(
    scope: TenantScope,
    input: { key: string; fps: number; loop: boolean },
    before: StoredSettings['bootAnimation'],
  ): Promise<NonNullable<StoredSettings['bootAnimation']>> {
    if (before && before.key === input.key) return { ...before, fps: input.fps, loop: input.loop };
    const m = await this.media(scope, input.key, 'bootAnimation.key', 'bootAnimation');
    const format: BootAnimationFormat | null =
      m.row.mime === 'video/mp4' || m.row.mime === 'video/webm'
        ? 'video'
        : m.row.mime === 'image/gif'
          ? 'gif'
          : m.row.mime === 'application/zip'
            ? 'frames'
            : null;
    if (!format) throw m.wrong();
    let frames: number | null = null;
    if (format === 'frames') {
      try {
        frames = zipFrames(m.bytes);
      } catch (e) {
        // the upload checked it; a refusal now names the part's field
        if (e instanceof AppError) throw new AppError(400, e.key, e.params as never, { field: 'bootAnimation.key' });
        throw e;
      }
    }
    return { ...m.stored, format, fps: input.fps, loop: input.loop, frames };
  }

  /**
   * Applies the parts of a create/update body to a version's settings and passwords (an object sets a part, null
   * removes it, absent keeps it); checks media and apps. Answers the new settings, passwords and what changed
   * (for the system log: never a password, only that it was changed).
   */
  private async applyParts(
    scope: TenantScope,
    body: z.output<typeof customProfileUpdateBody> | z.output<typeof customProfileCreateBody>,
    before: { settings: StoredSettings; kiosk: ProfilePasswordHash | null; applock: ProfilePasswordHash | null },
  ) {
    const settings: StoredSettings = { ...before.settings };
    let { kiosk, applock } = before;
    const passwordsChanged: string[] = [];
    const apps: Array<{ field: string; pkg: string }> = [];

    if (body.bootAnimation === null) delete settings.bootAnimation;
    else if (body.bootAnimation)
      settings.bootAnimation = await this.bootAnimationOf(scope, body.bootAnimation, before.settings.bootAnimation);
    if (body.wallpaper === null) delete settings.wallpaper;
    else if (body.wallpaper)
      settings.wallpaper = await this.wallpaperOf(scope, body.wallpaper, before.settings.wallpaper);
    if (body.desktop === null) delete settings.desktop;
    else if (body.desktop) {
      const seen = new Set<string>();
      body.desktop.apps.forEach((pkg, i) => {
        if (seen.has(pkg)) throw badRequest(`desktop.apps.${i}`, 'systemCustom.duplicateApp', { pkg });
        seen.add(pkg);
        apps.push({ field: `desktop.apps.${i}`, pkg });
      });
      settings.desktop = {
        columns: body.desktop.columns,
        rows: body.desktop.rows,
        iconSize: body.desktop.iconSize,
        apps: body.desktop.apps,
        hiddenSystemIcons: [...new Set(body.desktop.hiddenSystemIcons)],
      };
    }
    if (body.defaultStartApp === null) delete settings.defaultStartApp;
    else if (body.defaultStartApp) {
      apps.push({ field: 'defaultStartApp.pkg', pkg: body.defaultStartApp.pkg });
      settings.defaultStartApp = { pkg: body.defaultStartApp.pkg, delaySec: body.defaultStartApp.delaySec };
    }
    if (body.topScreen === null) {
      delete settings.topScreen;
      kiosk = null;
    } else if (body.topScreen) {
      apps.push({ field: 'topScreen.pkg', pkg: body.topScreen.pkg });
      if (body.topScreen.exitPassword !== undefined) {
        kiosk = await hashProfilePassword(body.topScreen.exitPassword);
        passwordsChanged.push('topScreen.exitPassword');
      } else if (!kiosk) throw badRequest('topScreen.exitPassword', 'systemCustom.passwordRequired');
      settings.topScreen = { enabled: body.topScreen.enabled, pkg: body.topScreen.pkg };
    }
    if (body.appLock === null) {
      delete settings.appLock;
      applock = null;
    } else if (body.appLock) {
      const seen = new Set<string>();
      body.appLock.packages.forEach((pkg, i) => {
        if (seen.has(pkg)) throw badRequest(`appLock.packages.${i}`, 'systemCustom.duplicateApp', { pkg });
        seen.add(pkg);
      });
      if (body.appLock.unlockPassword !== undefined) {
        applock = await hashProfilePassword(body.appLock.unlockPassword);
        passwordsChanged.push('appLock.unlockPassword');
      } else if (!applock) throw badRequest('appLock.unlockPassword', 'systemCustom.passwordRequired');
      settings.appLock = { mode: body.appLock.mode, packages: body.appLock.packages };
    }
    await this.assertOwnApps(scope, apps);
    const device = deviceSettingsOf(settings, kiosk, applock);
    const hashes = profileHashes(device);
    return { settings, kiosk, applock, passwordsChanged, hashes };
  }

  /** The parts a change touched, before → after, for the system log (passwords only as "changed"). */
  private partChanges(before: StoredSettings, after: StoredSettings, passwordsChanged: string[]) {
    const pick = (s: StoredSettings) =>
      Object.fromEntries(SYSTEM_CUSTOM_PARTS.map((p) => [p, (s as Record<string, unknown>)[p] ?? null]));
    const changes = changedFields(pick(before), pick(after));
    for (const p of passwordsChanged) changes[p] = { before: '***', after: '***' };
    return changes;
  }

  async create(u: CustomCaller, body: z.output<typeof customProfileCreateBody>): Promise<{ id: number }> {
    const parts = await this.applyParts(u.scope, body, { settings: {}, kiosk: null, applock: null });
    const id = await u.scope.transaction(async (tx) => {
      const p = await tx
        .insertInto('custom_profiles', { name: body.name, description: body.description, created_by: u.id })
        .returning('id')
        .executeTakeFirstOrThrow();
      await tx
        .insertInto('custom_profile_versions', {
          profile_id: p.id,
          version: null,
          settings: JSON.stringify(parts.settings),
          kiosk_password: parts.kiosk ? JSON.stringify(parts.kiosk) : null,
          applock_password: parts.applock ? JSON.stringify(parts.applock) : null,
          hash: parts.hashes.hash,
          part_hashes: JSON.stringify(parts.hashes.parts),
        })
        .execute();
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'systemCustom.create',
        resource: 'custom_profile',
        resourceId: Number(p.id),
        result: 'ok',
        changes: {
          ...changedFields({}, { name: body.name, description: body.description }),
          ...this.partChanges({}, parts.settings, parts.passwordsChanged),
        },
      });
      return Number(p.id);
    });
    this.events.publish(u.tenantId, { type: 'systemCustom', data: { profileId: id, deviceIds: [] } });
    if (body.publish) await this.publish(u, id);
    return { id };
  }

  async update(u: CustomCaller, body: z.output<typeof customProfileUpdateBody>): Promise<{ id: number }> {
    // media and apps are checked (and passwords hashed) before the transaction; the draft is then written under the
    // profile's row lock, from the draft as it is then (a concurrent edit of other parts is kept)
    const profile = await this.profileRow(u.scope, body.id);
    const base = await this.draftBase(u.scope, Number(profile.id));
    // "publish" with nothing to publish is refused before anything changes
    if (body.publish && base.draftId == null && !SYSTEM_CUSTOM_PARTS.some((p) => body[p] !== undefined))
      throw new AppError(409, 'systemCustom.nothingToPublish', undefined, { field: 'id' });
    const parts = await this.applyParts(u.scope, body, base);
    await u.scope.transaction(async (tx) => {
      const before = await this.profileRow(tx, body.id, true);
      const now = await this.draftBase(tx, body.id);
      // parts this body did not name are taken from the draft as it is now
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
      const hashes = profileHashes(deviceSettingsOf(settings, kiosk, applock));
      const values = {
        settings: JSON.stringify(settings),
        kiosk_password: kiosk ? JSON.stringify(kiosk) : null,
        applock_password: applock ? JSON.stringify(applock) : null,
        hash: hashes.hash,
        part_hashes: JSON.stringify(hashes.parts),
        updated_at: new Date(),
      };
      const touchesParts = SYSTEM_CUSTOM_PARTS.some((p) => body[p] !== undefined);
      // a change of the name or description alone is no new version
      if (touchesParts && now.draftId != null)
        await tx
          .updateTable('custom_profile_versions')
          .set(values)
          .where('custom_profile_versions.id', '=', now.draftId)
          .execute();
      else if (touchesParts)
        await tx.insertInto('custom_profile_versions', { profile_id: body.id, version: null, ...values }).execute();
      const meta: Record<string, unknown> = {};
      if (body.name !== undefined) meta.name = body.name;
      if (body.description !== undefined) meta.description = body.description;
      await tx
        .updateTable('custom_profiles')
        .set({ ...meta, updated_at: new Date() })
        .where('custom_profiles.id', '=', body.id)
        .execute();
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'systemCustom.update',
        resource: 'custom_profile',
        resourceId: body.id,
        result: 'ok',
        changes: {
          ...changedFields({ name: before.name, description: before.description }, meta),
          ...this.partChanges(now.settings, settings, parts.passwordsChanged),
        },
      });
    });
    this.events.publish(u.tenantId, { type: 'systemCustom', data: { profileId: body.id, deviceIds: [] } });
    if (body.publish) await this.publish(u, body.id);
    return { id: body.id };
  }

  /** What an edit starts from: the draft, else the latest published version (copied into a new draft). */
  private async draftBase(scope: TenantScope, profileId: number) {
    const vs = await this.versions(scope, [profileId]);
    const draft = vs.find((v) => v.version == null);
    const from = draft ?? vs.find((v) => v.version != null);
    return {
      draftId: draft ? Number(draft.id) : null,
      settings: (from?.settings ?? {}) as StoredSettings,
      kiosk: (from?.kiosk_password ?? null) as ProfilePasswordHash | null,
      applock: (from?.applock_password ?? null) as ProfilePasswordHash | null,
    };
  }

  async publish(u: CustomCaller, id: number): Promise<ProfilePublishResult> {
    const { result, rows, deviceIds } = await u.scope.transaction(async (tx) => {
      await this.profileRow(tx, id, true);
      const vs = await this.versions(tx, [id]);
      const draft = vs.find((v) => v.version == null);
      if (!draft) throw new AppError(409, 'systemCustom.nothingToPublish', undefined, { field: 'id' });
      const next = Math.max(0, ...vs.map((v) => v.version ?? 0)) + 1;
      await tx
        .updateTable('custom_profile_versions')
        .set({ version: next, published_at: new Date(), published_by: u.id, updated_at: new Date() })
        .where('custom_profile_versions.id', '=', Number(draft.id))
        .execute();
      await tx
        .updateTable('custom_profiles')
        .set({ updated_at: new Date() })
        .where('custom_profiles.id', '=', id)
        .execute();
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'systemCustom.publish',
        resource: 'custom_profile',
        resourceId: id,
        result: 'ok',
        changes: changedFields({ version: next - 1 || null }, { version: next }),
      });
      const r = await this.reconcile(tx, u.id);
      return {
        result: { versionId: Number(draft.id), version: next, queued: r.rows.length },
        rows: r.rows,
        deviceIds: r.changed,
      };
    });
    await this.afterCommit(u.tenantId, id, rows, deviceIds);
    return result;
  }

  async remove(u: CustomCaller, id: number): Promise<void> {
    const { rows, deviceIds } = await u.scope.transaction(async (tx) => {
      const before = await this.profileRow(tx, id, true);
      // before the delete takes its assignments' rows: an assignment holding the lock may be replacing one of them
      await this.lockResolution(tx);
      const governed = await tx
        .selectFrom('device_profile_state')
        .select('device_profile_state.device_id')
        .where('device_profile_state.profile_id', '=', id)
        .where('device_profile_state.desired_version_id', 'is not', null)
        .execute();
      await tx.deleteFrom('custom_profiles').where('custom_profiles.id', '=', id).execute();
      await audit(tx.db, {
        tenantId: u.tenantId,
        userId: u.id,
        ip: u.ip,
        action: 'systemCustom.delete',
        resource: 'custom_profile',
        resourceId: id,
        result: 'ok',
        changes: changedFields({ name: before.name, description: before.description }, {}),
      });
      const r = await this.reconcile(tx, u.id, new Set(governed.map((g) => Number(g.device_id))));
      return { rows: r.rows, deviceIds: r.changed };
    });
    await this.afterCommit(u.tenantId, id, rows, deviceIds);
  }

  async assign(u: CustomCaller, body: z.output<typeof profileAssignBody>): Promise<ProfileAssignResult> {
    const deviceIds = [...new Set(body.deviceIds)];
    const groupIds = [...new Set(body.groupIds)];
    const { rows, changed, affected } = await u.scope.transaction(async (tx) => {
      await this.profileRow(tx, body.id, true);
      // One assignment of the tenant at a time, under the lock its resolution takes below anyway (after the
      // profile's row, as publish and delete take them): the delete-then-insert that keeps one profile per device
      // and group would otherwise let two simultaneous assignments both insert, and the later one fail.
      await this.lockResolution(tx);
      if (deviceIds.length) {
        const found = await tx
          .selectFrom('devices')
          .select('devices.id')
          .where('devices.id', 'in', deviceIds)
          .where(u.devices ?? sql<boolean>`true`)
          .execute();
        if (found.length !== deviceIds.length) throw notFound('device');
      }
      if (groupIds.length) {
        const found = await tx
          .selectFrom('device_groups')
          .select('device_groups.id')
          .where('device_groups.id', 'in', groupIds)
          .execute();
        if (found.length !== groupIds.length) throw notFound('group');
      }
      const targets = (q: any) => {
        const ors = [];
        if (deviceIds.length) ors.push(sql<boolean>`device_id = ANY(${deviceIds}::bigint[])`);
        if (groupIds.length) ors.push(sql<boolean>`group_id = ANY(${groupIds}::bigint[])`);
        return q.where(sql<boolean>`(${sql.join(ors, sql` OR `)})`);
      };
      if (body.unassign) {
        await targets(
          tx.deleteFrom('custom_profile_assignments').where('custom_profile_assignments.profile_id', '=', body.id),
        ).execute();
      } else {
        // a device or group has one profile of its own: the new one replaces it
        await targets(tx.deleteFrom('custom_profile_assignments')).execute();
        await tx
          .insertInto('custom_profile_assignments', [
            ...deviceIds.map((d) => ({ profile_id: body.id, device_id: d, created_by: u.id })),
            ...groupIds.map((g) => ({ profile_id: body.id, group_id: g, created_by: u.id })),
          ])
          .execute();
      }
      await audit(tx.db, {
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
      const r = await this.reconcile(tx, u.id);
      const n = await tx
        .selectFrom('device_profile_state')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('device_profile_state.profile_id', '=', body.id)
        .executeTakeFirstOrThrow();
      return { rows: r.rows, changed: r.changed, affected: Number(n.n) };
    });
    await this.afterCommit(u.tenantId, body.id, rows, changed);
    return { queued: rows.length, affected };
  }

  private async afterCommit(tenantId: number, profileId: number | null, rows: ChangedTask[], deviceIds: number[]) {
    this.events.publish(tenantId, { type: 'systemCustom', data: { profileId, deviceIds } });
    if (!rows.length) return;
    this.tasks.announce(rows);
    await this.tasks.dispatch(rows.filter((r) => r.state === 'queued').map((r) => r.id));
  }

  // ----------------------------------------------------------------------------------------------------------
  // Resolution

  /** The tenant's resolution lock, held to the end of `tx` (taken again in the same transaction it just stacks). */
  private async lockResolution(tx: TenantScope): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_NS}::int, ${tx.tenantId}::int)`.execute(tx.db);
  }

  /**
   * Resolves every device of the tenant (inside the caller's transaction, one resolution per tenant at a time):
   * its own assignment, else its group's, else its parent group's, …; the profile's latest published version is
   * what it should run. A device whose desired version changed gets an apply_profile task (its open one, now
   * stale, is canceled); one left with no profile is sent an empty configuration (the system's defaults).
   * Answers the tasks made or canceled, and the devices whose state changed.
   */
  async reconcile(
    tx: TenantScope,
    createdBy: number | null,
    /** Devices whose configuration is gone (their profile was deleted): sent the defaults if nothing else applies. */
    stale: Set<number> = new Set(),
  ): Promise<{ rows: ChangedTask[]; changed: number[] }> {
    const t = tx.tenantId;
    await this.lockResolution(tx);
    const { rows: resolved } = await sql<{
      device_id: string;
      profile_id: string;
      group_id: string | null;
      depth: number;
    }>`
      WITH RECURSIVE chain AS (
        SELECT d.id AS device_id, d.group_id AS gid, 1 AS depth FROM devices d
        WHERE d.tenant_id = ${t} AND d.group_id IS NOT NULL
        UNION ALL
        SELECT c.device_id, g.parent_id, c.depth + 1 FROM chain c
        JOIN device_groups g ON g.id = c.gid AND g.tenant_id = ${t}
        WHERE g.parent_id IS NOT NULL AND c.depth < 64
      ), candidates AS (
        SELECT a.device_id, 0 AS depth, a.profile_id, NULL::bigint AS group_id
        FROM custom_profile_assignments a JOIN devices d ON d.id = a.device_id AND d.tenant_id = ${t}
        WHERE a.tenant_id = ${t} AND a.device_id IS NOT NULL
        UNION ALL
        SELECT c.device_id, c.depth, a.profile_id, c.gid FROM chain c
        JOIN custom_profile_assignments a ON a.group_id = c.gid AND a.tenant_id = ${t}
      )
      SELECT DISTINCT ON (device_id) device_id, profile_id, group_id, depth FROM candidates
      ORDER BY device_id, depth`.execute(tx.db);
    const latest = new Map<number, VersionRow>();
    const { rows: published } = await sql<VersionRow>`
      SELECT DISTINCT ON (profile_id) * FROM custom_profile_versions
      WHERE tenant_id = ${t} AND version IS NOT NULL ORDER BY profile_id, version DESC`.execute(tx.db);
    published.forEach((v) => latest.set(Number(v.profile_id), v));
    const { rows: states } = await sql<{
      device_id: string;
      profile_id: string | null;
      source: string | null;
      source_group_id: string | null;
      desired_version_id: string | null;
      mine: boolean;
    }>`
      SELECT s.device_id, s.profile_id, s.source, s.source_group_id, s.desired_version_id,
        coalesce(d.tenant_id = s.tenant_id, false) AS mine
      FROM device_profile_state s LEFT JOIN devices d ON d.id = s.device_id
      WHERE s.tenant_id = ${t}`.execute(tx.db);

    const want = new Map(resolved.map((r) => [Number(r.device_id), r]));
    const have = new Map(states.map((s) => [Number(s.device_id), s]));
    const gone = states.filter((s) => !s.mine).map((s) => Number(s.device_id));
    if (gone.length) await tx.deleteFrom('device_profile_state').where('device_id', 'in', gone).execute();

    const upserts: Array<{
      device_id: number;
      profile_id: number | null;
      source: 'device' | 'group' | null;
      source_group_id: number | null;
      desired_version_id: number | null;
    }> = [];
    const toSend: Array<{ deviceId: number; version: VersionRow | null; profileId: number | null }> = [];
    for (const deviceId of new Set([...want.keys(), ...have.keys()])) {
      const s = have.get(deviceId);
      if (s && !s.mine) continue;
      const r = want.get(deviceId);
      const profileId = r ? Number(r.profile_id) : null;
      const version = profileId != null ? (latest.get(profileId) ?? null) : null;
      const desired = version ? Number(version.id) : null;
      const source = r ? (r.depth === 0 ? 'device' : 'group') : null;
      const groupId = r?.group_id != null ? Number(r.group_id) : null;
      const before = stale.has(deviceId) ? -1 : s ? num(s.desired_version_id) : null;
      const same =
        s &&
        num(s.profile_id) === profileId &&
        s.source === source &&
        num(s.source_group_id) === groupId &&
        before === desired;
      if (same || (!s && !r)) continue;
      upserts.push({
        device_id: deviceId,
        profile_id: profileId,
        source,
        source_group_id: groupId,
        desired_version_id: desired,
      });
      // a device that was never sent anything and has nothing to run yet needs no task
      if (before !== desired && (desired != null || s)) toSend.push({ deviceId, version, profileId });
    }
    // devices with nothing sent before and nothing to send (an unpublished profile) keep a state row without a task
    const rows: ChangedTask[] = [];
    const sendIds = toSend.map((x) => x.deviceId);
    if (sendIds.length) {
      const canceled = await tx
        .updateTable('device_tasks')
        .set({
          state: 'canceled',
          error: 'superseded by a newer configuration',
          finished_at: new Date(),
          updated_at: new Date(),
        })
        .where('device_tasks.device_id', 'in', sendIds)
        .where('device_tasks.type', '=', 'apply_profile')
        .where('device_tasks.state', 'in', OPEN_TASK_STATES)
        .returningAll()
        .execute();
      rows.push(...canceled);
    }
    const expireAt = new Date(Date.now() + APPLY_EXPIRE_S * 1000);
    const made = await enqueueTasks(
      tx,
      toSend.map(({ deviceId, version, profileId }) => {
        const settings = version
          ? deviceSettingsOf(
              version.settings as StoredSettings,
              version.kiosk_password as ProfilePasswordHash | null,
              version.applock_password as ProfilePasswordHash | null,
            )
          : {};
        return {
          deviceId,
          type: 'apply_profile' as const,
          params: {
            profileId: version ? profileId : null,
            versionId: version ? Number(version.id) : null,
            version: version?.version ?? null,
            hash: version ? version.hash : EMPTY.hash,
            settings,
          },
          expireAt,
          createdBy,
        };
      }),
    );
    rows.push(...made);
    const taskOf = new Map(made.map((m) => [Number(m.device_id), m.id]));
    if (upserts.length) {
      await tx
        .insertInto(
          'device_profile_state',
          upserts.map((x) => ({
            ...x,
            task_id: taskOf.get(x.device_id) ?? null,
            drift: false,
            drift_fields: [] as string[],
            updated_at: new Date(),
          })),
        )
        .onConflict((oc) =>
          oc.column('device_id').doUpdateSet((eb) => ({
            profile_id: eb.ref('excluded.profile_id'),
            source: eb.ref('excluded.source'),
            source_group_id: eb.ref('excluded.source_group_id'),
            desired_version_id: eb.ref('excluded.desired_version_id'),
            // a device that got no new task keeps its task and drift (only where its profile comes from changed)
            task_id: sql`CASE WHEN excluded.task_id IS NULL THEN device_profile_state.task_id ELSE excluded.task_id END`,
            drift: sql`CASE WHEN excluded.task_id IS NULL THEN device_profile_state.drift ELSE false END`,
            drift_fields: sql`CASE WHEN excluded.task_id IS NULL THEN device_profile_state.drift_fields ELSE '{}'::text[] END`,
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    }
    return { rows, changed: upserts.map((x) => x.device_id) };
  }

  /** Resolves again every tenant that has assignments or device states (the periodic reconcile, one node at a time). */
  async reconcileAll(): Promise<number> {
    const { rows: tenants } = await sql<{ tenant_id: string }>`
      SELECT tenant_id FROM custom_profile_assignments
      UNION SELECT tenant_id FROM device_profile_state WHERE profile_id IS NOT NULL OR desired_version_id IS NOT NULL`.execute(
      this.db,
    );
    let sent = 0;
    for (const { tenant_id } of tenants) {
      const tenantId = Number(tenant_id);
      const { rows, changed } = await new TenantScope(this.db, tenantId).transaction((tx) => this.reconcile(tx, null));
      if (changed.length) await this.afterCommit(tenantId, null, rows, changed);
      sent += rows.filter((r) => r.state === 'queued').length;
    }
    return sent;
  }

  // ----------------------------------------------------------------------------------------------------------
  // The device's side

  /** A task of this node changed: a succeeded apply makes its version the applied one; the consoles hear of it. */
  async onTaskChange(row: ChangedTask): Promise<void> {
    if (row.type !== 'apply_profile') return;
    const params = (row.params ?? {}) as { versionId?: number | null; profileId?: number | null };
    if (row.state === 'succeeded')
      await this.db
        .updateTable('device_profile_state')
        .set({ applied_version_id: params.versionId ?? null, updated_at: new Date() })
        .where('device_id', '=', row.device_id)
        .where('task_id', '=', row.id)
        .execute();
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
    const { rows } = await sql<{
      tenant_id: string;
      profile_id: string | null;
      desired_version_id: string | null;
      has_state: boolean;
      hash: string | null;
      part_hashes: unknown;
      open: boolean;
      reported_version_ok: boolean;
      drift: boolean | null;
      task_state: string | null;
    }>`
      SELECT d.tenant_id, s.profile_id, s.desired_version_id, s.device_id IS NOT NULL AS has_state, v.hash, v.part_hashes,
        s.drift, t.state AS task_state,
        EXISTS (SELECT 1 FROM device_tasks t WHERE t.device_id = d.id AND t.type = 'apply_profile'
          AND t.state IN ('queued', 'sent', 'delivered', 'running', 'timeout')) AS open,
        EXISTS (SELECT 1 FROM custom_profile_versions rv WHERE rv.id = ${msg.versionId} AND rv.tenant_id = d.tenant_id
          AND rv.version IS NOT NULL) AS reported_version_ok
      FROM devices d
      LEFT JOIN device_profile_state s ON s.device_id = d.id AND s.tenant_id = d.tenant_id
      LEFT JOIN custom_profile_versions v ON v.id = s.desired_version_id
      LEFT JOIN device_tasks t ON t.id = s.task_id
      WHERE d.id = ${deviceId} AND d.tenant_id IS NOT NULL`.execute(this.db);
    const r = rows[0];
    if (!r) return;
    const desired = r.hash ?? EMPTY.hash;
    const desiredParts = (r.part_hashes ?? EMPTY.parts) as Record<SystemCustomPart, string | null>;
    // drift is a change away from what the device applied: a failed apply is a failure, not drift
    const judged = !r.open && (r.task_state == null || r.task_state === 'succeeded');
    const drifted = judged && msg.hash !== desired;
    const fields = drifted ? profileDriftFields(desiredParts, msg.parts) : [];
    const tenantId = Number(r.tenant_id);
    const values = {
      reported_hash: msg.hash,
      reported_parts: JSON.stringify(msg.parts),
      reported_version_id: msg.versionId,
      applied_version_id: r.reported_version_ok ? msg.versionId : null,
      drift: drifted,
      drift_fields: fields,
      reported_at: new Date(),
      updated_at: new Date(),
    };
    await this.db
      .insertInto('device_profile_state')
      .values({ device_id: deviceId, tenant_id: tenantId, ...values })
      .onConflict((oc) => oc.column('device_id').doUpdateSet(values))
      .execute();
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
    const { rows } = await sql<{ m: { key?: string; sha256?: string; mime?: string } | null }>`
      SELECT t.params->'settings'->${part} AS m FROM device_tasks t
      WHERE t.id = ${taskId} AND t.type = 'apply_profile'
        AND t.state IN ('sent', 'delivered', 'running', 'timeout')`.execute(this.db);
    const m = rows[0]?.m;
    return m?.key && m.sha256 ? { key: m.key, sha256: m.sha256, mime: m.mime ?? 'application/octet-stream' } : null;
  }

  // ----------------------------------------------------------------------------------------------------------
  // Reading

  private settingsView(s: StoredSettings, kiosk: unknown, applock: unknown): ProfileSettings {
    const media = (m: StoredMedia) => ({
      key: m.key,
      url: this.storage.signedUrl(m.key),
      mime: m.mime,
      size: m.size,
      sha256: m.sha256,
      originalName: m.originalName,
    });
    return {
      bootAnimation: s.bootAnimation
        ? {
            ...media(s.bootAnimation),
            format: s.bootAnimation.format,
            fps: s.bootAnimation.fps,
            loop: s.bootAnimation.loop,
            frames: s.bootAnimation.frames,
          }
        : null,
      desktop: s.desktop
        ? {
            columns: s.desktop.columns,
            rows: s.desktop.rows,
            iconSize: s.desktop.iconSize as 'small' | 'medium' | 'large',
            apps: s.desktop.apps,
            hiddenSystemIcons: s.desktop.hiddenSystemIcons as NonNullable<
              ProfileSettings['desktop']
            >['hiddenSystemIcons'],
          }
        : null,
      wallpaper: s.wallpaper
        ? {
            ...media(s.wallpaper),
            fit: s.wallpaper.fit as NonNullable<ProfileSettings['wallpaper']>['fit'],
            width: s.wallpaper.width,
            height: s.wallpaper.height,
          }
        : null,
      defaultStartApp: s.defaultStartApp ? { ...s.defaultStartApp } : null,
      topScreen: s.topScreen
        ? { enabled: s.topScreen.enabled, pkg: s.topScreen.pkg, passwordSet: kiosk != null }
        : null,
      appLock: s.appLock ? { mode: s.appLock.mode, packages: s.appLock.packages, passwordSet: applock != null } : null,
    };
  }

  private versionView(v: VersionRow, users: Map<number, string>): ProfileVersion {
    return {
      id: Number(v.id),
      version: v.version,
      state: v.version == null ? 'draft' : 'published',
      settings: this.settingsView(v.settings as StoredSettings, v.kiosk_password, v.applock_password),
      hash: v.hash,
      createdAt: iso(v.created_at),
      publishedAt: isoOrNull(v.published_at),
      publishedBy: v.published_by == null ? null : (users.get(Number(v.published_by)) ?? null),
    };
  }

  private partsOf(v: VersionRow | undefined): SystemCustomPart[] {
    const s = (v?.settings ?? {}) as Record<string, unknown>;
    return SYSTEM_CUSTOM_PARTS.filter((p) => s[p] != null);
  }

  async list(u: CustomCaller, q: z.output<typeof profileListQuery>): Promise<Paged<ProfileItem>> {
    let base = u.scope.selectFrom('custom_profiles');
    if (q.keyword) base = base.where('custom_profiles.name', 'ilike', `%${q.keyword.replace(/[\\%_]/g, '\\$&')}%`);
    if (q.part)
      base = base.where(
        sql<boolean>`exists (select 1 from (select v.settings from custom_profile_versions v
          where v.profile_id = custom_profiles.id order by v.version desc nulls last limit 1) lv
          where lv.settings ? ${q.part})`,
      );
    const total = await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const rows = await base
      .selectAll('custom_profiles')
      .orderBy('custom_profiles.updated_at', 'desc')
      .orderBy('custom_profiles.id', 'desc')
      .limit(q.pageSize)
      .offset((q.pageNo - 1) * q.pageSize)
      .execute();
    return { list: await this.items(u, rows), total: Number(total.n) };
  }

  private async items(
    u: CustomCaller,
    rows: Array<{
      id: number | string;
      name: string;
      description: string;
      created_at: Date | string;
      updated_at: Date | string;
    }>,
  ): Promise<ProfileItem[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => Number(r.id));
    const vs = await this.versions(u.scope, ids);
    const inScope = u.devices ?? sql<boolean>`true`;
    // devices assigned outside the caller's data scope are not counted (nor listed by `detail`)
    const { rows: assigned } = await sql<{ profile_id: string; devices: string; groups: string }>`
      SELECT a.profile_id, count(a.device_id) FILTER (WHERE ${inScope}) AS devices, count(a.group_id) AS groups
      FROM custom_profile_assignments a LEFT JOIN devices ON devices.id = a.device_id
      WHERE a.tenant_id = ${u.tenantId} AND a.profile_id = ANY(${ids}::bigint[]) GROUP BY a.profile_id`.execute(
      u.scope.db,
    );
    const { rows: counts } = await sql<{
      profile_id: string;
      devices: string;
      applied: string;
      failed: string;
      drifted: string;
    }>`
      SELECT s.profile_id, count(*) AS devices,
        count(*) FILTER (WHERE s.applied_version_id = s.desired_version_id AND t.state = 'succeeded') AS applied,
        count(*) FILTER (WHERE t.state IN ('failed', 'expired', 'canceled')) AS failed,
        count(*) FILTER (WHERE s.drift) AS drifted
      FROM device_profile_state s JOIN devices ON devices.id = s.device_id
      LEFT JOIN device_tasks t ON t.id = s.task_id
      WHERE s.tenant_id = ${u.tenantId} AND s.profile_id = ANY(${ids}::bigint[]) AND ${inScope}
      GROUP BY s.profile_id`.execute(u.scope.db);
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
        parts: this.partsOf(current ?? draft),
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
    const us = await this.db.selectFrom('users').select(['id', 'username']).where('id', 'in', want).execute();
    return new Map(us.map((x) => [Number(x.id), x.username]));
  }

  async detail(u: CustomCaller, id: number): Promise<ProfileDetail> {
    const row = await this.profileRow(u.scope, id);
    const [item] = await this.items(u, [row]);
    const vs = await this.versions(u.scope, [id]);
    const users = await this.userNames(vs.map((v) => v.published_by));
    const draft = vs.find((v) => v.version == null);
    const published = vs.filter((v) => v.version != null);
    const { rows: assignments } = await sql<{
      device_id: string | null;
      group_id: string | null;
      created_at: Date;
      device_name: string | null;
      sn: string | null;
      group_name: string | null;
    }>`
      SELECT a.device_id, a.group_id, a.created_at, devices.name AS device_name, devices.sn, g.name AS group_name
      FROM custom_profile_assignments a
      LEFT JOIN devices ON devices.id = a.device_id
      LEFT JOIN device_groups g ON g.id = a.group_id
      WHERE a.tenant_id = ${u.tenantId} AND a.profile_id = ${id}
        AND (a.device_id IS NULL OR ${u.devices ?? sql<boolean>`true`})
      ORDER BY a.created_at, a.id`.execute(u.scope.db);
    return {
      ...item,
      draft: draft ? this.versionView(draft, users) : null,
      current: published[0] ? this.versionView(published[0], users) : null,
      history: published.map((v) => this.versionView(v, users)),
      assignments: assignments.map((a) =>
        a.device_id != null
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
            },
      ),
      rule: RESOLUTION_RULE,
    };
  }

  private stateQuery(u: CustomCaller) {
    const inScope = u.devices ?? sql<boolean>`true`;
    return sql`
      SELECT s.*, devices.sn, devices.name AS device_name, devices.status, g.name AS group_name,
        dv.version AS desired_version, av.version AS applied_version, t.state AS task_state, t.error AS task_error,
        dv.part_hashes AS desired_parts, p.name AS profile_name
      FROM device_profile_state s JOIN devices ON devices.id = s.device_id AND devices.tenant_id = s.tenant_id
      LEFT JOIN device_groups g ON g.id = s.source_group_id
      LEFT JOIN custom_profile_versions dv ON dv.id = s.desired_version_id
      LEFT JOIN custom_profile_versions av ON av.id = s.applied_version_id
      LEFT JOIN custom_profiles p ON p.id = s.profile_id
      LEFT JOIN device_tasks t ON t.id = s.task_id
      WHERE s.tenant_id = ${u.tenantId} AND ${inScope}`;
  }

  async devices(u: CustomCaller, q: z.output<typeof profileDevicesQuery>): Promise<Paged<ProfileDeviceItem>> {
    await this.profileRow(u.scope, q.id);
    const stateFilter: Record<ProfileApplyState, RawBuilder<boolean>> = {
      none: sql<boolean>`x.task_state IS NULL`,
      queued: sql<boolean>`x.task_state IN ('queued', 'sent', 'timeout')`,
      delivered: sql<boolean>`x.task_state IN ('delivered', 'running')`,
      applied: sql<boolean>`x.task_state = 'succeeded'`,
      failed: sql<boolean>`x.task_state IN ('failed', 'expired', 'canceled')`,
    };
    const where = [sql<boolean>`x.profile_id = ${q.id}`];
    if (q.state) where.push(stateFilter[q.state]);
    if (q.drift !== undefined) where.push(sql<boolean>`x.drift = ${q.drift}`);
    const cond = sql.join(where, sql` AND `);
    const total = await sql<{ n: string }>`SELECT count(*) AS n FROM (${this.stateQuery(u)}) x WHERE ${cond}`.execute(
      u.scope.db,
    );
    const { rows } = await sql<any>`SELECT * FROM (${this.stateQuery(u)}) x WHERE ${cond}
      ORDER BY x.sn LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(u.scope.db);
    return { list: rows.map((r) => this.deviceItem(r)), total: Number(total.rows[0]?.n ?? 0) };
  }

  private deviceItem(r: any): ProfileDeviceItem {
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

  async device(u: CustomCaller, deviceId: number): Promise<DeviceProfile> {
    const dev = await u.scope
      .selectFrom('devices')
      .select(['devices.id', 'devices.group_id'])
      .where('devices.id', '=', deviceId)
      .where(u.devices ?? sql<boolean>`true`)
      .executeTakeFirst();
    if (!dev) throw notFound('device');
    const { rows: candidates } = await sql<{
      depth: number;
      group_id: string | null;
      group_name: string | null;
      profile_id: string;
      profile_name: string;
    }>`
      WITH RECURSIVE chain AS (
        SELECT g.id AS gid, g.parent_id, 1 AS depth FROM device_groups g WHERE g.id = ${dev.group_id} AND g.tenant_id = ${u.tenantId}
        UNION ALL
        SELECT g.id, g.parent_id, c.depth + 1 FROM chain c JOIN device_groups g ON g.id = c.parent_id
        WHERE c.depth < 64
      )
      SELECT 0 AS depth, NULL::bigint AS group_id, NULL::text AS group_name, a.profile_id, p.name AS profile_name
      FROM custom_profile_assignments a JOIN custom_profiles p ON p.id = a.profile_id
      WHERE a.tenant_id = ${u.tenantId} AND a.device_id = ${deviceId}
      UNION ALL
      SELECT c.depth, c.gid, g.name, a.profile_id, p.name FROM chain c
      JOIN device_groups g ON g.id = c.gid
      JOIN custom_profile_assignments a ON a.group_id = c.gid AND a.tenant_id = ${u.tenantId}
      JOIN custom_profiles p ON p.id = a.profile_id
      ORDER BY depth`.execute(u.scope.db);
    const { rows } = await sql<any>`SELECT * FROM (${this.stateQuery(u)}) x WHERE x.device_id = ${deviceId}`.execute(
      u.scope.db,
    );
    const r = rows[0];
    const item = r ? this.deviceItem(r) : null;
    let settings: ProfileSettings | null = null;
    if (r?.desired_version_id != null) {
      const v = await u.scope
        .selectFrom('custom_profile_versions')
        .selectAll()
        .where('custom_profile_versions.id', '=', Number(r.desired_version_id))
        .executeTakeFirst();
      if (v) settings = this.settingsView(v.settings as StoredSettings, v.kiosk_password, v.applock_password);
    }
    return {
      deviceId,
      profile: r?.profile_id != null ? { id: Number(r.profile_id), name: r.profile_name ?? '' } : null,
      source: r?.profile_id != null ? (r.source ?? null) : null,
      groupId: r?.profile_id != null ? num(r.source_group_id) : null,
      groupName: r?.profile_id != null ? (r.group_name ?? null) : null,
      candidates: candidates.map((c) => ({
        source: c.depth === 0 ? ('device' as const) : ('group' as const),
        groupId: num(c.group_id),
        groupName: c.group_name,
        profileId: Number(c.profile_id),
        profileName: c.profile_name,
      })),
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
    const { rows } = await sql<{ identifier: string; name: string; version_name: string }>`
      SELECT DISTINCT ON (identifier) identifier, name, version_name FROM packages
      WHERE tenant_id = ${u.tenantId} AND kind = 'app' AND deleted_at IS NULL
      ORDER BY identifier, version_code DESC, id DESC`.execute(u.scope.db);
    return rows.map((r) => ({ pkg: r.identifier, name: r.name, versionName: r.version_name }));
  }
}
