import { createHash, randomBytes, scrypt } from 'node:crypto';
import {
  SYSTEM_CUSTOM_PARTS,
  type ProfileApplyState,
  type ProfileSettings,
  type ProfileVersion,
  type SystemCustomPart,
  type TaskState,
} from '@cpc/contracts';
import type { DeviceProfileSettings, ProfilePasswordHash } from '@cpc/contracts/device-protocol';
import type { ObjectStorage } from '../../lib/storage.ts';
import { changedFields } from '../../lib/audit.ts';
import { iso, isoOrNull, type StoredMedia, type StoredSettings, type VersionRow } from './types.ts';

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 } as const;

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

/** The SHA-256 of some bytes, in hex. */
export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

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

/** The configuration a device gets for a stored version (none: the empty one, the system's defaults). */
export function deviceSettingsOfVersion(version: VersionRow | null): DeviceProfileSettings {
  if (!version) return {};
  return deviceSettingsOf(
    version.settings as StoredSettings,
    version.kiosk_password as ProfilePasswordHash | null,
    version.applock_password as ProfilePasswordHash | null,
  );
}

/** The apply state the console shows, from the device's last apply task. */
export function applyState(task: { state: TaskState; error: string } | null): ProfileApplyState {
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

/** The parts a change touched, before → after, for the system log (passwords only as "changed"). */
export function partChanges(before: StoredSettings, after: StoredSettings, passwordsChanged: string[]) {
  const pick = (s: StoredSettings) =>
    Object.fromEntries(SYSTEM_CUSTOM_PARTS.map((p) => [p, (s as Record<string, unknown>)[p] ?? null]));
  const changes = changedFields(pick(before), pick(after));
  for (const p of passwordsChanged) changes[p] = { before: '***', after: '***' };
  return changes;
}

/** The parts a version sets. */
export function partsOf(v: VersionRow | undefined): SystemCustomPart[] {
  const s = (v?.settings ?? {}) as Record<string, unknown>;
  return SYSTEM_CUSTOM_PARTS.filter((p) => s[p] != null);
}

/** A version's settings as the console shows them: media with signed links, passwords only as "set". */
export function settingsView(
  storage: ObjectStorage,
  s: StoredSettings,
  kiosk: unknown,
  applock: unknown,
): ProfileSettings {
  const media = (m: StoredMedia) => ({
    key: m.key,
    url: storage.signedUrl(m.key),
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
    topScreen: s.topScreen ? { enabled: s.topScreen.enabled, pkg: s.topScreen.pkg, passwordSet: kiosk != null } : null,
    appLock: s.appLock ? { mode: s.appLock.mode, packages: s.appLock.packages, passwordSet: applock != null } : null,
  };
}

export function versionView(storage: ObjectStorage, v: VersionRow, users: Map<number, string>): ProfileVersion {
  return {
    id: Number(v.id),
    version: v.version,
    state: v.version == null ? 'draft' : 'published',
    settings: settingsView(storage, v.settings as StoredSettings, v.kiosk_password, v.applock_password),
    hash: v.hash,
    createdAt: iso(v.created_at),
    publishedAt: isoOrNull(v.published_at),
    publishedBy: v.published_by == null ? null : (users.get(Number(v.published_by)) ?? null),
  };
}
