import type { BootAnimationFormat } from '@cpc/contracts';
import { profileHashes } from '@cpc/contracts/device-protocol';
import type { ScopedCaller } from '../../lib/data-scope.ts';

/** The caller and its data scope (`scopedCaller`): the tenant, the user, and the devices its scope reaches. */
export type CustomCaller = ScopedCaller;

export interface StoredMedia {
  key: string;
  sha256: string;
  size: number;
  mime: string;
  originalName: string;
}

/** A version's parts as stored (no secrets: the passwords are columns of their own). */
export interface StoredSettings {
  bootAnimation?: StoredMedia & { format: BootAnimationFormat; fps: number; loop: boolean; frames: number | null };
  desktop?: { columns: number; rows: number; iconSize: string; apps: string[]; hiddenSystemIcons: string[] };
  wallpaper?: StoredMedia & { fit: string; width: number; height: number };
  defaultStartApp?: { pkg: string; delaySec: number };
  topScreen?: { enabled: boolean; pkg: string };
  appLock?: { mode: 'allow' | 'block'; packages: string[] };
}

/** A row of `custom_profile_versions` as read (ids may arrive as strings from raw statements). */
export interface VersionRow {
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

/** A profile's media parts (the ones a device downloads). */
export type MediaPart = 'bootAnimation' | 'wallpaper';

/** An apply task stays open this long for a device that is offline (delivered on its reconnect until then). */
export const APPLY_EXPIRE_S = 7 * 24 * 3600;

export const iso = (d: Date | string) => new Date(d).toISOString();
export const isoOrNull = (d: Date | string | null | undefined) => (d == null ? null : iso(d));
export const num = (v: number | string | bigint | null | undefined) => (v == null ? null : Number(v));

/** The hashes of the empty configuration (the system's defaults). */
export const EMPTY = profileHashes({});
