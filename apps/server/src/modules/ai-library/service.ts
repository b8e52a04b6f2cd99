import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import {
  OCR_ACCEPT,
  OCR_MAX_BYTES,
  type LiveEvent,
  type OcrJob,
  type OcrError,
  type OcrListQuery,
  type OcrPrintBody,
  type OcrPrinted,
  type OcrStatus,
  type OpenOcrBody,
  type OpenOcrJob,
  type Paged,
} from '@cpc/contracts';
import { escapeMarkup } from '@cpc/contracts/print-markup';
import { OCR_MAX_PIXELS } from '../../lib/input-limits.ts';
import type { Db } from '../../db/database.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { changedFields } from '../../lib/audit.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import type { PrintService } from '../print/index.ts';
import type { OcrPool, OcrResult } from './engine.ts';
import { AiLibraryRepository, type OcrJobRow as Row, type OcrJobValues } from './repository.ts';

export interface OcrEvents {
  publish(tenantId: number, event: LiveEvent): void;
}
export interface OcrOptions {
  /** Jobs a tenant may have queued or running at once. */
  tenantLimit: number;
  /** How often a node looks for queued jobs (besides being told of its own new ones). */
  pollMs: number;
  /** A running job whose node has not finished it in this time goes back to the queue (its node died). */
  leaseS: number;
  /** Takes of a job before it fails for good. */
  maxAttempts: number;
}
/** The key an open-API call is signed with. */
export interface OcrKey {
  id: number;
  tenantId: number;
}
interface Actor {
  tenantId: number;
  userId: number;
  ip: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const IMAGE_GONE = 'image_gone';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A receipt holds at most this many lines of recognised text. */
const RECEIPT_LINES = 200;

/**
 * Cloud OCR jobs. `ocr_jobs` is the durable queue: every node runs a loop that takes queued jobs with
 * `FOR UPDATE SKIP LOCKED` up to its pool's size and recognises them in the pool (worker threads); a job whose node
 * died goes back to the queue when its lease runs out; results are deleted 7 days after the job was made.
 */
export class OcrService {
  private timer: NodeJS.Timeout | null = null;
  private running = new Set<Promise<void>>();
  private stopped = true;
  private working = false;
  private again = false;
  private repo: AiLibraryRepository;

  constructor(
    db: Db,
    private storage: ObjectStorage,
    private events: OcrEvents,
    private prints: PrintService,
    readonly pool: OcrPool,
    readonly opts: OcrOptions,
    private log: { warn(obj: object, msg: string): void },
  ) {
    this.repo = new AiLibraryRepository(db);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Submitting

  /**
   * Checks the image by its bytes: jpg, png or webp, at most 10 MB, and at most OCR_MAX_PIXELS by its header (read
   * without decoding: a 10 MB png of 100,000 × 100,000 pixels would decode to 40 GB in the recogniser).
   */
  private async checkImage(bytes: Buffer, field: string): Promise<string> {
    if (bytes.length > OCR_MAX_BYTES) throw badRequest(field, 'ai.tooLarge', { n: OCR_MAX_BYTES / 1024 / 1024 });
    const type = bytes.length ? await fileTypeFromBuffer(bytes) : undefined;
    if (!type || !(OCR_ACCEPT as readonly string[]).includes(type.mime)) throw badRequest(field, 'ai.notImage');
    const meta = await sharp(bytes, { limitInputPixels: false })
      .metadata()
      .catch(() => null);
    if (!meta?.width || !meta.height) throw badRequest(field, 'ai.notImage');
    if (meta.width * meta.height > OCR_MAX_PIXELS)
      throw badRequest(field, 'ai.tooManyPixels', {
        width: meta.width,
        height: meta.height,
        max: OCR_MAX_PIXELS / 1_000_000,
      });
    return type.mime;
  }

  /** Inserts a job unless the tenant has `tenantLimit` queued or running (checked under a per-tenant lock). */
  private async insertJob(tenantId: number, values: OcrJobValues): Promise<Row> {
    const row = await this.repo.transaction(async (tx) => {
      await tx.lockTenantJobs(tenantId);
      const n = await tx.countActive(tenantId);
      if (n >= this.opts.tenantLimit)
        throw new AppError(
          429,
          'ai.tenantLimit',
          { n: this.opts.tenantLimit },
          { data: { reason: 'ocr_limit', limit: this.opts.tenantLimit }, headers: { 'retry-after': '5' } },
        );
      const id = await tx.insertJob(tenantId, values);
      return this.row(tenantId, id, tx);
    });
    this.publish(row);
    this.kick();
    return row!;
  }

  /** A console job from an image uploaded through the upload flow (an object of the caller's tenant). */
  async submit(user: AuthUser, actor: Actor, objectKey: string): Promise<OcrJob> {
    const obj = await this.repo.findObject(user.tenantId, objectKey);
    if (!obj) throw notFound('image');
    const bytes = await this.storage.read(obj.key);
    if (!bytes) throw notFound('image');
    const mime = await this.checkImage(bytes, 'objectKey');
    const row = await this.insertJob(user.tenantId, {
      source: 'console',
      created_by: user.id,
      image_key: obj.key,
      own_image: false,
      file_name: obj.original_name,
      size: bytes.length,
      mime,
    });
    await this.repo.audit({
      ...actor,
      action: 'aiLibrary.submit',
      resource: 'ocr_job',
      resourceId: row.id,
      result: 'ok',
      changes: changedFields(
        {},
        { objectKey: obj.key, fileName: obj.original_name, size: bytes.length, state: 'queued' },
      ),
    });
    return this.toItem(row, user.username);
  }

  /** An open-API job: the image comes base64 in the call and is stored with the job (deleted with it). */
  async submitOpen(key: OcrKey, body: OpenOcrBody, ip: string): Promise<OpenOcrJob> {
    const b64 = body.image.replace(/^data:[\w/+.-]+;base64,/, '').replace(/\s+/g, '');
    if (!BASE64.test(b64) || b64.length % 4 === 1) throw badRequest('image', 'ai.notBase64');
    const bytes = Buffer.from(b64, 'base64');
    const mime = await this.checkImage(bytes, 'image');
    if (body.print) {
      if (!(await this.repo.hasDeviceSn(key.tenantId, body.print.deviceSn))) throw notFound('device');
    }
    const name = (body.fileName ?? '').replace(/[\p{Cc}/\\]/gu, '').slice(0, 200) || `image.${mime.split('/')[1]}`;
    const imageKey = this.storage.newKey(name);
    const { temp } = await this.storage.receive(Readable.from([bytes]));
    await this.storage.commit(temp, imageKey);
    let row: Row;
    try {
      row = await this.insertJob(key.tenantId, {
        source: 'open',
        app_key_id: key.id,
        image_key: imageKey,
        own_image: true,
        file_name: name,
        size: bytes.length,
        mime,
        print: body.print ?? null,
      });
    } catch (e) {
      await this.removeImage(imageKey);
      throw e;
    }
    await this.repo.audit({
      tenantId: key.tenantId,
      ip,
      action: 'aiLibrary.submit',
      resource: 'ocr_job',
      resourceId: row.id,
      result: 'ok',
      details: { appKeyId: key.id },
      changes: changedFields({}, { fileName: name, size: bytes.length, state: 'queued', print: body.print ?? null }),
    });
    return this.toOpen(row);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Reading

  /** The tenant's job (read through `repo`, maybe bound to a transaction), else 404. */
  private async row(tenantId: number, id: number, repo = this.repo): Promise<Row> {
    const row = await repo.findJob(tenantId, id);
    if (!row) throw notFound('recognition job');
    return row;
  }

  /** A role whose data scope is `own` sees the jobs its user made (their maker); wider scopes see the tenant's. */
  private maker(user: AuthUser): number | null {
    return dataAccessOf(user).scope === 'own' ? user.id : null;
  }

  async list(user: AuthUser, q: OcrListQuery): Promise<Paged<OcrJob>> {
    const { rows, total } = await this.repo.listPage(user.tenantId, this.maker(user), q);
    return { list: rows.map((r) => this.toItem(r, r.username)), total };
  }

  async get(user: AuthUser, id: number): Promise<OcrJob> {
    const row = await this.repo.findVisible(user.tenantId, this.maker(user), id);
    if (!row) throw notFound('recognition job');
    return this.toItem(row, row.username);
  }

  async getOpen(key: OcrKey, id: number): Promise<OpenOcrJob> {
    const row = await this.repo.findForKey(key.tenantId, key.id, id);
    if (!row) throw notFound('recognition job');
    return this.toOpen(row);
  }

  async status(tenantId: number): Promise<OcrStatus> {
    const active = await this.repo.activeCount(tenantId);
    return { active, limit: this.opts.tenantLimit, workers: this.pool.size };
  }

  private toItem(r: Row, username: string | null | undefined): OcrJob {
    return {
      id: Number(r.id),
      state: r.state,
      source: r.source,
      fileName: r.file_name,
      size: Number(r.size),
      mime: r.mime,
      imageUrl: this.storage.signedUrl(r.image_key),
      text: r.text,
      lines: r.lines,
      language: r.language,
      durationMs: r.duration_ms,
      error: r.error,
      createdBy: username ?? null,
      createdAt: r.created_at.toISOString(),
      startedAt: iso(r.started_at),
      finishedAt: iso(r.finished_at),
      expiresAt: r.expires_at.toISOString(),
    };
  }

  private toOpen(r: Row): OpenOcrJob {
    return {
      id: Number(r.id),
      state: r.state,
      text: r.text,
      lines: r.lines,
      language: r.language,
      durationMs: r.duration_ms,
      error: r.error,
      printJobId: r.print_job_id,
      createdAt: r.created_at.toISOString(),
      finishedAt: iso(r.finished_at),
    };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Printing

  /** The receipt: a title, the file and the time, the recognised lines, a cut. */
  receipt(r: Pick<Row, 'file_name' | 'text' | 'finished_at' | 'created_at'>): string {
    const at = (r.finished_at ?? r.created_at).toISOString().slice(0, 19).replace('T', ' ');
    const lines = r.text.split('\n').slice(0, RECEIPT_LINES).map(escapeMarkup);
    return [
      '<C><B>文字识别 Text recognition</B></C>',
      '<HR>',
      `${escapeMarkup(r.file_name)}`,
      `${at} UTC`,
      '<HR>',
      ...lines,
      '<HR>',
      '<CUT>',
    ].join('\n');
  }

  private async printRow(r: Row, keyId: number, deviceSn: string, copies: number) {
    if (r.state !== 'done') throw new AppError(409, 'ai.notDone');
    if (!r.text.trim()) throw new AppError(409, 'ai.emptyText');
    const { job } = await this.prints.submit(
      { id: keyId, tenantId: Number(r.tenant_id) },
      { deviceSn, content: this.receipt(r), copies, originId: `ai-ocr-${r.id}-${randomUUID().slice(0, 8)}` },
    );
    return job;
  }

  /** Prints a done job's text on a device of the caller's data scope, under an active app key of the tenant. */
  async print(user: AuthUser, actor: Actor, id: number, body: OcrPrintBody): Promise<OcrPrinted> {
    await this.get(user, id);
    const r = await this.row(user.tenantId, id);
    const sn = await this.repo.deviceSnInReach(user.tenantId, dataAccessOf(user), body.deviceId);
    if (sn === undefined) throw notFound('device');
    const keyId = await this.repo.activeKeyId(user.tenantId, body.keyId);
    if (keyId === undefined) throw body.keyId ? notFound('app key') : badRequest('keyId', 'ai.noAppKey');
    const job = await this.printRow(r, keyId, sn, body.copies);
    await this.repo.audit({
      ...actor,
      action: 'aiLibrary.print',
      resource: 'ocr_job',
      resourceId: id,
      result: 'ok',
      changes: changedFields({}, { deviceId: body.deviceId, printJobId: job.id, copies: body.copies }),
    });
    return { printJobId: job.id, state: job.state };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // The worker loop

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.opts.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for queued jobs now (coalesced: one look at a time, one more if asked while looking). */
  kick(): void {
    if (this.stopped) return;
    if (this.working) {
      this.again = true;
      return;
    }
    this.working = true;
    void this.take()
      .catch(() => {})
      .finally(() => {
        this.working = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Takes as many queued jobs as the pool has free workers, oldest first, and runs them. */
  private async take(): Promise<void> {
    const free = this.pool.size - this.running.size;
    if (free <= 0) return;
    const rows = await this.repo.takeQueued(free, this.opts.leaseS);
    for (const r of rows) {
      this.publish(r);
      const run: Promise<void> = this.run(r).finally(() => {
        this.running.delete(run);
        this.kick();
      });
      this.running.add(run);
    }
  }

  private async run(r: Row): Promise<void> {
    let result: OcrResult | null = null;
    let error: OcrError | '' = '';
    try {
      const bytes = await this.storage.read(r.image_key);
      if (!bytes) throw new Error(IMAGE_GONE);
      result = await this.pool.recognize(bytes);
    } catch (e) {
      error = (e as Error).message === IMAGE_GONE ? 'image_gone' : 'unreadable';
      this.log.warn({ err: e, job: r.id }, 'ocr: recognition failed');
    }
    if (this.stopped && !result) return; // closing: the job goes back to the queue when its lease runs out
    const done = await this.repo.finishRun(r.id, r.attempts, result, error);
    if (!done) return;
    if (done.state === 'done' && done.print && done.app_key_id && done.text.trim()) {
      try {
        const job = await this.printRow(done, Number(done.app_key_id), done.print.deviceSn, done.print.copies ?? 1);
        done.print_job_id = job.id;
        await this.repo.setPrintJob(done.id, job.id);
      } catch (e) {
        this.log.warn({ err: e, job: done.id }, 'ocr: printing the receipt failed');
        done.error = 'print_failed' satisfies OcrError;
        await this.repo.setError(done.id, 'print_failed');
      }
    }
    this.publish(done);
  }

  /**
   * Upkeep (one node at a time is not needed: each statement is safe on its own): running jobs whose lease ran out
   * go back to the queue, or fail after `maxAttempts` takes; jobs past their 7 days are deleted with the images they
   * stored. Returns the numbers for tests.
   */
  async sweep(): Promise<{ requeued: number; deleted: number }> {
    const stale = await this.repo.requeueStale(this.opts.maxAttempts);
    stale.forEach((r) => this.publish(r));
    const gone = await this.repo.deleteExpired();
    for (const g of gone) if (g.own_image) await this.removeImage(g.image_key);
    if (stale.some((r) => r.state === 'queued')) this.kick();
    return { requeued: stale.length, deleted: gone.length };
  }

  private async removeImage(key: string): Promise<void> {
    await this.storage.remove(key).catch(() => {});
  }

  private publish(r: Pick<Row, 'id' | 'tenant_id' | 'state'>): void {
    this.events.publish(Number(r.tenant_id), { type: 'aiLibrary', data: { id: Number(r.id), state: r.state } });
  }

  /** Stops taking jobs and waits for those under way; the pool is closed after. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.running]);
    await this.pool.close();
  }
}
