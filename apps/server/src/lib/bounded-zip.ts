import { open, type FileHandle } from 'node:fs/promises';
import { createInflateRaw } from 'node:zlib';
import {
  ARCHIVE_MAX_DIRECTORY_BYTES,
  ARCHIVE_MAX_ENTRIES,
  ARCHIVE_MAX_RATIO,
  ARCHIVE_PARSE_CONCURRENCY,
  ARCHIVE_PARSE_QUEUE,
  ARCHIVE_RATIO_FROM_BYTES,
} from './input-limits.ts';
import { AppError, badRequest } from './app-error.ts';

/** One file of a zip, as its central directory describes it. */
export interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  /** The inflated size the directory declares: believed for nothing but the checks before inflating. */
  size: number;
  localOffset: number;
}

/**
 * Why an archive could not be read. `broken`: not a zip this reader takes (no directory, zip64, encrypted, an
 * unknown method, bytes outside the file); `missing`: no such entry; `tooLarge`: an entry declares or inflates to
 * more than the caller allows; `lies`: it inflates beyond the size its header declares; `ratio`: it declares a
 * compression ratio beyond ARCHIVE_MAX_RATIO.
 */
export class ArchiveError extends Error {
  constructor(
    readonly reason: 'broken' | 'missing' | 'tooLarge' | 'lies' | 'ratio',
    readonly entry: string | null,
    readonly detail: { limit?: number; size?: number; ratio?: number } = {},
  ) {
    super(`${reason}${entry ? `: ${entry}` : ''}`);
  }

  /** A limit was hit (as opposed to a file that is merely not a zip): the caller says which. */
  get isLimit(): boolean {
    return this.reason === 'tooLarge' || this.reason === 'lies' || this.reason === 'ratio';
  }
}

const MB = 1024 * 1024;
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/**
 * A zip on disk, read a few entries at a time without ever holding the whole file: the end record and the central
 * directory are read (bounded by ARCHIVE_MAX_DIRECTORY_BYTES / ARCHIVE_MAX_ENTRIES), then each entry asked for is
 * checked against its declared size and compression ratio before a byte is inflated, and inflated as a stream that
 * is stopped as soon as it passes the declared size (which is at most the caller's limit). Stored and deflated
 * entries only; zip64, encrypted and other methods are `broken`.
 */
export class BoundedZip {
  private constructor(
    private fh: FileHandle,
    readonly entries: Map<string, ZipEntry>,
    /** Where the central directory starts: no entry's bytes may run past it. */
    private dataEnd: number,
  ) {}

  static async open(file: string): Promise<BoundedZip> {
    const fh = await open(file, 'r').catch(() => {
      throw new ArchiveError('broken', null);
    });
    try {
      const { size } = await fh.stat();
      const tailLen = Math.min(size, 22 + 65_535);
      const tail = Buffer.alloc(tailLen);
      await fh.read(tail, 0, tailLen, size - tailLen);
      let at = -1;
      for (let i = tailLen - 22; i >= 0; i--)
        if (tail.readUInt32LE(i) === EOCD) {
          at = i;
          break;
        }
      if (at < 0) throw new ArchiveError('broken', null);
      const count = tail.readUInt16LE(at + 10);
      const dirSize = tail.readUInt32LE(at + 12);
      const dirOffset = tail.readUInt32LE(at + 16);
      const eocdPos = size - tailLen + at;
      if (count === 0xffff || dirOffset === 0xffffffff || dirSize === 0xffffffff)
        throw new ArchiveError('broken', null);
      if (count > ARCHIVE_MAX_ENTRIES || dirSize > ARCHIVE_MAX_DIRECTORY_BYTES || dirOffset + dirSize > eocdPos)
        throw new ArchiveError('broken', null);
      const dir = Buffer.alloc(dirSize);
      await fh.read(dir, 0, dirSize, dirOffset);
      const entries = new Map<string, ZipEntry>();
      let p = 0;
      for (let n = 0; n < count; n++) {
        if (p + 46 > dir.length || dir.readUInt32LE(p) !== CENTRAL) throw new ArchiveError('broken', null);
        const nameLen = dir.readUInt16LE(p + 28);
        const end = p + 46 + nameLen + dir.readUInt16LE(p + 30) + dir.readUInt16LE(p + 32);
        if (end > dir.length) throw new ArchiveError('broken', null);
        const e: ZipEntry = {
          name: dir.toString('utf8', p + 46, p + 46 + nameLen),
          flags: dir.readUInt16LE(p + 8),
          method: dir.readUInt16LE(p + 10),
          compressedSize: dir.readUInt32LE(p + 20),
          size: dir.readUInt32LE(p + 24),
          localOffset: dir.readUInt32LE(p + 42),
        };
        // the first of two entries of one name is the one read (as Android's own reader does)
        if (!entries.has(e.name)) entries.set(e.name, e);
        p = end;
      }
      return new BoundedZip(fh, entries, dirOffset);
    } catch (e) {
      await fh.close();
      throw e instanceof ArchiveError ? e : new ArchiveError('broken', null);
    }
  }

  close(): Promise<void> {
    return this.fh.close().catch(() => undefined);
  }

  /** An entry's bytes, at most `maxBytes` of them inflated (see the class). */
  async read(name: string, maxBytes: number): Promise<Buffer> {
    const e = this.entries.get(name);
    if (!e) throw new ArchiveError('missing', name);
    if (e.flags & 1 || (e.method !== 0 && e.method !== 8)) throw new ArchiveError('broken', name);
    if (e.size > maxBytes) throw new ArchiveError('tooLarge', name, { limit: maxBytes, size: e.size });
    if (e.method === 8 && e.size > ARCHIVE_RATIO_FROM_BYTES && e.size > e.compressedSize * ARCHIVE_MAX_RATIO)
      throw new ArchiveError('ratio', name, { ratio: Math.round(e.size / Math.max(1, e.compressedSize)) });
    if (e.method === 0 && e.compressedSize !== e.size) throw new ArchiveError('lies', name, { size: e.size });

    const local = Buffer.alloc(30);
    await this.fh.read(local, 0, 30, e.localOffset);
    if (local.readUInt32LE(0) !== LOCAL) throw new ArchiveError('broken', name);
    const start = e.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    if (start + e.compressedSize > this.dataEnd) throw new ArchiveError('broken', name);
    if (e.method === 0) {
      const out = Buffer.alloc(e.size);
      await this.fh.read(out, 0, e.size, start);
      return out;
    }
    return this.inflate(e, start);
  }

  /** Inflates an entry in a stream, stopped the moment it passes its declared size. */
  private inflate(e: ZipEntry, start: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const source = this.fh.createReadStream({
        start,
        end: start + e.compressedSize - 1,
        autoClose: false,
        emitClose: false,
        highWaterMark: 64 * 1024,
      });
      const inflate = createInflateRaw();
      const chunks: Buffer[] = [];
      let total = 0;
      let settled = false;
      const fail = (err: ArchiveError) => {
        if (settled) return;
        settled = true;
        source.unpipe(inflate);
        source.destroy();
        inflate.destroy();
        reject(err);
      };
      inflate.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > e.size) return fail(new ArchiveError('lies', e.name, { size: e.size }));
        chunks.push(chunk);
      });
      inflate.on('error', () => fail(new ArchiveError('broken', e.name)));
      source.on('error', () => fail(new ArchiveError('broken', e.name)));
      inflate.on('end', () => {
        if (settled) return;
        settled = true;
        resolve(Buffer.concat(chunks, total));
      });
      if (e.compressedSize === 0) inflate.end();
      else source.pipe(inflate);
    });
  }
}

/**
 * The refusal a caller shows for an archive error: limits name the entry (400 on `field`), anything else is
 * answered by `otherwise` (a module's own "not an APK" / "not a frames zip").
 */
export function archiveRefusal(e: ArchiveError, field: string, name: string, otherwise: () => AppError): AppError {
  const entry = (e.entry ?? '').slice(0, 100);
  if (e.reason === 'tooLarge')
    return badRequest(field, 'archive.entryTooLarge', { name, entry, mb: +((e.detail.limit ?? 0) / MB).toFixed(1) });
  if (e.reason === 'ratio')
    return badRequest(field, 'archive.entryRatio', { name, entry, ratio: e.detail.ratio ?? 0, max: ARCHIVE_MAX_RATIO });
  if (e.reason === 'lies') return badRequest(field, 'archive.entryLies', { name, entry, size: e.detail.size ?? 0 });
  return otherwise();
}

/**
 * A small semaphore: at most `max` holders at once, at most `queue` waiting; one more is refused (429). Reports the
 * most that ever ran at once (`peak`), for the tests.
 */
export class Slots {
  private active = 0;
  private waiting: Array<() => void> = [];
  peak = 0;

  constructor(
    readonly max: number,
    readonly queue: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) {
      if (this.waiting.length >= this.queue)
        throw new AppError(429, 'archive.busy', null, { headers: { 'retry-after': '5' } });
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.active++;
    this.peak = Math.max(this.peak, this.active);
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // the slot passes straight to the next in line (active stays the same)
      if (next) next();
      else this.active--;
    }
  }
}

/** The slots every archive this node opens (APKs, frames zips) is read in. */
export const archiveSlots = new Slots(ARCHIVE_PARSE_CONCURRENCY, ARCHIVE_PARSE_QUEUE);
