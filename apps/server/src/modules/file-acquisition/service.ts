import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { sql } from 'kysely';
import {
  FILE_CHUNK_MAX_BYTES,
  FILE_KEEP_DAYS,
  FILE_PRESETS,
  OPEN_TASK_STATES,
  isAllowedPath,
  type FileRequestItem,
  type FileRequestState,
  type Paged,
} from '@cpc/contracts';
import type { z } from 'zod';
import type { fileRequestBody, fileRequestListQuery } from '@cpc/contracts/file-acquisition';
import type { Db } from '../../db/database.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { dataAccessOf, inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { enqueueTasks, type ChangedTask, type EventSink, type TaskService } from '../task/index.ts';

const UPLOAD = 'device-upload';
const FILE = 'acquired-file';

/** The state the console shows, read from the request and its task (nothing to keep in step: a node may die). */
const STATE_SQL = sql<FileRequestState>`CASE
  WHEN r.ready THEN 'ready'
  WHEN t.state = 'expired' OR (t.state IN ('queued', 'sent', 'timeout') AND t.expire_at <= now()) THEN 'expired'
  WHEN t.state IN ('failed', 'canceled', 'succeeded') THEN 'failed'
  WHEN r.received > 0 THEN 'uploading'
  WHEN t.state IN ('delivered', 'running') THEN 'delivered'
  ELSE 'waiting' END`;

interface ListRow {
  id: string;
  device_id: string;
  sn: string;
  name: string;
  preset: string;
  pattern: string;
  max_bytes: string;
  state: FileRequestState;
  received: string;
  total: string;
  error: string;
  task_state: string;
  file_name: string;
  size: string;
  created_at: Date;
  expire_at: Date;
  completed_at: Date | null;
  task_id: string;
}

const toItem = (r: ListRow): FileRequestItem => ({
  id: Number(r.id),
  deviceId: Number(r.device_id),
  deviceSn: r.sn,
  deviceName: r.name,
  preset: r.preset,
  pattern: r.pattern,
  maxBytes: Number(r.max_bytes),
  state: r.state,
  progress: Number(r.total) > 0 ? Math.floor((Number(r.received) * 100) / Number(r.total)) : 0,
  error:
    r.state === 'failed'
      ? r.error || (r.task_state === 'canceled' ? 'canceled' : 'the device finished without uploading a file')
      : '',
  fileName: r.file_name,
  size: Number(r.size),
  createdAt: r.created_at.toISOString(),
  expireAt: r.expire_at.toISOString(),
  completedAt: r.completed_at?.toISOString() ?? null,
  taskId: r.task_id,
});

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

/** The signed link a device uploads its request's file to (bound to the request, expiring with its task). */
export function deviceUploadUrl(storage: ObjectStorage, requestId: number, expireAt: Date, base = ''): string {
  const exp = Math.floor(+expireAt / 1000);
  return `${base}/apiAdmin/device-files/upload/${requestId}?exp=${exp}&sig=${storage.signFor(UPLOAD, String(requestId), exp)}`;
}

/**
 * File requests (issue 15): the console asks devices for files; each device gets a `fetch_file` task and uploads
 * what matched in chunks to a signed link bound to its own request; the finished file is an object (bucket
 * 'acquired') kept FILE_KEEP_DAYS days.
 */
export class FileAcquisitionService {
  constructor(
    private db: Db,
    private storage: ObjectStorage,
    private tasks: TaskService,
    private events: EventSink,
  ) {}

  uploadUrl(requestId: number, expireAt: Date, base = ''): string {
    return deviceUploadUrl(this.storage, requestId, expireAt, base);
  }

  checkUpload(requestId: number, exp: number, sig: string): boolean {
    return this.storage.checkSigned(UPLOAD, String(requestId), exp, sig);
  }

  /** A signed link to download an acquired file, for an hour. */
  fileUrl(requestId: number, ttlS = 3600): string {
    const exp = Math.floor(Date.now() / 1000) + ttlS;
    return `/apiAdmin/device-files/acquired/${requestId}?exp=${exp}&sig=${this.storage.signFor(FILE, String(requestId), exp)}`;
  }

  checkFile(requestId: number, exp: number, sig: string): boolean {
    return this.storage.checkSigned(FILE, String(requestId), exp, sig);
  }

  /** Where the bytes received so far of a request wait (beside the objects: completing is a rename). */
  partialOf(requestId: number): string {
    return path.join(this.storage.directory, '.acquiring', String(requestId));
  }

  /**
   * With S3 (issue 17) the chunks received so far are objects of the bucket (`.acquiring/<id>/<start>`), so that
   * the next chunk may reach any node; in order, as far as they follow each other from 0.
   */
  private async sharedChunks(requestId: number): Promise<{ key: string; size: number }[]> {
    const all: { start: number; key: string; size: number }[] = [];
    for await (const o of this.storage.driver.list(`.acquiring/${requestId}/`)) {
      const m = /\/(\d{12})$/.exec(o.key);
      if (m) all.push({ start: Number(m[1]), key: o.key, size: o.size });
    }
    all.sort((a, b) => a.start - b.start);
    let at = 0;
    return all.filter((c) => c.start === at && c.size > 0 && (at += c.size) > 0);
  }

  /** How many bytes of a request have arrived. */
  private async receivedOf(requestId: number): Promise<number> {
    if (!this.storage.remote) return sizeOf(this.partialOf(requestId));
    return (await this.sharedChunks(requestId)).reduce((n, c) => n + c.size, 0);
  }

  private async removePartial(requestId: number): Promise<void> {
    await fs.rm(this.partialOf(requestId), { force: true });
    if (!this.storage.remote) return;
    const keys: string[] = [];
    for await (const o of this.storage.driver.list(`.acquiring/${requestId}/`)) keys.push(o.key);
    for (const k of keys) await this.storage.remove(k);
  }

  async create(u: AuthUser, body: z.infer<typeof fileRequestBody>): Promise<FileRequestItem[]> {
    if (!!body.preset === !!body.path)
      throw badRequest(body.preset ? 'path' : 'preset', 'fileAcquisition.whatRequired');
    if (body.path !== undefined && !isAllowedPath(body.path))
      throw badRequest('path', 'fileAcquisition.pathNotAllowed');
    const pattern = body.preset ? FILE_PRESETS[body.preset] : body.path!;
    const access = dataAccessOf(u);
    const deviceIds = [...new Set(body.deviceIds)];
    const devices = await u.scope
      .selectFrom('devices')
      .select('devices.id')
      .where('devices.id', 'in', deviceIds)
      .where(inDataScope(access))
      .execute();
    if (devices.length !== deviceIds.length) throw notFound('device');
    const expireAt = new Date(Date.now() + body.expireHours * 3600_000);
    const { ids, tasks } = await u.scope.transaction(async (tx) => {
      const { rows } = await sql<{ id: string }>`
        SELECT nextval(pg_get_serial_sequence('file_requests', 'id')) AS id
        FROM generate_series(1, ${deviceIds.length})`.execute(tx.db);
      const ids = rows.map((r) => Number(r.id));
      const tasks = await enqueueTasks(
        tx,
        deviceIds.map((deviceId, i) => ({
          deviceId,
          type: 'fetch_file' as const,
          params: {
            requestId: ids[i],
            pattern,
            preset: body.preset ?? '',
            maxBytes: body.maxBytes,
            chunkBytes: FILE_CHUNK_MAX_BYTES,
          },
          expireAt,
          createdBy: u.id,
          maxAttempts: 10,
        })),
      );
      await tx
        .insertInto(
          'file_requests',
          deviceIds.map((deviceId, i) => ({
            id: ids[i],
            device_id: deviceId,
            task_id: tasks[i].id,
            preset: body.preset ?? '',
            pattern,
            max_bytes: body.maxBytes,
            created_by: u.id,
          })),
        )
        .execute();
      return { ids, tasks };
    });
    this.tasks.announce(tasks);
    await this.tasks.dispatch(tasks.map((t) => t.id));
    ids.forEach((id, i) =>
      this.events.publish(
        u.tenantId,
        { type: 'fileAcquisition', data: { id, state: 'created' } },
        { devices: [deviceIds[i]] },
      ),
    );
    return (await this.query(u.scope, access, { ids, pageSize: ids.length })).list;
  }

  async list(u: AuthUser, q: z.infer<typeof fileRequestListQuery>): Promise<Paged<FileRequestItem>> {
    return this.query(u.scope, dataAccessOf(u), q);
  }

  private async query(
    scope: TenantScope,
    access: DataAccess,
    q: {
      ids?: number[];
      keyword?: string;
      state?: FileRequestState;
      preset?: string;
      pageNo?: number;
      pageSize?: number;
    },
  ): Promise<Paged<FileRequestItem>> {
    const conds = [sql`r.tenant_id = ${scope.tenantId}`, inDataScope(access, 'd')];
    if (q.ids) conds.push(sql`r.id = ANY(${q.ids.map(String)}::bigint[])`);
    if (q.keyword) {
      const like = `%${q.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      conds.push(
        sql`(d.sn ILIKE ${like} OR d.name ILIKE ${like} OR r.pattern ILIKE ${like} OR r.file_name ILIKE ${like})`,
      );
    }
    if (q.preset) conds.push(sql`r.preset = ${q.preset === 'path' ? '' : q.preset}`);
    const where = sql.join(conds, sql` AND `);
    const inner = sql`
      SELECT r.id, r.device_id, d.sn, d.name, r.preset, r.pattern, r.max_bytes, ${STATE_SQL} AS state, r.received,
        r.total, t.error, t.state AS task_state, r.file_name, r.size, r.created_at, t.expire_at, r.completed_at,
        r.task_id
      FROM file_requests r JOIN device_tasks t ON t.id = r.task_id JOIN devices d ON d.id = r.device_id
      WHERE ${where}`;
    const state = q.state ? sql`WHERE x.state = ${q.state}` : sql``;
    const pageSize = q.pageSize ?? 100;
    const offset = ((q.pageNo ?? 1) - 1) * pageSize;
    const { rows } = await sql<ListRow & { n: string }>`
      SELECT x.*, count(*) OVER () AS n FROM (${inner}) x ${state}
      ORDER BY x.created_at DESC, x.id DESC LIMIT ${pageSize} OFFSET ${offset}`.execute(scope.db);
    return { list: rows.map(toItem), total: Number(rows[0]?.n ?? 0) };
  }

  /** One request the caller may see (its tenant, its data scope), else 404. */
  async get(u: AuthUser, id: number): Promise<FileRequestItem & { objectKey: string | null }> {
    const item = (await this.query(u.scope, dataAccessOf(u), { ids: [id] })).list[0];
    if (!item) throw notFound('file request');
    const row = await u.scope
      .selectFrom('file_requests')
      .select('object_key')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return { ...item, objectKey: row.object_key };
  }

  /** Deletes requests (their open tasks canceled, their files and partial uploads removed). */
  async remove(u: AuthUser, ids: number[]): Promise<FileRequestItem[]> {
    const items = (await this.query(u.scope, dataAccessOf(u), { ids, pageSize: 200 })).list;
    if (items.length !== new Set(ids).size) throw notFound('file request');
    const canceled = await u.scope.transaction(async (tx) => {
      const rows = await tx
        .updateTable('device_tasks')
        .set({ state: 'canceled', error: 'request deleted', finished_at: new Date(), updated_at: new Date() })
        .where(
          'device_tasks.id',
          'in',
          items.map((i) => i.taskId),
        )
        .where('device_tasks.state', 'in', OPEN_TASK_STATES)
        .returningAll()
        .execute();
      await this.deleteRequests(tx, ids);
      return rows;
    });
    this.tasks.announce(canceled);
    for (const item of items)
      this.events.publish(
        u.tenantId,
        { type: 'fileAcquisition', data: { id: item.id, state: 'deleted' } },
        { devices: [item.deviceId] },
      );
    return items;
  }

  private async deleteRequests(tx: TenantScope, ids: number[]): Promise<void> {
    const gone = await tx.deleteFrom('file_requests').where('id', 'in', ids).returning(['id', 'object_key']).execute();
    const keys = gone.map((g) => g.object_key).filter((k): k is string => !!k);
    if (keys.length) await tx.deleteFrom('objects').where('key', 'in', keys).execute();
    for (const g of gone) {
      await this.removePartial(Number(g.id));
      if (g.object_key) await this.storage.remove(g.object_key);
    }
  }

  // ------------------------------------------------------------------------------------------------------------
  // The device's side: the signature is the credential, and it names one request

  /** The bytes received so far (HEAD), or a refusal. */
  async offset(requestId: number): Promise<{ offset: number; total: number }> {
    const r = await this.db
      .selectFrom('file_requests as r')
      .innerJoin('device_tasks as t', 't.id', 'r.task_id')
      .select(['r.ready', 'r.total', 't.state', 't.expire_at'])
      .where('r.id', '=', requestId)
      .executeTakeFirst();
    if (!r) throw notFound('file request');
    if (r.ready) throw new AppError(409, 'fileAcquisition.alreadyComplete');
    this.assertOpen(r.state, r.expire_at);
    return { offset: await this.receivedOf(requestId), total: Number(r.total) };
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
    const done = await this.db.transaction().execute(async (trx) => {
      const r = await trx
        .selectFrom('file_requests as r')
        .innerJoin('device_tasks as t', 't.id', 'r.task_id')
        .select([
          'r.id',
          'r.tenant_id',
          'r.device_id',
          'r.ready',
          'r.total',
          'r.max_bytes',
          'r.created_by',
          'r.pattern',
          't.state',
          't.expire_at',
        ])
        .where('r.id', '=', requestId)
        .forUpdate('r')
        .executeTakeFirst();
      if (!r) throw notFound('file request');
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
      const partial = this.partialOf(requestId);
      const have = await this.receivedOf(requestId);
      if (cr.start !== have)
        throw new AppError(409, 'fileAcquisition.wrongOffset', { offset: have }, { data: { offset: have } });
      await fs.mkdir(path.dirname(partial), { recursive: true });
      if (!this.storage.remote) await fs.appendFile(partial, body);
      else if (body.length)
        await this.storage.write(`.acquiring/${requestId}/${String(cr.start).padStart(12, '0')}`, body);
      const received = have + body.length;
      const scope = new TenantScope(trx, Number(r.tenant_id));
      if (received < cr.total) {
        await scope
          .updateTable('file_requests')
          .set({ received, total: cr.total })
          .where('id', '=', requestId)
          .execute();
        return {
          tenantId: Number(r.tenant_id),
          deviceId: Number(r.device_id),
          received,
          total: cr.total,
          complete: false,
        };
      }
      const fileName = safeName(name) || path.posix.basename(r.pattern).replace(/[*?]/g, '_') || 'file';
      const key = this.storage.newKey(fileName);
      const owner =
        r.created_by ?? (await scope.selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow()).id;
      await scope
        .insertInto('objects', {
          key,
          user_id: owner,
          bucket: 'acquired',
          size: received,
          mime: mimeOf(fileName),
          original_name: fileName.slice(0, 200),
        })
        .execute();
      await scope
        .updateTable('file_requests')
        .set({
          received,
          total: cr.total,
          ready: true,
          object_key: key,
          size: received,
          file_name: fileName,
          completed_at: new Date(),
        })
        .where('id', '=', requestId)
        .execute();
      if (received === 0) await fs.writeFile(partial, '');
      else if (this.storage.remote) {
        // the chunks, joined on this node's disk, become the object; then they go
        await fs.writeFile(partial, '');
        for (const c of await this.sharedChunks(requestId)) {
          const bytes = await this.storage.read(c.key);
          if (!bytes) throw notFound('file request');
          await fs.appendFile(partial, bytes);
        }
      }
      await this.storage.commit(partial, key, mimeOf(fileName));
      if (this.storage.remote) await this.removePartial(requestId);
      return {
        tenantId: Number(r.tenant_id),
        deviceId: Number(r.device_id),
        received,
        total: cr.total,
        complete: true,
      };
    });
    this.events.publish(
      done.tenantId,
      { type: 'fileAcquisition', data: { id: requestId, state: done.complete ? 'ready' : 'uploading' } },
      { devices: [done.deviceId] },
    );
    return { offset: done.received, total: done.total, complete: done.complete };
  }

  /** The file of a ready request (the signed download link names it), or null. */
  async fileOf(requestId: number): Promise<{ key: string; name: string; mime: string } | null> {
    const r = await this.db
      .selectFrom('file_requests as r')
      .innerJoin('objects as o', 'o.key', 'r.object_key')
      .select(['o.key', 'o.mime', 'r.file_name'])
      .where('r.id', '=', requestId)
      .where('r.ready', '=', true)
      .executeTakeFirst();
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

  /** Tells the consoles a request's task changed (delivered, failed, expired…). */
  onTask(row: ChangedTask): void {
    if (row.type !== 'fetch_file') return;
    const p = row.params as { requestId?: unknown } | null;
    if (typeof p?.requestId !== 'number') return;
    this.events.publish(
      row.tenant_id,
      { type: 'fileAcquisition', data: { id: p.requestId, state: row.state } },
      { devices: [Number(row.device_id)] },
    );
  }

  /**
   * Deletes requests (and their files) older than FILE_KEEP_DAYS, and the partial uploads of requests whose task
   * has closed without the file. Once across nodes (an advisory lock); answers how many requests went.
   */
  async sweep(keepDays = FILE_KEEP_DAYS): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const { rows: lock } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${SWEEP_LOCK}) AS ok`.execute(
        trx,
      );
      if (!lock[0]?.ok) return 0;
      const old = await trx
        .selectFrom('file_requests')
        .select(['id', 'tenant_id'])
        .where('created_at', '<', new Date(Date.now() - keepDays * 86_400_000))
        .limit(500)
        .execute();
      const byTenant = new Map<number, number[]>();
      for (const o of old)
        byTenant.set(Number(o.tenant_id), [...(byTenant.get(Number(o.tenant_id)) ?? []), Number(o.id)]);
      for (const [tenantId, ids] of byTenant) await this.deleteRequests(new TenantScope(trx, tenantId), ids);
      const dir = path.join(this.storage.directory, '.acquiring');
      const names = await fs.readdir(dir).catch(() => [] as string[]);
      const partialIds = names.filter((n) => /^\d{1,18}$/.test(n));
      if (partialIds.length) {
        const open = await trx
          .selectFrom('file_requests as r')
          .innerJoin('device_tasks as t', 't.id', 'r.task_id')
          .select('r.id')
          .where('r.id', 'in', partialIds.map(Number))
          .where('r.ready', '=', false)
          .where('t.state', 'in', OPEN_TASK_STATES)
          .execute();
        const keep = new Set(open.map((o) => String(o.id)));
        for (const n of partialIds) if (!keep.has(n)) await fs.rm(path.join(dir, n), { force: true });
      }
      return old.length;
    });
  }
}

/** The advisory lock key of the file-request sweep (a constant of its own). */
const SWEEP_LOCK = 0x46_41_51_01;

const sizeOf = async (file: string) => (await fs.stat(file).catch(() => null))?.size ?? 0;

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
