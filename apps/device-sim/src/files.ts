import { gzipSync } from 'node:zlib';
import type { PrintedJob } from './device.ts';

/**
 * The simulator's answer to a file request (issue 15, task type `fetch_file`): the files a printer has (a system
 * log, a print log made of what it printed, a crash dump), matched against the request's path pattern (`*` and `?`
 * within one path segment), one file uploaded as it is and several as one `.tar.gz`, in chunks to the signed upload
 * link: `PUT` with `Content-Range: bytes a-b/total`, and after an interruption `HEAD` for the offset the server has,
 * then on from there.
 */

/** What the device knows that its files are made of. */
export interface FileSource {
  sn: string;
  model: string;
  firmware: string;
  bootedAt: number;
  printed: readonly PrintedJob[];
}

/** A file on the simulated device. */
export interface DeviceFile {
  path: string;
  bytes: Buffer;
}

const stamp = (t: number) => new Date(t).toISOString().replace('T', ' ').replace('Z', '');

/** The files this device has now (generated from its state: the print log lists what it really printed). */
export function deviceFiles(s: FileSource): DeviceFile[] {
  const boot = s.bootedAt;
  const sys = [
    `${stamp(boot)} I/init: booting ${s.model} firmware ${s.firmware}`,
    `${stamp(boot + 800)} I/netd: modem attached, LTE`,
    `${stamp(boot + 1500)} I/cloud: mqtt connecting as ${s.sn}`,
    `${stamp(boot + 1900)} I/cloud: mqtt connected, hello sent`,
    `${stamp(boot + 2100)} I/printer: head ok, paper ok, 58 mm`,
    ...Array.from({ length: 40 }, (_, i) => `${stamp(boot + 30_000 * (i + 1))} D/cloud: heartbeat ${i + 1}`),
  ];
  const printLog = s.printed.length
    ? s.printed.flatMap((j) => [
        `${stamp(j.at)} job ${j.id} attempt ${j.attempt} copies ${j.copies} lines ${j.lines.length}`,
        ...j.lines.map((l) => `  | ${l}`),
      ])
    : [`${stamp(boot)} no jobs printed since boot`];
  const tomb = [
    '*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***',
    `Build fingerprint: 'cpc/${s.model}/${s.firmware}:user/release-keys'`,
    `Timestamp: ${stamp(boot - 3_600_000)}`,
    'pid: 812, tid: 845, name: PrinterService  >>> com.cpc.printer <<<',
    'signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000008',
    'backtrace:',
    '  #00 pc 000000000004b2c0  /system/lib64/libescpos.so (raster_line+96)',
    '  #01 pc 000000000004a118  /system/lib64/libescpos.so (print_bitmap+312)',
    '  #02 pc 00000000000f0a3c  /system/lib64/libprinter_jni.so',
  ];
  const text = (lines: string[]) => Buffer.from(lines.join('\n') + '\n', 'utf8');
  return [
    { path: '/data/log/system/system.log', bytes: text(sys) },
    { path: '/data/log/print/print.log', bytes: text(printLog) },
    { path: '/data/tombstones/tombstone_00', bytes: text(tomb) },
    { path: '/sdcard/Download/readme.txt', bytes: text([`Cloud printer ${s.sn}`]) },
  ];
}

/** Whether `path` matches the pattern (`*`: any run within a segment, `?`: one character). */
export function matches(pattern: string, path: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  return new RegExp(`^${re}$`).test(path);
}

/** A ustar archive of the files, gzipped (one upload for several matches). */
export function tarGz(files: DeviceFile[], mtime = Date.now()): Buffer {
  const blocks: Buffer[] = [];
  for (const f of files) {
    const h = Buffer.alloc(512);
    const name = f.path.replace(/^\//, '').slice(-99);
    h.write(name, 0, 'utf8');
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(f.bytes.length.toString(8).padStart(11, '0') + '\0', 124);
    h.write(
      Math.floor(mtime / 1000)
        .toString(8)
        .padStart(11, '0') + '\0',
      136,
    );
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0' + '00', 257);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(h, f.bytes, Buffer.alloc((512 - (f.bytes.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** What a request found on the device: the file to upload and its name, or why there is none. */
export function collect(
  source: FileSource,
  pattern: string,
  maxBytes: number,
): { ok: true; name: string; bytes: Buffer; count: number } | { ok: false; error: string } {
  const found = deviceFiles(source).filter((f) => matches(pattern, f.path));
  if (!found.length) return { ok: false, error: 'no such file' };
  const one = found.length === 1 ? found[0] : null;
  const bytes = one ? one.bytes : tarGz(found);
  const name = one ? one.path.split('/').pop()! : `${source.sn}-files.tar.gz`;
  if (bytes.length > maxBytes) return { ok: false, error: `file too large (${bytes.length} bytes)` };
  return { ok: true, name, bytes, count: found.length };
}

export interface UploadOptions {
  /** Chunk size (the server takes at most 8 MB). */
  chunkBytes: number;
  onProgress?: (percent: number) => void | Promise<void>;
  /** Chunks to cut off on purpose (a lost connection), each followed by a HEAD and a resume. */
  interruptions?: { left: number };
  /** Upload speed, bytes per second (unlimited when absent). */
  bytesPerSecond?: number;
  /** How many failed attempts in a row end the upload. */
  maxRetries?: number;
  retryMs?: number;
}

/** A refusal from the server (4xx): the upload cannot go on. */
export class UploadRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Uploads `bytes` to the signed link in chunks; resumes after an interruption from the offset the server has. */
export async function uploadChunked(url: string, name: string, bytes: Buffer, o: UploadOptions): Promise<void> {
  const total = bytes.length;
  const putUrl = `${url}&name=${encodeURIComponent(name)}`;
  let offset = 0;
  let failures = 0;
  const refusal = async (res: Response) => {
    const body = (await res.json().catch(() => null)) as { msg?: string } | null;
    return new UploadRefused(res.status, body?.msg ?? `HTTP ${res.status}`);
  };
  for (;;) {
    const end = total === 0 ? 0 : Math.min(total, offset + o.chunkBytes);
    const chunk = bytes.subarray(offset, end);
    try {
      const ac = new AbortController();
      const cut = o.interruptions && o.interruptions.left > 0 && offset > 0;
      if (cut) o.interruptions!.left--;
      const sending = fetch(putUrl, {
        method: 'PUT',
        headers: {
          'content-type': 'application/octet-stream',
          'content-range': total === 0 ? 'bytes */0' : `bytes ${offset}-${end - 1}/${total}`,
        },
        body: new Uint8Array(chunk),
        signal: ac.signal,
      });
      if (cut) ac.abort(new Error('connection lost'));
      const res = await sending;
      if (res.status === 409) {
        // the server has a different offset (an earlier chunk did arrive after all): ask it and go on from there
        const head = await fetch(url, { method: 'HEAD' });
        // the last chunk had arrived (its answer was lost): the file is complete
        if (head.status === 409 && end === total && failures > 0) return;
        if (!head.ok) throw await refusal(res);
        offset = Number(head.headers.get('upload-offset') ?? 0);
        continue;
      }
      if (!res.ok) throw await refusal(res);
      const answer = (await res.json()) as { data: { offset: number; complete: boolean } };
      if (o.bytesPerSecond) await sleep((chunk.length / o.bytesPerSecond) * 1000);
      offset = answer.data.offset;
      failures = 0;
      await o.onProgress?.(total ? Math.floor((offset * 100) / total) : 100);
      if (answer.data.complete) return;
    } catch (e) {
      if (e instanceof UploadRefused) throw e;
      if (++failures > (o.maxRetries ?? 5)) throw e;
      await sleep(o.retryMs ?? 200);
      // where were we? the server knows
      const head = await fetch(url, { method: 'HEAD' }).catch(() => null);
      if (head?.ok) offset = Number(head.headers.get('upload-offset') ?? 0);
      else if (head && head.status >= 400 && head.status < 500)
        throw new UploadRefused(head.status, `HTTP ${head.status}`);
    }
  }
}

/** The device's side of a `fetch_file` task: collect, upload in chunks (reporting %), then the outcome. */
export async function fetchFile(
  d: FileSource & {
    device: {
      uploadInterruptions: { left: number };
      uploadBytesPerSecond: number | undefined;
      uploadChunkBytes: number | undefined;
    };
  },
  m: { params: Record<string, unknown> },
  progress: (percent: number) => Promise<void>,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const p = m.params;
  if (typeof p.uploadUrl !== 'string' || typeof p.pattern !== 'string') return { ok: false, error: 'bad request' };
  const maxBytes = typeof p.maxBytes === 'number' ? p.maxBytes : 20 * 1024 ** 2;
  const found = collect(d, p.pattern, maxBytes);
  if (!found.ok) return found;
  const chunkBytes = Math.min(
    d.device.uploadChunkBytes ?? Number.POSITIVE_INFINITY,
    typeof p.chunkBytes === 'number' ? p.chunkBytes : 8 * 1024 ** 2,
  );
  try {
    await progress(0);
    let last = 0;
    await uploadChunked(p.uploadUrl, found.name, found.bytes, {
      chunkBytes,
      interruptions: d.device.uploadInterruptions,
      bytesPerSecond: d.device.uploadBytesPerSecond,
      onProgress: async (pct) => {
        // at most every 10 % (and the end): progress is for people, not a byte counter
        if (pct - last >= 10 || pct === 100) {
          last = pct;
          await progress(pct);
        }
      },
    });
    return { ok: true };
  } catch (e) {
    return { ok: false, error: `upload failed: ${(e as Error).message}`.slice(0, 200) };
  }
}
