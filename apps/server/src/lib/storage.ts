import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What an upload token carries: the session it was minted from is checked again when the file arrives. */
export interface UploadClaims {
  tenantId: number;
  userId: number;
  sessionId: string;
  bucket: string;
}

/**
 * The server's own object storage (DESIGN §2): files on disk under DATA_DIR/objects, written only with an
 * upload token the server signed, read only through URLs the server signed.
 */
export class ObjectStorage {
  constructor(
    private root: string,
    private secret: string,
  ) {}

  private sign(s: string): string {
    return createHmac('sha256', this.secret).update(s).digest('base64url');
  }

  private verifySig(s: string, sig: string): boolean {
    const want = Buffer.from(this.sign(s));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  uploadToken(claims: UploadClaims, ttlSeconds: number): string {
    const body = Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) + ttlSeconds })).toString(
      'base64url',
    );
    return `${body}.${this.sign(`upload:${body}`)}`;
  }

  readUploadToken(token: string): UploadClaims | null {
    const [body, sig] = token.split('.');
    if (!body || !sig || !this.verifySig(`upload:${body}`, sig)) return null;
    try {
      const c = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      if (typeof c.exp !== 'number' || c.exp < Date.now() / 1000) return null;
      // a token minted before tokens named their session cannot be checked against one: refused
      if (typeof c.sessionId !== 'string' || !Number.isSafeInteger(c.tenantId) || !Number.isSafeInteger(c.userId))
        return null;
      return { tenantId: c.tenantId, userId: c.userId, sessionId: c.sessionId, bucket: c.bucket };
    } catch {
      return null;
    }
  }

  /** SPEC §7: date folder + random id + original name. */
  newKey(originalName: string, now = new Date()): string {
    const day = now.toISOString().slice(0, 10).replace(/-/g, '');
    const base = path.basename(originalName.replace(/\\/g, '/'));
    const safe =
      base
        .replace(/[^\p{L}\p{N}._-]+/gu, '_')
        .replace(/^\.+/, '')
        .slice(-100) || 'file';
    return `${day}/${randomBytes(8).toString('hex')}/${safe}`;
  }

  /**
   * A signature of `purpose:subject:exp` (issue 15: a device's download or upload link bound to one task), checked by
   * `checkSigned`; `exp` in Unix seconds.
   */
  signFor(purpose: string, subject: string, exp: number): string {
    return this.sign(`${purpose}:${subject}:${exp}`);
  }

  checkSigned(purpose: string, subject: string, exp: number, sig: string): boolean {
    return Number.isFinite(exp) && exp >= Date.now() / 1000 && this.verifySig(`${purpose}:${subject}:${exp}`, sig);
  }

  /** The folder the objects live in (a key is a path below it). */
  get directory(): string {
    return this.root;
  }

  /** The file of an object's key (refused when the key would leave the storage folder). */
  pathOf(key: string): string {
    return this.fileOf(key);
  }

  private fileOf(key: string): string {
    const p = path.resolve(this.root, key);
    if (!p.startsWith(path.resolve(this.root) + path.sep)) throw new Error('key outside storage');
    return p;
  }

  /**
   * Writes an incoming file under `.tmp` (same disk, so `commit` is a rename). The caller moves it into place
   * once its row is committed, or discards it; a failed or aborted stream leaves nothing behind.
   */
  async receive(stream: Readable): Promise<{ temp: string; size: number }> {
    const dir = path.join(this.root, '.tmp');
    await fs.mkdir(dir, { recursive: true });
    if (!this.swept) {
      this.swept = true;
      await this.sweepTemp(dir).catch(() => undefined);
    }
    const temp = path.join(dir, randomBytes(12).toString('hex'));
    let size = 0;
    stream.on('data', (chunk: Buffer) => (size += chunk.length));
    try {
      await pipeline(stream, createWriteStream(temp, { flags: 'wx' }));
    } catch (e) {
      await this.discard(temp);
      throw e;
    }
    return { temp, size };
  }

  /** Moves a received file to its key; it never replaces a file already there. */
  async commit(temp: string, key: string): Promise<void> {
    const file = this.fileOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.link(temp, file);
    await this.discard(temp);
  }

  private swept = false;
  /** What a crash mid-upload left, once per process; only old files, as another node may share the folder. */
  private async sweepTemp(dir: string, maxAgeMs = 3_600_000): Promise<void> {
    for (const name of await fs.readdir(dir)) {
      const file = path.join(dir, name);
      const st = await fs.stat(file).catch(() => null);
      if (st && Date.now() - st.mtimeMs > maxAgeMs) await this.discard(file);
    }
  }

  discard(temp: string): Promise<void> {
    return fs.rm(temp, { force: true });
  }

  /** The object's bytes, or null when its file is not on disk. */
  async read(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.fileOf(key));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  signedUrl(key: string, ttlSeconds = 3600): string {
    const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
    const encoded = key.split('/').map(encodeURIComponent).join('/');
    return `/apiAdmin/objects/${encoded}?exp=${exp}&sig=${this.sign(`get:${key}:${exp}`)}`;
  }

  checkSignedUrl(key: string, exp: number, sig: string): boolean {
    return Number.isFinite(exp) && exp >= Date.now() / 1000 && this.verifySig(`get:${key}:${exp}`, sig);
  }
}
