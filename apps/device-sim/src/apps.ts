import type { CommandMsg, InventoryMsg } from '@cpc/contracts/device-protocol';
import { continueDownload, startDownload, type PartialDownload } from './download.ts';
import { chance, type Rng } from './random.ts';

/**
 * A simulated device's software (issue 15): the Android apps and AI models it has, what it reports as its
 * `inventory`, and how it carries out install_app, uninstall_app and deploy_model — download over HTTP from the
 * task's signed link (stage `downloading` with %), check the SHA-256, `installing`, then the inventory changes and is
 * sent. Some installs fail at configurable rates (bad checksum, not enough storage); a downgrade is refused unless
 * the task allows it.
 */
export interface SoftwareOptions {
  rng: Rng;
  /** Download speed, bytes per second (default 2 MB/s; 0: as fast as the server sends). */
  bytesPerSecond?: number;
  /** Share of installs whose download arrives corrupted (the checksum does not match). Default 0. */
  badChecksumRate?: number;
  /** Share of installs refused for lack of storage. Default 0. */
  noStorageRate?: number;
  /** Free storage at start, MB (default 2048). */
  storageFreeMb?: number;
  /** How long installing takes (default 300 ms). */
  installMs?: number;
}

export interface InstalledApp {
  pkg: string;
  name: string;
  versionCode: number;
  versionName: string;
}
export interface InstalledModel {
  name: string;
  version: string;
  framework?: string;
}

/** What every simulated printer comes with. */
export const SYSTEM_APPS: InstalledApp[] = [
  { pkg: 'com.android.settings', name: 'Settings', versionCode: 30, versionName: '11' },
  { pkg: 'com.android.systemui', name: 'System UI', versionCode: 30, versionName: '11' },
  { pkg: 'com.cloudprint.agent', name: 'Cloud Print Agent', versionCode: 120, versionName: '1.2.0' },
];

export interface TaskIo {
  progress(percent: number, stage: 'downloading' | 'downloaded' | 'installing'): Promise<void>;
  /** Sends the (changed) inventory. */
  inventory(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

export class DeviceSoftware {
  readonly apps = new Map<string, InstalledApp>(SYSTEM_APPS.map((a) => [a.pkg, { ...a }]));
  readonly models = new Map<string, InstalledModel>();
  storageFreeMb: number;
  /** Downloads under way by task id: a resend of the task resumes it. */
  private partial = new Map<string, PartialDownload>();

  constructor(private opts: SoftwareOptions) {
    this.storageFreeMb = opts.storageFreeMb ?? 2048;
  }

  inventory(): Omit<InventoryMsg, 'ts'> {
    return {
      apps: [...this.apps.values()],
      models: [...this.models.values()],
      storageFreeMb: Math.round(this.storageFreeMb),
    };
  }

  /** Carries out one software task; answers its outcome (the caller reports it). */
  async run(m: CommandMsg, io: TaskIo): Promise<{ ok: boolean; error?: string }> {
    const p = m.params;
    const identifier = str(p.identifier);
    const isModel = m.type === 'deploy_model';
    const action =
      m.type === 'uninstall_app' || p.action === 'uninstall' || p.action === 'remove' ? 'uninstall' : 'install';
    if (!identifier) return { ok: false, error: 'no identifier' };
    if (action === 'uninstall') {
      // idempotent: removing what is not there succeeds with nothing to do
      const had = isModel ? this.models.delete(identifier) : this.apps.delete(identifier);
      if (had) {
        this.storageFreeMb += 20;
        await io.inventory();
      }
      return { ok: true };
    }
    const versionCode = num(p.versionCode);
    const versionName = str(p.versionName);
    const current = this.apps.get(identifier);
    if (!isModel && current && current.versionCode > versionCode && p.allowDowngrade !== true)
      return { ok: false, error: `downgrade: ${current.versionName} (${current.versionCode}) is installed` };
    const sizeMb = num(p.size) / 1024 / 1024;
    if (sizeMb * 2 > this.storageFreeMb || chance(this.opts.rng, this.opts.noStorageRate ?? 0))
      return { ok: false, error: 'not enough storage' };
    const url = str(p.url);
    if (!url) return { ok: false, error: 'no download link' };
    const part = this.partial.get(m.id) ?? startDownload(url);
    this.partial.set(m.id, part);
    let last = -10;
    let sha: string;
    try {
      await io.progress(0, 'downloading');
      sha = await continueDownload(part, url, {
        bytesPerSecond: this.opts.bytesPerSecond,
        onProgress: (pct) => {
          if (pct - last >= 10 || pct === 100) {
            last = pct;
            void io.progress(pct, 'downloading');
          }
        },
      });
    } catch (e) {
      return { ok: false, error: `download failed: ${(e as Error).message}` };
    }
    this.partial.delete(m.id);
    if (chance(this.opts.rng, this.opts.badChecksumRate ?? 0)) sha = sha.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    if (sha !== str(p.sha256)) return { ok: false, error: 'bad checksum' };
    await io.progress(100, 'downloaded');
    await io.progress(0, 'installing');
    await sleep((this.opts.installMs ?? 300) / 2);
    await io.progress(50, 'installing');
    await sleep((this.opts.installMs ?? 300) / 2);
    if (isModel)
      this.models.set(identifier, { name: identifier, version: versionName, framework: str(p.framework) || 'onnx' });
    else this.apps.set(identifier, { pkg: identifier, name: str(p.name) || identifier, versionCode, versionName });
    this.storageFreeMb = Math.max(0, this.storageFreeMb - sizeMb);
    await io.progress(100, 'installing');
    await io.inventory();
    return { ok: true };
  }
}
