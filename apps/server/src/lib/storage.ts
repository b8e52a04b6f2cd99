import fs from 'node:fs/promises';
import path from 'node:path';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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

  uploadToken(claims: { tenantId: number; userId: number; bucket: string }, ttlSeconds: number): string {
    const body = Buffer.from(JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) + ttlSeconds })).toString('base64url');
    return `${body}.${this.sign(`upload:${body}`)}`;
  }

  readUploadToken(token: string): { tenantId: number; userId: number; bucket: string } | null {
    const [body, sig] = token.split('.');
    if (!body || !sig || !this.verifySig(`upload:${body}`, sig)) return null;
    try {
      const c = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
      if (typeof c.exp !== 'number' || c.exp < Date.now() / 1000) return null;
      return { tenantId: c.tenantId, userId: c.userId, bucket: c.bucket };
    } catch {
      return null;
    }
  }

  /** SPEC §7: date folder + random id + original name. */
  newKey(originalName: string, now = new Date()): string {
    const day = now.toISOString().slice(0, 10).replace(/-/g, '');
    const base = path.basename(originalName.replace(/\\/g, '/'));
    const safe = base.replace(/[^\p{L}\p{N}._-]+/gu, '_').replace(/^\.+/, '').slice(-100) || 'file';
    return `${day}/${randomBytes(8).toString('hex')}/${safe}`;
  }

  private fileOf(key: string): string {
    const p = path.resolve(this.root, key);
    if (!p.startsWith(path.resolve(this.root) + path.sep)) throw new Error('key outside storage');
    return p;
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const file = this.fileOf(key);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, bytes, { flag: 'wx' });
  }

  read(key: string): Promise<Buffer> {
    return fs.readFile(this.fileOf(key));
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
