import { createHash } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

/**
 * How a simulated device downloads a package (issue 15): over HTTP from the signed link its task carries, at a
 * realistic speed, resuming with a `Range` request from what it already has when the connection broke, and
 * checking the SHA-256 at the end. The bytes are kept in memory only as far as the hash needs them: the
 * simulator counts bytes, it does not store firmware.
 */
export interface DownloadOptions {
  /** Bytes per second the simulated modem reaches (default 2 MB/s); 0: as fast as the server sends. */
  bytesPerSecond?: number;
  /** Called as bytes arrive, with the percentage done. */
  onProgress?: (percent: number, received: number) => void;
  /** Aborts the download (a reboot, a power cut, a cancel); `resume` continues it later. */
  signal?: AbortSignal;
}

/** What has been received so far: enough to resume (the hash state continues over the new bytes). */
export interface PartialDownload {
  url: string;
  received: number;
  total: number | null;
  hash: ReturnType<typeof createHash>;
}

export class DownloadError extends Error {
  constructor(
    message: string,
    /** The HTTP status when the server refused, else 0. */
    readonly status = 0,
  ) {
    super(message);
  }
}

export function startDownload(url: string): PartialDownload {
  return { url, received: 0, total: null, hash: createHash('sha256') };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * Downloads the rest of `part` (all of it on a fresh one) and answers the SHA-256 hex of the whole file. An
 * interruption (abort, lost connection) throws with `part` holding what arrived: call again to resume. `url` may
 * be newer than `part.url` (a resend carries a fresh link to the same package).
 */
export async function continueDownload(
  part: PartialDownload,
  url: string,
  opts: DownloadOptions = {},
): Promise<string> {
  part.url = url;
  const headers: Record<string, string> = part.received > 0 ? { range: `bytes=${part.received}-` } : {};
  // one connection per download, closed at its end or when it is cut off (nothing is left on a pool)
  const get = (at: string) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const req = (at.startsWith('https:') ? https : http).get(at, { headers, agent: false, signal: opts.signal });
      req.once('response', resolve);
      req.once('error', reject);
    });
  let res = await get(url);
  // objects in S3 (issue 17): the server answers a redirect to a short presigned link, followed with the same Range
  for (let hops = 0; hops < 3 && [301, 302, 303, 307, 308].includes(res.statusCode ?? 0); hops++) {
    const location = res.headers.location;
    res.destroy();
    if (!location) throw new DownloadError('download refused: a redirect without a location', res.statusCode ?? 0);
    res = await get(new URL(location, url).toString());
  }
  if (part.received > 0 && res.statusCode === 200) {
    // the server ignored the range: start again from the first byte
    part.received = 0;
    part.hash = createHash('sha256');
  } else if (res.statusCode !== 200 && res.statusCode !== 206) {
    res.destroy();
    throw new DownloadError(`download refused: HTTP ${res.statusCode}`, res.statusCode ?? 0);
  }
  const length = Number(res.headers['content-length'] ?? NaN);
  if (part.total === null && Number.isFinite(length)) part.total = part.received + length;
  const rate = opts.bytesPerSecond ?? 2_000_000;
  const started = Date.now();
  let thisRun = 0;
  let lastPercent = -1;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      part.hash.update(chunk);
      part.received += chunk.length;
      thisRun += chunk.length;
      if (part.total) {
        const percent = Math.floor((part.received / part.total) * 100);
        if (percent !== lastPercent) {
          lastPercent = percent;
          opts.onProgress?.(percent, part.received);
        }
      }
      // the modem's speed: wait until the bytes so far would have taken that long
      if (rate > 0) {
        const due = (thisRun / rate) * 1000 - (Date.now() - started);
        if (due > 5) await sleep(due, opts.signal);
      }
    }
  } finally {
    // cut off or done: the connection goes with it
    res.destroy();
  }
  if (part.total !== null && part.received !== part.total)
    throw new DownloadError(`download cut short at ${part.received} of ${part.total} bytes`);
  return part.hash.copy().digest('hex');
}
