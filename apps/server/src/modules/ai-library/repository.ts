import { sql } from 'kysely';
import type { OcrError, OcrJob, OcrLine } from '@cpc/contracts';
import { defineQueries } from '../../db/query-spec.ts';
import { inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { Repository } from '../../db/repository.ts';

/** An OCR job as `ocr_jobs` holds it. */
export interface OcrJobRow {
  id: string;
  tenant_id: string;
  state: OcrJob['state'];
  source: OcrJob['source'];
  app_key_id: string | null;
  image_key: string;
  file_name: string;
  size: string;
  mime: string;
  text: string;
  lines: OcrLine[];
  language: string;
  duration_ms: number | null;
  error: string;
  print: { deviceSn: string; copies: number } | null;
  print_job_id: string | null;
  attempts: number;
  created_by: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date;
}

/** What a new job is stored with. */
export interface OcrJobValues {
  source: 'console' | 'open';
  app_key_id?: number | null;
  created_by?: number | null;
  image_key: string;
  own_image: boolean;
  file_name: string;
  size: number;
  mime: string;
  print?: { deviceSn: string; copies: number } | null;
}

/** What a recognition gave (nothing when it failed). */
export interface Recognised {
  text: string;
  lines: OcrLine[];
  language: string;
  durationMs: number;
}

/**
 * Every statement of the AI library: `ocr_jobs` (the durable queue, its results and their upkeep), and what it
 * reads of uploaded objects, devices, app keys and users, and the system-log entries of its actions.
 */
export class AiLibraryRepository extends Repository {
  /** Waits for the tenant's other submissions: its count of active jobs stays true until this one commits. */
  async lockTenantJobs(tenantId: number): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtext('ocr_jobs'), ${tenantId}::int)`.execute(this.db);
  }

  /** How many of the tenant's jobs are queued or running (the submission's check, under the tenant's lock). */
  async countActive(tenantId: number): Promise<number> {
    const { n } = await this.scope(tenantId)
      .selectFrom('ocr_jobs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('state', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  /** Adds a job, queued; its id. */
  async insertJob(tenantId: number, values: OcrJobValues): Promise<number> {
    const { id } = await this.scope(tenantId)
      .insertInto('ocr_jobs', { ...values, print: values.print ? JSON.stringify(values.print) : null })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(id);
  }

  /** The tenant's job, or undefined. */
  async findJob(tenantId: number, id: number): Promise<OcrJobRow | undefined> {
    const { rows } = await sql<OcrJobRow>`SELECT * FROM ocr_jobs WHERE tenant_id = ${tenantId} AND id = ${id}`.execute(
      this.db,
    );
    return rows[0];
  }

  /** The tenant's uploaded object `key`: key, original name and size; or undefined. */
  findObject(tenantId: number, key: string) {
    return this.scope(tenantId)
      .selectFrom('objects')
      .select(['key', 'original_name', 'size'])
      .where('key', '=', key)
      .executeTakeFirst();
  }

  /** Whether the tenant has a device of this serial number (any case). */
  async hasDeviceSn(tenantId: number, sn: string): Promise<boolean> {
    const device = await this.scope(tenantId)
      .selectFrom('devices')
      .select('id')
      .where(sql<string>`lower(devices.sn)`, '=', sn.toLowerCase())
      .executeTakeFirst();
    return device !== undefined;
  }

  /** Which jobs a reader sees: those `createdBy` made (a data scope of `own`), or all of the tenant (null). */
  private visible(createdBy: number | null) {
    return createdBy !== null ? sql`j.created_by = ${createdBy}` : sql`true`;
  }

  /** A page of the tenant's jobs the reader sees (by state), newest first, with their makers' usernames; how many. */
  async listPage(
    tenantId: number,
    createdBy: number | null,
    q: { pageNo: number; pageSize: number; state?: OcrJob['state'] },
  ) {
    const where = sql`j.tenant_id = ${tenantId} AND ${this.visible(createdBy)} ${q.state ? sql`AND j.state = ${q.state}` : sql``}`;
    const [{ rows }, { rows: total }] = await Promise.all([
      sql<OcrJobRow & { username: string | null }>`
        SELECT j.*, u.username FROM ocr_jobs j LEFT JOIN users u ON u.id = j.created_by
        WHERE ${where} ORDER BY j.created_at DESC, j.id DESC
        LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(this.db),
      sql<{ n: string }>`SELECT count(*) AS n FROM ocr_jobs j WHERE ${where}`.execute(this.db),
    ]);
    return { rows, total: Number(total[0]?.n ?? 0) };
  }

  /** The tenant's job if the reader sees it, with its maker's username; or undefined. */
  async findVisible(tenantId: number, createdBy: number | null, id: number) {
    const { rows } = await sql<OcrJobRow & { username: string | null }>`
      SELECT j.*, u.username FROM ocr_jobs j LEFT JOIN users u ON u.id = j.created_by
      WHERE j.tenant_id = ${tenantId} AND j.id = ${id} AND ${this.visible(createdBy)}`.execute(this.db);
    return rows[0];
  }

  /** The tenant's job made through the app key `keyId`, or undefined. */
  async findForKey(tenantId: number, keyId: number, id: number): Promise<OcrJobRow | undefined> {
    const { rows } = await sql<OcrJobRow>`
      SELECT * FROM ocr_jobs WHERE tenant_id = ${tenantId} AND app_key_id = ${keyId} AND id = ${id}`.execute(this.db);
    return rows[0];
  }

  /** How many of the tenant's jobs are queued or running (the status shown to the console). */
  async activeCount(tenantId: number): Promise<number> {
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM ocr_jobs WHERE tenant_id = ${tenantId} AND state IN ('queued', 'running')`.execute(
      this.db,
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** The serial number of the tenant's device in the data scope, or undefined. */
  async deviceSnInReach(tenantId: number, access: DataAccess, deviceId: number): Promise<string | undefined> {
    const device = await this.scope(tenantId)
      .selectFrom('devices')
      .select(['devices.sn'])
      .where('devices.id', '=', deviceId)
      .where(inDataScope(access))
      .executeTakeFirst();
    return device?.sn;
  }

  /** The tenant's active app key `keyId` (or, none given, its first active one): its id, or undefined. */
  async activeKeyId(tenantId: number, keyId?: number): Promise<number | undefined> {
    let keys = this.scope(tenantId).selectFrom('app_keys').select('app_keys.id').where('app_keys.state', '=', 'active');
    keys = keyId ? keys.where('app_keys.id', '=', keyId) : keys.orderBy('app_keys.id').limit(1);
    const key = await keys.executeTakeFirst();
    return key?.id;
  }

  /** Takes up to `n` queued jobs, oldest first, skipping those another node is taking; running, leased. */
  async takeQueued(n: number, leaseS: number): Promise<OcrJobRow[]> {
    const { rows } = await sql<OcrJobRow>`
      UPDATE ocr_jobs j SET state = 'running', started_at = now(), attempts = j.attempts + 1,
        lease_until = now() + make_interval(secs => ${leaseS})
      WHERE j.id IN (SELECT id FROM ocr_jobs WHERE state = 'queued' ORDER BY created_at, id LIMIT ${n}
        FOR UPDATE SKIP LOCKED)
      RETURNING j.*`.execute(this.db);
    return rows;
  }

  /**
   * A run's outcome, if the job is still the take `attempts` of this node (running: not requeued meanwhile); the
   * job, or undefined.
   */
  async finishRun(
    id: string,
    attempts: number,
    result: Recognised | null,
    error: OcrError | '',
  ): Promise<OcrJobRow | undefined> {
    const { rows } = await sql<OcrJobRow>`
      UPDATE ocr_jobs SET state = ${result ? 'done' : 'failed'}, text = ${result?.text ?? ''},
        lines = ${JSON.stringify(result?.lines ?? [])}::jsonb, language = ${result?.language ?? ''},
        duration_ms = ${result?.durationMs ?? null}, error = ${error}, finished_at = now(), lease_until = NULL
      WHERE id = ${id} AND state = 'running' AND attempts = ${attempts}
      RETURNING *`.execute(this.db);
    return rows[0];
  }

  /** The print job of a job's receipt. */
  async setPrintJob(id: string, printJobId: string): Promise<void> {
    await sql`UPDATE ocr_jobs SET print_job_id = ${printJobId} WHERE id = ${id}`.execute(this.db);
  }

  async setError(id: string, error: OcrError): Promise<void> {
    await sql`UPDATE ocr_jobs SET error = ${error} WHERE id = ${id}`.execute(this.db);
  }

  /** Running jobs whose lease ran out go back to the queue, or fail after `maxAttempts` takes; those jobs. */
  async requeueStale(maxAttempts: number): Promise<OcrJobRow[]> {
    const { rows } = await sql<OcrJobRow>`
      UPDATE ocr_jobs SET
        state = CASE WHEN attempts >= ${maxAttempts} THEN 'failed' ELSE 'queued' END,
        error = CASE WHEN attempts >= ${maxAttempts} THEN ${'timeout' satisfies OcrError} ELSE error END,
        finished_at = CASE WHEN attempts >= ${maxAttempts} THEN now() END,
        lease_until = NULL
      WHERE state = 'running' AND lease_until < now()
      RETURNING *`.execute(this.db);
    return rows;
  }

  /** Deletes the jobs past their keeping time; their images and whether each job stored its own. */
  async deleteExpired(): Promise<Array<{ image_key: string; own_image: boolean }>> {
    const { rows } = await sql<{ image_key: string; own_image: boolean }>`
      DELETE FROM ocr_jobs WHERE expires_at < now() RETURNING image_key, own_image`.execute(this.db);
    return rows;
  }
}

const own: DataAccess = { scope: 'own', tenantId: 3, userId: 7, departmentId: null, departmentPath: null };

export const queries = defineQueries(AiLibraryRepository, {
  lockTenantJobs: [[3]],
  countActive: [{ args: [3], results: [[{ n: '2' }]] }],
  insertJob: [
    {
      args: [
        3,
        {
          source: 'console',
          created_by: 7,
          image_key: 'tenants/3/upload/invoice.png',
          own_image: false,
          file_name: 'invoice.png',
          size: 245_760,
          mime: 'image/png',
        },
      ],
      results: [[{ id: '51' }]],
    },
    {
      args: [
        3,
        {
          source: 'open',
          app_key_id: 4,
          image_key: 'tenants/3/ocr/receipt.jpg',
          own_image: true,
          file_name: 'receipt.jpg',
          size: 180_224,
          mime: 'image/jpeg',
          print: { deviceSn: 'PR-0041', copies: 1 },
        },
      ],
      results: [[{ id: '52' }]],
    },
  ],
  findJob: [[3, 51]],
  findObject: [[3, 'tenants/3/upload/invoice.png']],
  hasDeviceSn: [[3, 'PR-0041']],
  listPage: [
    [3, null, { pageNo: 1, pageSize: 20 }],
    [3, 7, { pageNo: 2, pageSize: 20, state: 'done' }],
  ],
  findVisible: [
    [3, null, 51],
    [3, 7, 51],
  ],
  findForKey: [[3, 4, 52]],
  activeCount: [[3]],
  deviceSnInReach: [[3, own, 41]],
  activeKeyId: [[3], [3, 4]],
  takeQueued: [[2, 120]],
  finishRun: [
    ['51', 1, { text: '合计 42.00', lines: [], language: 'chi_sim+eng', durationMs: 1830 }, ''],
    ['51', 2, null, 'unreadable'],
  ],
  setPrintJob: [['52', '7d1f0c2e-8a4b-4c3d-9e5f-6a7b8c9d0e1f']],
  setError: [['52', 'print_failed']],
  requeueStale: [[3]],
  deleteExpired: [[]],
});
