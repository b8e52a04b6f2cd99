import {
  applyProfileParams,
  profileHashes,
  type CommandMsg,
  type DeviceProfileSettings,
  type ProfileMsg,
} from '@cpc/contracts/device-protocol';
import { continueDownload, startDownload } from './download.ts';
import { chance, type Rng } from './random.ts';

/**
 * A simulated device's customization (issue 16): how it carries out apply_profile — download the boot animation
 * and wallpaper from the task's signed links and check their SHA-256, check the apps it must start or pin are
 * installed (when asked to), then keep the configuration as its effective one — and what it reports as `profile`
 * (after each apply and each hello). `drift()` changes the configuration locally, as a person at the terminal
 * would, so the platform sees the drift.
 */
export interface ProfileSimOptions {
  rng: Rng;
  /** Share of applies that fail ("simulated failure applying the profile"). Default 0. */
  failRate?: number;
  /** Fail when the default-start, pinned or desktop apps are not installed. Default false (they are assumed). */
  requireInstalledApps?: boolean;
  /** Media download speed, bytes per second (default: as fast as the server sends). */
  bytesPerSecond?: number;
}

const strip = (s: DeviceProfileSettings): DeviceProfileSettings => {
  const out = structuredClone(s);
  if (out.bootAnimation) delete out.bootAnimation.url;
  if (out.wallpaper) delete out.wallpaper.url;
  return out;
};

export class DeviceCustomization {
  /** The configuration in effect (no links), and the version it came from (null: none / the defaults). */
  effective: DeviceProfileSettings = {};
  versionId: number | null = null;
  /** Media files downloaded, by SHA-256 (a later version with the same file is not downloaded again). */
  readonly media = new Set<string>();

  constructor(
    private opts: ProfileSimOptions,
    private installed: (pkg: string) => boolean,
  ) {}

  /** The body of a `profile` report. */
  report(): Omit<ProfileMsg, 'ts'> {
    const h = profileHashes(this.effective);
    return { versionId: this.versionId, hash: h.hash, parts: h.parts };
  }

  async apply(m: CommandMsg): Promise<{ ok: boolean; error?: string }> {
    const parsed = applyProfileParams.safeParse(m.params);
    if (!parsed.success) return { ok: false, error: 'bad profile parameters' };
    const { settings, versionId } = parsed.data;
    if (chance(this.opts.rng, this.opts.failRate ?? 0))
      return { ok: false, error: 'simulated failure applying the profile' };
    if (this.opts.requireInstalledApps) {
      const needed = [
        ...(settings.defaultStartApp ? [settings.defaultStartApp.pkg] : []),
        ...(settings.topScreen?.enabled ? [settings.topScreen.pkg] : []),
        ...(settings.desktop?.apps ?? []),
      ];
      const missing = needed.find((p) => !this.installed(p));
      if (missing) return { ok: false, error: `app ${missing} is not installed` };
    }
    for (const [part, media] of [
      ['boot animation', settings.bootAnimation],
      ['wallpaper', settings.wallpaper],
    ] as const) {
      if (!media || this.media.has(media.sha256)) continue;
      if (!media.url) return { ok: false, error: `no download link for the ${part}` };
      try {
        const sha = await continueDownload(startDownload(media.url), media.url, {
          bytesPerSecond: this.opts.bytesPerSecond ?? 0,
        });
        if (sha !== media.sha256) return { ok: false, error: `bad checksum of the ${part}` };
        this.media.add(sha);
      } catch (e) {
        return { ok: false, error: `download of the ${part} failed: ${(e as Error).message}` };
      }
    }
    this.effective = strip(settings);
    this.versionId = versionId;
    return { ok: true };
  }

  /** Changes the configuration on the device itself (the platform should see drift); answers the part changed. */
  drift(): string {
    const e = this.effective;
    if (e.wallpaper) {
      e.wallpaper.fit = e.wallpaper.fit === 'center' ? 'fill' : 'center';
      return 'wallpaper';
    }
    if (e.topScreen) {
      e.topScreen.enabled = !e.topScreen.enabled;
      return 'topScreen';
    }
    if (e.desktop) {
      e.desktop.columns = e.desktop.columns === 10 ? 2 : e.desktop.columns + 1;
      return 'desktop';
    }
    e.defaultStartApp = { pkg: 'com.android.settings', delaySec: 0 };
    return 'defaultStartApp';
  }
}
