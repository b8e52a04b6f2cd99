import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PresignOptions, StorageDriver } from './driver.ts';
import { LocalDriver } from './local.ts';
import { parseS3Url } from './url.ts';

export type { PresignOptions, StorageDriver, StoredObject } from './driver.ts';
export { attachmentHeader } from './driver.ts';
export { LocalDriver } from './local.ts';
export { parseS3Url, type S3Location } from './url.ts';

/** How long a presigned link to the bucket lives for a device download (a resumed download asks the node again). */
export const PRESIGNED_TTL_S = 600;

/** What an upload token carries: the session it was minted from is checked again when the file arrives. */
export interface UploadClaims {
  tenantId: number;
  userId: number;
  sessionId: string;
  bucket: string;
}

/**
 * The driver `STORAGE_URL` names (issue 17): unset or `file://…` the local folder `localRoot` (DATA_DIR/objects,
 * the embedded default), `s3://bucket?endpoint=…` an S3 bucket every node shares.
 */
export async function storageDriver(storageUrl: string | undefined, localRoot: string): Promise<StorageDriver> {
  if (!storageUrl) return new LocalDriver(localRoot);
  if (storageUrl.startsWith('file:')) {
    const p = new URL(storageUrl).pathname;
    return new LocalDriver(p && p !== '/' ? decodeURIComponent(p) : localRoot);
  }
  const loc = parseS3Url(storageUrl);
  // the SDK is loaded only by a node that uses it
  const { S3Driver } = await import('./s3.ts');
  return new S3Driver(loc);
}

/**
 * The server's object storage (DESIGN §2): written only with an upload token the server signed, read only through
 * URLs the server signed. The bytes live where the driver keeps them (a local folder, or S3 shared by every node);
 * an incoming file is first staged on the node's own disk under `directory` (`.tmp`, `.uploads`, `.acquiring`), its
 * bytes checked there, and only then committed to the driver — a refused file never reaches the bucket.
 */
export class ObjectStorage {
  readonly driver: StorageDriver;
  constructor(
    private root: string,
    private secret: string,
    driver?: StorageDriver,
  ) {
    this.driver = driver ?? new LocalDriver(root);
  }

  /** True when objects are in a bucket shared by the nodes (downloads go by presigned links to it). */
  get remote(): boolean {
    return this.driver.kind !== 'local';
  }

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

  /** The node's own folder: the local objects (local driver) and the staging areas of uploads (any driver). */
  get directory(): string {
    return this.root;
  }

  /**
   * The local file of an object's key with the local driver (refused when the key would leave the folder), null
   * when objects are remote: read them with `read`/`openRead`, or hand out `presignedGet`.
   */
  localPathOf(key: string): string | null {
    return this.driver instanceof LocalDriver ? this.driver.fileOf(key) : null;
  }

  /** The folder of the local driver's objects (DATA_DIR/objects or STORAGE_URL's file:// path), null with S3. */
  get localRoot(): string | null {
    return this.driver instanceof LocalDriver ? this.driver.root : null;
  }

  /** The local file of an object's key (local driver only: throws with S3). */
  pathOf(key: string): string {
    const p = this.localPathOf(key);
    if (p === null) throw new Error('objects are not on this disk');
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

  /**
   * Moves a received (and checked) file to its key: a hard link on the local disk (never replacing a file already
   * there), an upload to the bucket with S3. The staged file is gone afterwards.
   */
  async commit(temp: string, key: string, contentType?: string): Promise<void> {
    const { size } = await fs.stat(temp);
    await this.driver.putFile(key, temp, size, contentType);
    await this.discard(temp);
  }

  /** Stores bytes made by the server itself (an APK's icon, a fetched image). */
  write(key: string, bytes: Buffer, contentType?: string): Promise<void> {
    return this.driver.putBytes(key, bytes, contentType);
  }

  /** Deletes an object (nothing when it is not there). */
  remove(key: string): Promise<void> {
    return this.driver.remove(key);
  }

  stat(key: string): Promise<{ size: number } | null> {
    return this.driver.stat(key);
  }

  openRead(key: string): Promise<Readable | null> {
    return this.driver.openRead(key);
  }

  /** A presigned GET link to the object in the bucket, or null with the local driver (the node serves it). */
  presignedGet(key: string, opts: PresignOptions): Promise<string | null> {
    return this.driver.presignGet(key, opts);
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

  /** The object's bytes, or null when it is not stored. */
  read(key: string): Promise<Buffer | null> {
    return this.driver.read(key);
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
