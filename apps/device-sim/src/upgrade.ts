import type { EventEmitter } from 'node:events';
import type { CommandMsg } from '@cpc/contracts/device-protocol';
import { continueDownload, DownloadError, startDownload, type PartialDownload } from './download.ts';
import { chance, type Rng } from './random.ts';

/**
 * How a simulated device carries out a firmware upgrade (issue 15): download the image over HTTP at its modem's
 * speed (stage `downloading` with %; an interrupted download resumes from where it stopped once the device is back
 * online), check its SHA-256 (`bad checksum` on a mismatch), `downloaded`, `installing` (%), `rebooting` (it leaves,
 * and comes back after the reboot delay saying the new `fw` in its hello), then the result ok with `{version}`.
 * Some devices fail on purpose, at the rates of `UpgradeSimOptions` (changeable while the fleet runs).
 */
export interface UpgradeSimOptions {
  /** The modem's download speed in bytes per second (default 2 MB/s; 0: as fast as the server sends). */
  bytesPerSecond?: number;
  /** Share of upgrades (0–1) whose image comes out with a wrong SHA-256. */
  badChecksumRate?: number;
  /** Share of upgrades refused for lack of storage, before the download. */
  noStorageRate?: number;
  /** Share of upgrades refused as firmware of another model. */
  incompatibleRate?: number;
  /** Time per install step (5 steps; default 100 ms). */
  installStepMs?: number;
}

/** What the upgrade needs of its device. */
export interface UpgradeHost extends EventEmitter {
  readonly sn: string;
  firmware: string;
  readonly online: boolean;
  publishUp(kind: 'progress' | 'result', body: Record<string, unknown>): Promise<void>;
  /** Records the outcome so a repeat of the command is answered with it. */
  done(id: string, ok: boolean, error?: string): void;
  /** Leaves for a reboot and comes back after the reboot delay. */
  reboot(): Promise<void>;
  waitOnline(timeoutMs: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Downloads cut off this many times in a row give up (the task fails; the server may send it again). */
const MAX_RESUMES = 20;

export async function runUpgrade(host: UpgradeHost, m: CommandMsg, opts: UpgradeSimOptions, rng: Rng): Promise<void> {
  const p = m.params as Record<string, unknown>;
  const version = String(p.versionName ?? p.version ?? '');
  const fail = async (error: string) => {
    host.done(m.id, false, error);
    await host.publishUp('result', { id: m.id, ok: false, error });
  };
  if (chance(rng, opts.incompatibleRate ?? 0)) return fail('incompatible model');
  if (chance(rng, opts.noStorageRate ?? 0)) return fail('not enough storage');
  if (typeof p.url !== 'string') return fail('no download link');

  // download, resuming after a lost connection
  let part: PartialDownload = startDownload(p.url);
  let lastReported = -10;
  let digest: string;
  for (let attempt = 0; ; attempt++) {
    const cut = new AbortController();
    const onOffline = () => cut.abort(new Error('connection lost'));
    host.once('offline', onOffline);
    try {
      digest = await continueDownload(part, part.url, {
        bytesPerSecond: opts.bytesPerSecond ?? 2_000_000,
        signal: cut.signal,
        onProgress: (percent) => {
          if (percent - lastReported < 10 && percent !== 100) return;
          lastReported = percent;
          if (host.online) void host.publishUp('progress', { id: m.id, progress: percent, stage: 'downloading' });
        },
      });
      break;
    } catch (e) {
      if (e instanceof DownloadError && e.status >= 400) return fail(`download refused: HTTP ${e.status}`);
      if (attempt >= MAX_RESUMES) return fail(`download failed: ${(e as Error).message}`);
      // back online, then on from where it stopped
      if (!host.online) await host.waitOnline(10 * 60_000).catch(() => {});
      if (!host.online) return;
      if (part.received === 0) part = startDownload(part.url);
    } finally {
      host.off('offline', onOffline);
    }
  }
  const expected = String(p.sha256 ?? '');
  if (chance(rng, opts.badChecksumRate ?? 0) || (expected && digest !== expected)) return fail('bad checksum');
  await host.publishUp('progress', { id: m.id, progress: 100, stage: 'downloaded' });
  const step = opts.installStepMs ?? 100;
  for (const percent of [0, 25, 50, 75, 100]) {
    await host.publishUp('progress', { id: m.id, progress: percent, stage: 'installing' });
    await sleep(step);
  }
  await host.publishUp('progress', { id: m.id, progress: 0, stage: 'rebooting' });
  // the new image boots: the next hello says the new version; the result goes once it is back
  host.firmware = version || host.firmware;
  host.done(m.id, true);
  await host.reboot();
  await host.waitOnline(10 * 60_000).catch(() => {});
  if (host.online) await host.publishUp('result', { id: m.id, ok: true, data: { version: host.firmware } });
}
