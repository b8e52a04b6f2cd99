import fs from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  PACKAGE_CHUNK_MAX_BYTES,
  PACKAGE_MAX_BYTES,
  PACKAGE_UPLOAD_TTL_S,
  PERMISSIONS,
  chunkedUploadCreate,
  chunkedUploadState,
  envelopeSchema,
  type ChunkedUploadState,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { ObjectStorage, UploadClaims } from '../../lib/storage.ts';
import { hasPermission, loadAuthUser, type AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound, ok } from '../../plugins/errors.ts';
import { PACKAGE_UPLOADS_MAX_UNFINISHED, PACKAGE_UPLOADS_MAX_UNFINISHED_BYTES } from '../../lib/input-limits.ts';
import { PackageRepository } from './repository.ts';

/** The permissions that can turn an upload into a package (firmware, app, AI model): only they get to stage one. */
export const PACKAGE_EDIT_PERMISSIONS = [
  PERMISSIONS.upgradeEdit,
  PERMISSIONS.applicationEdit,
  PERMISSIONS.aiLibraryEdit,
] as const;

/** Refuses (403) a caller that holds none of PACKAGE_EDIT_PERMISSIONS: a package upload is of no use to them. */
export function assertMayUploadPackages(u: AuthUser): void {
  if (!PACKAGE_EDIT_PERMISSIONS.some((p) => hasPermission(u, p))) throw new AppError(403, 'package.uploadNeedsEdit');
}

const GB = 1024 ** 3;

/** What an unfinished upload keeps beside its bytes (`<id>.json` next to `<id>.part`). */
export interface UploadMeta {
  tenantId: number;
  userId: number;
  name: string;
  size: number;
  createdAt: number;
}

const ID = /^[0-9a-f]{24}$/;
/** A lock older than this was left by a node that died mid-chunk. */
const STALE_LOCK_MS = 10 * 60_000;

/** Where an unfinished upload's state is in the bucket (S3): `<id>/meta.json` and a `<start>` object per chunk. */
const SHARED = '.uploads/';

/**
 * Unfinished package uploads (issue 15) on the objects' disk (`objects/.uploads`), so that finishing one is a
 * rename. The state is on disk only (the bytes' length is the offset), so any node sharing DATA_DIR resumes it.
 * With S3 (issue 17) the state is in the bucket instead, one object per chunk, so any node resumes it; the node
 * that finishes it joins the chunks on its disk (`assemble`) to check the bytes before the package is stored.
 */
export class ChunkedUploads {
  readonly dir: string;
  constructor(private storage: ObjectStorage) {
    this.dir = path.join(storage.directory, '.uploads');
  }

  private file(id: string, ext: 'part' | 'json' | 'lock'): string {
    if (!ID.test(id)) throw notFound('upload');
    return path.join(this.dir, `${id}.${ext}`);
  }

  /**
   * Starts an upload, within the tenant's room for unfinished ones (PACKAGE_UPLOADS_MAX_UNFINISHED uploads and
   * PACKAGE_UPLOADS_MAX_UNFINISHED_BYTES of declared sizes, else 429). Two starts of one tenant must not run at
   * once (the route holds a lock) or both could take the last place.
   */
  async create(tenantId: number, userId: number, name: string, size: number): Promise<ChunkedUploadState> {
    if (size > PACKAGE_MAX_BYTES)
      throw badRequest('size', 'package.uploadTooLarge', { n: PACKAGE_MAX_BYTES / 1024 ** 3 });
    const held = await this.unfinished(tenantId);
    if (held.count + 1 > PACKAGE_UPLOADS_MAX_UNFINISHED || held.bytes + size > PACKAGE_UPLOADS_MAX_UNFINISHED_BYTES)
      throw new AppError(429, 'package.uploadQuota', {
        n: held.count,
        gb: +(held.bytes / GB).toFixed(2),
        max: PACKAGE_UPLOADS_MAX_UNFINISHED,
        maxGb: PACKAGE_UPLOADS_MAX_UNFINISHED_BYTES / GB,
      });
    await fs.mkdir(this.dir, { recursive: true });
    const id = randomBytes(12).toString('hex');
    const meta: UploadMeta = { tenantId, userId, name, size, createdAt: Date.now() };
    if (this.storage.remote) {
      await this.storage.write(`${SHARED}${id}/meta.json`, Buffer.from(JSON.stringify(meta)), 'application/json');
      return this.stateOf(id, meta, 0);
    }
    await fs.writeFile(this.file(id, 'part'), '', { flag: 'wx' });
    await fs.writeFile(this.file(id, 'json'), JSON.stringify(meta), { flag: 'wx' });
    return this.stateOf(id, meta, 0);
  }

  /** The tenant's unfinished uploads that have not expired: how many, and their declared sizes added up. */
  async unfinished(tenantId: number, now = Date.now()): Promise<{ count: number; bytes: number }> {
    const metas: UploadMeta[] = [];
    if (this.storage.remote) {
      for await (const o of this.storage.driver.list(SHARED)) {
        if (!/^\.uploads\/[0-9a-f]{24}\/meta\.json$/.test(o.key)) continue;
        const raw = await this.storage.read(o.key);
        if (raw) metas.push(JSON.parse(raw.toString('utf8')) as UploadMeta);
      }
    } else {
      for (const name of await fs.readdir(this.dir).catch(() => [] as string[])) {
        if (!/^[0-9a-f]{24}\.json$/.test(name)) continue;
        const raw = await fs.readFile(path.join(this.dir, name), 'utf8').catch(() => null);
        if (raw) metas.push(JSON.parse(raw) as UploadMeta);
      }
    }
    const live = metas.filter((m) => m.tenantId === tenantId && now - m.createdAt <= PACKAGE_UPLOAD_TTL_S * 1000);
    return { count: live.length, bytes: live.reduce((n, m) => n + m.size, 0) };
  }

  private stateOf(id: string, meta: UploadMeta, offset: number): ChunkedUploadState {
    return {
      uploadId: id,
      name: meta.name,
      size: meta.size,
      offset,
      expiresAt: new Date(meta.createdAt + PACKAGE_UPLOAD_TTL_S * 1000).toISOString(),
      chunkSize: PACKAGE_CHUNK_MAX_BYTES,
    };
  }

  /** The upload of this tenant (another tenant's, or a missing one: 404; an expired one is removed: 410). */
  async open(id: string, tenantId: number): Promise<{ meta: UploadMeta; offset: number; part: string }> {
    if (this.storage.remote) return this.openShared(id, tenantId);
    const raw = await fs.readFile(this.file(id, 'json'), 'utf8').catch(() => null);
    const meta = raw ? (JSON.parse(raw) as UploadMeta) : null;
    if (!meta || meta.tenantId !== tenantId) throw notFound('upload');
    if (Date.now() - meta.createdAt > PACKAGE_UPLOAD_TTL_S * 1000) {
      await this.remove(id);
      throw new AppError(410, 'package.uploadExpired');
    }
    const st = await fs.stat(this.file(id, 'part')).catch(() => null);
    if (!st) throw notFound('upload');
    return { meta, offset: st.size, part: this.file(id, 'part') };
  }

  /** The chunks in the bucket, in order, as far as they follow each other from 0. */
  private async chunksOf(id: string): Promise<{ key: string; size: number }[]> {
    const all: { start: number; key: string; size: number }[] = [];
    for await (const o of this.storage.driver.list(`${SHARED}${id}/`)) {
      const m = /\/(\d{12})$/.exec(o.key);
      if (m) all.push({ start: Number(m[1]), key: o.key, size: o.size });
    }
    all.sort((a, b) => a.start - b.start);
    const chunks: { key: string; size: number }[] = [];
    let at = 0;
    for (const c of all) {
      if (c.start !== at || c.size === 0) continue;
      chunks.push(c);
      at += c.size;
    }
    return chunks;
  }

  private async openShared(id: string, tenantId: number) {
    if (!ID.test(id)) throw notFound('upload');
    const raw = await this.storage.read(`${SHARED}${id}/meta.json`);
    const meta = raw ? (JSON.parse(raw.toString('utf8')) as UploadMeta) : null;
    if (!meta || meta.tenantId !== tenantId) throw notFound('upload');
    if (Date.now() - meta.createdAt > PACKAGE_UPLOAD_TTL_S * 1000) {
      await this.remove(id);
      throw new AppError(410, 'package.uploadExpired');
    }
    const offset = (await this.chunksOf(id)).reduce((n, c) => n + c.size, 0);
    return { meta, offset, part: this.file(id, 'part') };
  }

  /** With S3: joins the upload's chunks into `part` on this node's disk (its bytes are read to check them). */
  async assemble(id: string, part: string): Promise<void> {
    if (!this.storage.remote) return;
    await fs.mkdir(this.dir, { recursive: true });
    const out = createWriteStream(part, { flags: 'w' });
    try {
      for (const c of await this.chunksOf(id)) {
        const bytes = await this.storage.openRead(c.key);
        if (!bytes) throw notFound('upload');
        await pipeline(bytes, out, { end: false });
      }
    } finally {
      await new Promise<void>((resolve) => out.end(resolve));
    }
  }

  async state(id: string, tenantId: number): Promise<ChunkedUploadState> {
    const { meta, offset } = await this.open(id, tenantId);
    return this.stateOf(id, meta, offset);
  }

  /**
   * Runs `work` holding the upload's lock (a file made exclusively, so two nodes cannot write one upload at once):
   * a second writer is told to retry (409).
   */
  async locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    const lock = this.file(id, 'lock');
    // with S3 another node may have started the upload: this node's folder may not be there yet
    await fs.mkdir(this.dir, { recursive: true });
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx' });
    } catch {
      const st = await fs.stat(lock).catch(() => null);
      if (st && Date.now() - st.mtimeMs < STALE_LOCK_MS) throw new AppError(409, 'package.uploadBusy');
      await fs.writeFile(lock, String(process.pid));
    }
    try {
      return await work();
    } finally {
      await fs.rm(lock, { force: true });
    }
  }

  /**
   * Appends one chunk starting at `start` (must be the offset), at most `end - start + 1` bytes. Bytes that arrived
   * before a cut are kept: the client asks for the offset and goes on from there.
   */
  async append(
    id: string,
    tenantId: number,
    range: { start: number; end: number; total: number },
    body: Readable,
  ): Promise<ChunkedUploadState> {
    return this.locked(id, async () => {
      const { meta, offset, part } = await this.open(id, tenantId);
      if (range.total !== meta.size || range.end >= meta.size) throw badRequest('content-range', 'package.uploadRange');
      if (range.start !== offset)
        throw new AppError(409, 'package.uploadOffset', { got: range.start, offset }, { data: { offset } });
      const want = range.end - range.start + 1;
      let got = 0;
      let over = false;
      // with S3 the chunk is staged on this node, then stored as one object of the upload
      const shared = this.storage.remote;
      if (shared) await fs.mkdir(this.dir, { recursive: true });
      const target = shared ? `${part}.${randomBytes(4).toString('hex')}` : part;
      const out = createWriteStream(target, { flags: shared ? 'wx' : 'a' });
      await new Promise<void>((resolve) => {
        let finished = false;
        const done = () => {
          if (finished) return;
          finished = true;
          body.off('data', onData);
          out.end(() => resolve());
        };
        const onData = (chunk: Buffer) => {
          const room = want - got;
          if (chunk.length > room) {
            over = true;
            if (room > 0) out.write(chunk.subarray(0, room));
            got = want;
            body.pause();
            done();
            return;
          }
          got += chunk.length;
          if (!out.write(chunk)) {
            body.pause();
            out.once('drain', () => body.resume());
          }
        };
        body.on('data', onData);
        body.once('end', done);
        body.once('error', done);
        body.once('close', done);
      });
      if (shared) {
        try {
          if (!over && got > 0)
            await this.storage.commit(target, `${SHARED}${id}/${String(range.start).padStart(12, '0')}`);
        } finally {
          await this.storage.discard(target);
        }
        if (over) throw badRequest('content-range', 'package.uploadRange');
        return this.stateOf(id, meta, offset + got);
      }
      if (over) {
        await fs.truncate(part, offset);
        throw badRequest('content-range', 'package.uploadRange');
      }
      return this.stateOf(id, meta, offset + got);
    });
  }

  async remove(id: string): Promise<void> {
    await Promise.all((['part', 'json', 'lock'] as const).map((e) => fs.rm(this.file(id, e), { force: true })));
    if (this.storage.remote) {
      const keys: string[] = [];
      for await (const o of this.storage.driver.list(`${SHARED}${id}/`)) keys.push(o.key);
      for (const k of keys) await this.storage.remove(k);
    }
  }

  /** Removes the uploads older than 24 hours (run periodically). Answers how many. */
  async sweep(now = Date.now()): Promise<number> {
    if (this.storage.remote) {
      let gone = 0;
      const metas: string[] = [];
      for await (const o of this.storage.driver.list(SHARED)) {
        const m = /^\.uploads\/([0-9a-f]{24})\/meta\.json$/.exec(o.key);
        if (m) metas.push(m[1]!);
      }
      for (const id of metas) {
        const raw = await this.storage.read(`${SHARED}${id}/meta.json`);
        const created = raw ? (JSON.parse(raw.toString('utf8')) as UploadMeta).createdAt : 0;
        if (now - created > PACKAGE_UPLOAD_TTL_S * 1000) {
          await this.remove(id);
          gone++;
        }
      }
      return gone;
    }
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    let n = 0;
    for (const name of names) {
      const m = /^([0-9a-f]{24})\.json$/.exec(name);
      if (!m) continue;
      const raw = await fs.readFile(path.join(this.dir, name), 'utf8').catch(() => null);
      const created = raw ? (JSON.parse(raw) as UploadMeta).createdAt : 0;
      if (now - created > PACKAGE_UPLOAD_TTL_S * 1000) {
        await this.remove(m[1]!);
        n++;
      }
    }
    return n;
  }
}

const RANGE = /^bytes (\d{1,12})-(\d{1,12})\/(\d{1,12})$/;

/** A chunk's `Content-Range: bytes start-end/total`, within the chunk and package limits (else 400). */
function chunkRange(header: unknown): { start: number; end: number; total: number } {
  const m = RANGE.exec(String(header ?? ''));
  if (!m) throw badRequest('content-range', 'package.uploadRange');
  const [start, end, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (end < start) throw badRequest('content-range', 'package.uploadRange');
  if (end - start + 1 > PACKAGE_CHUNK_MAX_BYTES)
    throw badRequest('content-range', 'package.chunkTooLarge', { n: PACKAGE_CHUNK_MAX_BYTES / 1024 ** 2 });
  if (total > PACKAGE_MAX_BYTES)
    throw badRequest('content-range', 'package.uploadTooLarge', { n: PACKAGE_MAX_BYTES / 1024 ** 3 });
  return { start, end, total };
}

/**
 * `/upload/chunks`: the chunked, resumable upload of packages (≤ 2 GiB). Every request carries an upload token of the
 * `package` bucket in `x-upload-token` (bound to the session it was minted from, like every upload token).
 */
export const chunkedUploadRoutes: FastifyPluginAsyncZod<{
  db: Db;
  storage: ObjectStorage;
  uploads: ChunkedUploads;
}> = async (app, { db, storage, uploads }) => {
  const packages = new PackageRepository(db);
  // a chunk's bytes are read as a stream by the handler (up to 16 MB), never buffered by a parser
  app.addContentTypeParser('application/offset+octet-stream', (_req, payload, done) => done(null, payload));
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload));

  const claimsOf = async (req: FastifyRequest): Promise<UploadClaims> => {
    const header = req.headers['x-upload-token'];
    const claims = typeof header === 'string' ? storage.readUploadToken(header) : null;
    if (!claims || claims.bucket !== 'package') throw new AppError(401, 'upload.tokenInvalid');
    // the token's holder as they are now: a permission taken away since it was issued stops the next chunk
    assertMayUploadPackages(await loadAuthUser(db, claims.userId, claims.tenantId, claims.sessionId));
    return claims;
  };
  const idParams = z.object({ id: z.string().regex(ID, 'rule.uploadId') }).strict();
  const state = envelopeSchema(chunkedUploadState);

  app.post(
    '/upload/chunks',
    {
      config: { auth: false },
      schema: {
        tags: ['upload'],
        summary: 'Start a chunked package upload (header x-upload-token: a `package` upload token)',
        body: chunkedUploadCreate,
        response: { 200: state },
      },
    },
    async (req) => {
      const c = await claimsOf(req);
      // one start of a tenant at a time, on every node: the room left is counted, then taken
      return ok(
        await packages.withUploadStartLock(c.tenantId, () =>
          uploads.create(c.tenantId, c.userId, req.body.name, req.body.size),
        ),
      );
    },
  );

  app.get(
    '/upload/chunks/:id',
    {
      config: { auth: false },
      schema: {
        tags: ['upload'],
        summary: 'Where an upload stands: the offset the next chunk starts at (also as header upload-offset)',
        params: idParams,
        response: { 200: state },
      },
    },
    async (req, reply) => {
      const c = await claimsOf(req);
      const s = await uploads.state(req.params.id, c.tenantId);
      reply.header('upload-offset', String(s.offset)).header('upload-length', String(s.size));
      reply.header('cache-control', 'no-store');
      return ok(s);
    },
  );

  app.put(
    '/upload/chunks/:id',
    {
      config: { auth: false },
      schema: {
        tags: ['upload'],
        summary: 'Append a chunk: Content-Range bytes start-end/size, start = the offset, ≤ 16 MB',
        params: idParams,
        response: { 200: state },
      },
    },
    async (req, reply) => {
      const body = req.body as Readable | undefined;
      try {
        const c = await claimsOf(req);
        if (!body || typeof (body as Readable).on !== 'function')
          throw badRequest('content-range', 'package.uploadRange');
        const s = await uploads.append(req.params.id, c.tenantId, chunkRange(req.headers['content-range']), body);
        reply.header('upload-offset', String(s.offset));
        return ok(s);
      } finally {
        // what was refused, or not read, is drained so the connection stays usable
        if (body && typeof body.resume === 'function' && !body.readableEnded) body.resume();
      }
    },
  );
};
