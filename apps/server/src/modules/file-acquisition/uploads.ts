import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { FILE_CHUNK_MAX_BYTES, FILE_KEEP_DAYS, OPEN_TASK_STATES } from '@cpc/contracts';
import { AppError, notFound } from '../../plugins/errors.ts';
import type { EventSink } from '../task/index.ts';
import type { AcquiredFiles } from './files.ts';
import type { FileAcquisitionRepository } from './repository.ts';

/** The parsed `Content-Range: bytes a-b/total` of a chunk (`bytes * /0` for an empty file). */
export function parseContentRange(h: string | undefined, length: number): { start: number; total: number } | null {
  if (!h) return null;
  if (/^bytes \*\/0$/.test(h.trim())) return length === 0 ? { start: 0, total: 0 } : null;
  const m = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15})$/.exec(h.trim());
  if (!m) return null;
  const [a, b, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (a > b || b >= total || b - a + 1 !== length || length > FILE_CHUNK_MAX_BYTES) return null;
  return { start: a, total };
}

/** A device's file name, reduced to a plain base name. */
function safeName(name: string): string {
  return path.posix
    .basename(name.replace(/\\/g, '/'))
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/^\.+/, '')
    .slice(-100);
}

function mimeOf(name: string): string {
  if (/\.(log|txt)$/i.test(name)) return 'text/plain';
  if (/\.zip$/i.test(name)) return 'application/zip';
  if (/\.(tgz|tar\.gz|gz)$/i.test(name)) return 'application/gzip';
  return 'application/octet-stream';
}

/** A request locked for a chunk (see FileAcquisitionRepository.lockForChunk). */
type LockedRequest = NonNullable<Awaited<ReturnType<FileAcquisitionRepository['lockForChunk']>>>;

/** What a stored chunk did to its request. */
interface ChunkResult {
  tenantId: number;
  deviceId: number;
  received: number;
  total: number;
  complete: boolean;
}

/**
 * The device's side of file requests (the signature is the credential, and it names one request): the bytes
 * received so far, the chunks, the finished file as an object; and the sweep of old requests and stale uploads.
 */
export class DeviceUploads {
  constructor(
    private repo: FileAcquisitionRepository,
    private files: AcquiredFiles,
    private events: EventSink,
  ) {}

  private get storage() {
    return this.files.storage;
  }

  /** The bytes received so far (HEAD), or a refusal. */
  async offset(requestId: number): Promise<{ offset: number; total: number }> {
    const r = await this.repo.uploadState(requestId);
    if (!r) throw notFound('file request');
    if (r.ready) throw new AppError(409, 'fileAcquisition.alreadyComplete');
    this.assertOpen(r.state, r.expire_at);
    return { offset: await this.files.receivedOf(requestId), total: Number(r.total) };
  }

  private assertOpen(state: string, expireAt: Date | string): void {
    if (!(OPEN_TASK_STATES as readonly string[]).includes(state) || new Date(expireAt) <= new Date())
      throw new AppError(409, 'fileAcquisition.closed', {
        state: new Date(expireAt) <= new Date() && state !== 'canceled' ? 'expired' : state,
      });
  }

  /**
   * One chunk (`Content-Range: bytes a-b/total`), appended where the last one ended; the last one makes the file
   * an object and the request ready. The request's row is locked meanwhile: two chunks never interleave.
   */
  async chunk(
    requestId: number,
    range: string | undefined,
    body: Buffer,
    name: string,
  ): Promise<{ offset: number; total: number; complete: boolean }> {
    const done = await this.repo.transaction(async (tx) => {
      const r = await tx.lockForChunk(requestId);
      if (!r) throw notFound('file request');
      const { cr, have } = await this.checkChunk(r, range, body);
      await this.storeChunk(requestId, cr.start, body);
      const received = have + body.length;
      const tenantId = Number(r.tenant_id);
      const result = { tenantId, deviceId: Number(r.device_id), received, total: cr.total };
      if (received < cr.total) {
        await tx.setProgress(tenantId, requestId, received, cr.total);
        return { ...result, complete: false };
      }
      await this.complete(tx, r, { received, total: cr.total }, name);
      return { ...result, complete: true } satisfies ChunkResult;
    });
    this.events.publish(
      done.tenantId,
      { type: 'fileAcquisition', data: { id: requestId, state: done.complete ? 'ready' : 'uploading' } },
      { devices: [done.deviceId] },
    );
    return { offset: done.received, total: done.total, complete: done.complete };
  }

  /** The chunk's range, checked against the request (open, size limit, total, offset); and the bytes so far. */
  private async checkChunk(r: LockedRequest, range: string | undefined, body: Buffer) {
    if (r.ready) throw new AppError(409, 'fileAcquisition.alreadyComplete');
    this.assertOpen(r.state, r.expire_at);
    const cr = parseContentRange(range, body.length);
    if (!cr)
      throw new AppError(
        400,
        'fileAcquisition.badContentRange',
        { max: FILE_CHUNK_MAX_BYTES },
        { field: 'content-range' },
      );
    if (cr.total > Number(r.max_bytes))
      throw new AppError(413, 'fileAcquisition.tooLarge', { size: cr.total, max: Number(r.max_bytes) });
    if (Number(r.total) > 0 && Number(r.total) !== cr.total)
      throw new AppError(409, 'fileAcquisition.totalChanged', { total: Number(r.total) });
    const have = await this.files.receivedOf(Number(r.id));
    if (cr.start !== have)
      throw new AppError(409, 'fileAcquisition.wrongOffset', { offset: have }, { data: { offset: have } });
    return { cr, have };
  }

  /** Appends the chunk to the local partial file, or stores it as an object of its own (S3). */
  private async storeChunk(requestId: number, start: number, body: Buffer): Promise<void> {
    const partial = this.files.partialOf(requestId);
    await fs.mkdir(path.dirname(partial), { recursive: true });
    if (!this.storage.remote) await fs.appendFile(partial, body);
    else if (body.length) await this.storage.write(`.acquiring/${requestId}/${String(start).padStart(12, '0')}`, body);
  }

  /** The last chunk arrived: the file becomes an object of the tenant and the request is ready. */
  private async complete(
    tx: FileAcquisitionRepository,
    r: LockedRequest,
    size: { received: number; total: number },
    name: string,
  ): Promise<void> {
    const requestId = Number(r.id);
    const tenantId = Number(r.tenant_id);
    const { received } = size;
    const fileName = safeName(name) || path.posix.basename(r.pattern).replace(/[*?]/g, '_') || 'file';
    const key = this.storage.newKey(fileName);
    const owner = r.created_by ?? (await tx.firstUserId(tenantId));
    await tx.insertObject(tenantId, {
      key,
      user_id: owner,
      size: received,
      mime: mimeOf(fileName),
      original_name: fileName.slice(0, 200),
    });
    await tx.markReady(tenantId, requestId, {
      received,
      total: size.total,
      object_key: key,
      size: received,
      file_name: fileName,
      completed_at: new Date(),
    });
    const partial = this.files.partialOf(requestId);
    if (received === 0) await fs.writeFile(partial, '');
    else if (this.storage.remote) {
      // the chunks, joined on this node's disk, become the object; then they go
      await fs.writeFile(partial, '');
      for (const c of await this.files.sharedChunks(requestId)) {
        const bytes = await this.storage.read(c.key);
        if (!bytes) throw notFound('file request');
        await fs.appendFile(partial, bytes);
      }
    }
    await this.storage.commit(partial, key, mimeOf(fileName));
    if (this.storage.remote) await this.files.removePartial(requestId);
  }

  /** The file of a ready request (the signed download link names it), or null. */
  async fileOf(requestId: number): Promise<{ key: string; name: string; mime: string } | null> {
    const r = await this.repo.fileOf(requestId);
    return r ? { key: r.key, name: r.file_name, mime: r.mime } : null;
  }

  /**
   * A ready file's bytes for its signed download link: a presigned link to the bucket (S3, the bytes do not pass
   * through this node), else its size and a stream of the local file; null when it is gone.
   */
  async download(
    f: { key: string; name: string; mime: string },
    ttl: number,
  ): Promise<{ link: string } | { size: number; stream: Readable } | null> {
    if (this.storage.remote) {
      const link = await this.storage.presignedGet(f.key, {
        ttl,
        contentType: f.mime === 'text/plain' ? 'text/plain; charset=utf-8' : f.mime,
        filename: f.name,
        cacheControl: 'private, no-store',
      });
      if (link) return { link };
    }
    const st = await this.storage.stat(f.key);
    const stream = st ? await this.storage.openRead(f.key) : null;
    return st && stream ? { size: st.size, stream } : null;
  }

  /**
   * Deletes requests (and their files) older than FILE_KEEP_DAYS, and the partial uploads of requests whose task
   * has closed without the file. Once across nodes (an advisory lock); answers how many requests went.
   */
  async sweep(keepDays = FILE_KEEP_DAYS): Promise<number> {
    return this.repo.transaction(async (tx) => {
      if (!(await tx.trySweepLock())) return 0;
      const old = await tx.oldRequests(new Date(Date.now() - keepDays * 86_400_000));
      const byTenant = new Map<number, number[]>();
      for (const o of old)
        byTenant.set(Number(o.tenant_id), [...(byTenant.get(Number(o.tenant_id)) ?? []), Number(o.id)]);
      for (const [tenantId, ids] of byTenant) await this.files.deleteRequests(tx, tenantId, ids);
      const dir = path.join(this.storage.directory, '.acquiring');
      const names = await fs.readdir(dir).catch(() => [] as string[]);
      const partialIds = names.filter((n) => /^\d{1,18}$/.test(n));
      if (partialIds.length) {
        const keep = new Set((await tx.stillOpen(partialIds.map(Number))).map((id) => String(id)));
        for (const n of partialIds) if (!keep.has(n)) await fs.rm(path.join(dir, n), { force: true });
      }
      return old.length;
    });
  }
}
