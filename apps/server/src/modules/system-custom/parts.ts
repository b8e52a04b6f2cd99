import sharp from 'sharp';
import {
  WALLPAPER_MAX_BYTES,
  WALLPAPER_MAX_PIXELS,
  WALLPAPER_MIN_PIXELS,
  type BootAnimationFormat,
  customProfileCreateBody,
  customProfileUpdateBody,
} from '@cpc/contracts';
import { profileHashes, type ProfilePasswordHash } from '@cpc/contracts/device-protocol';
import type { z } from 'zod';
import type { ObjectStorage } from '../../lib/storage.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { zipFrames } from './media.ts';
import type { SystemCustomRepository } from './repository/index.ts';
import { deviceSettingsOf, hashProfilePassword, sha256Hex } from './settings.ts';
import type { MediaPart, StoredMedia, StoredSettings } from './types.ts';

export type PartsBody = z.output<typeof customProfileUpdateBody> | z.output<typeof customProfileCreateBody>;

/** A version's settings and its two write-only passwords. */
export interface PartsBase {
  settings: StoredSettings;
  kiosk: ProfilePasswordHash | null;
  applock: ProfilePasswordHash | null;
}

/** What applying a body's parts gives: the new settings and passwords, and what the system log says of them. */
export interface AppliedParts extends PartsBase {
  passwordsChanged: string[];
  hashes: ReturnType<typeof profileHashes>;
}

/** Work in progress while a body's parts are applied. */
interface Draft extends PartsBase {
  passwordsChanged: string[];
  /** The apps the parts name, each with the field that names it (checked to be the customer's). */
  apps: Array<{ field: string; pkg: string }>;
}

/** Refuses a package named twice in a list (400 naming the second one). */
function assertDistinct(pkgs: string[], field: string): void {
  const seen = new Set<string>();
  pkgs.forEach((pkg, i) => {
    if (seen.has(pkg)) throw badRequest(`${field}.${i}`, 'systemCustom.duplicateApp', { pkg });
    seen.add(pkg);
  });
}

/**
 * A profile's parts as a create or an edit sets them: media checked (the customer's upload of the right kind and
 * size), apps checked (the customer's applications), passwords hashed.
 */
export class ProfileParts {
  constructor(
    private repo: SystemCustomRepository,
    private storage: ObjectStorage,
  ) {}

  /**
   * Applies the parts of a create/update body to a version's settings and passwords (an object sets a part, null
   * removes it, absent keeps it); checks media and apps. Answers the new settings, passwords and what changed
   * (for the system log: never a password, only that it was changed).
   */
  async apply(tenantId: number, body: PartsBody, before: PartsBase): Promise<AppliedParts> {
    const d: Draft = { ...before, settings: { ...before.settings }, passwordsChanged: [], apps: [] };
    if (body.bootAnimation === null) delete d.settings.bootAnimation;
    else if (body.bootAnimation)
      d.settings.bootAnimation = await this.bootAnimationOf(
        tenantId,
        body.bootAnimation,
        before.settings.bootAnimation,
      );
    if (body.wallpaper === null) delete d.settings.wallpaper;
    else if (body.wallpaper)
      d.settings.wallpaper = await this.wallpaperOf(tenantId, body.wallpaper, before.settings.wallpaper);
    this.applyDesktop(d, body);
    if (body.defaultStartApp === null) delete d.settings.defaultStartApp;
    else if (body.defaultStartApp) {
      d.apps.push({ field: 'defaultStartApp.pkg', pkg: body.defaultStartApp.pkg });
      d.settings.defaultStartApp = { pkg: body.defaultStartApp.pkg, delaySec: body.defaultStartApp.delaySec };
    }
    await this.applyTopScreen(d, body);
    await this.applyAppLock(d, body);
    await this.assertOwnApps(tenantId, d.apps);
    const hashes = profileHashes(deviceSettingsOf(d.settings, d.kiosk, d.applock));
    const { settings, kiosk, applock, passwordsChanged } = d;
    return { settings, kiosk, applock, passwordsChanged, hashes };
  }

  private applyDesktop(d: Draft, body: PartsBody): void {
    if (body.desktop === null) delete d.settings.desktop;
    else if (body.desktop) {
      assertDistinct(body.desktop.apps, 'desktop.apps');
      body.desktop.apps.forEach((pkg, i) => d.apps.push({ field: `desktop.apps.${i}`, pkg }));
      d.settings.desktop = {
        columns: body.desktop.columns,
        rows: body.desktop.rows,
        iconSize: body.desktop.iconSize,
        apps: body.desktop.apps,
        hiddenSystemIcons: [...new Set(body.desktop.hiddenSystemIcons)],
      };
    }
  }

  private async applyTopScreen(d: Draft, body: PartsBody): Promise<void> {
    if (body.topScreen === null) {
      delete d.settings.topScreen;
      d.kiosk = null;
    } else if (body.topScreen) {
      d.apps.push({ field: 'topScreen.pkg', pkg: body.topScreen.pkg });
      if (body.topScreen.exitPassword !== undefined) {
        d.kiosk = await hashProfilePassword(body.topScreen.exitPassword);
        d.passwordsChanged.push('topScreen.exitPassword');
      } else if (!d.kiosk) throw badRequest('topScreen.exitPassword', 'systemCustom.passwordRequired');
      d.settings.topScreen = { enabled: body.topScreen.enabled, pkg: body.topScreen.pkg };
    }
  }

  private async applyAppLock(d: Draft, body: PartsBody): Promise<void> {
    if (body.appLock === null) {
      delete d.settings.appLock;
      d.applock = null;
    } else if (body.appLock) {
      assertDistinct(body.appLock.packages, 'appLock.packages');
      if (body.appLock.unlockPassword !== undefined) {
        d.applock = await hashProfilePassword(body.appLock.unlockPassword);
        d.passwordsChanged.push('appLock.unlockPassword');
      } else if (!d.applock) throw badRequest('appLock.unlockPassword', 'systemCustom.passwordRequired');
      d.settings.appLock = { mode: body.appLock.mode, packages: body.appLock.packages };
    }
  }

  /** Is each named app one of the customer's applications (a `packages` row of kind app)? Else 400 naming it. */
  private async assertOwnApps(tenantId: number, named: Array<{ field: string; pkg: string }>): Promise<void> {
    if (!named.length) return;
    const own = new Set(
      await this.repo.profiles.ownAppIdentifiers(
        tenantId,
        named.map((n) => n.pkg),
      ),
    );
    const missing = named.find((n) => !own.has(n.pkg));
    if (missing) throw badRequest(missing.field, 'systemCustom.unknownApp', { pkg: missing.pkg });
  }

  /** An uploaded object of the tenant's `custom` bucket, its bytes and their SHA-256 (else 404 / 400). */
  private async media(tenantId: number, key: string, field: string, part: MediaPart) {
    const row = await this.repo.profiles.uploadedObject(tenantId, key);
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
        sha256: sha256Hex(bytes),
        size: Number(row.size),
        mime: row.mime,
        originalName: row.original_name,
      } satisfies StoredMedia,
    };
  }

  private async wallpaperOf(
    tenantId: number,
    input: { key: string; fit: string },
    before: StoredSettings['wallpaper'],
  ): Promise<NonNullable<StoredSettings['wallpaper']>> {
    if (before && before.key === input.key) return { ...before, fit: input.fit };
    const m = await this.media(tenantId, input.key, 'wallpaper.key', 'wallpaper');
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
    tenantId: number,
    input: { key: string; fps: number; loop: boolean },
    before: StoredSettings['bootAnimation'],
  ): Promise<NonNullable<StoredSettings['bootAnimation']>> {
    if (before && before.key === input.key) return { ...before, fps: input.fps, loop: input.loop };
    const m = await this.media(tenantId, input.key, 'bootAnimation.key', 'bootAnimation');
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
}
