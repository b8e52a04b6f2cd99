import { sql, type RawBuilder } from 'kysely';
import type { OpenPrintListQuery, PrintJobState } from '@cpc/contracts/open-api';
import { PREPARED, type Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import { NO_GATE } from '../../../lib/write-gate.ts';
import {
  CANCELABLE,
  COLS,
  DELIVERIES,
  OPEN,
  withDeliveries,
  type Changed,
  type JobRow,
  type SendRow,
} from './statements.ts';

/** A device as a submit renders for it. */
export interface SubmitDevice {
  id: number;
  kind: 'printer' | 'android-terminal';
  paper_width_mm: number;
}

/** One submit's job row, its checks and content done. */
export interface JobValues {
  tenantId: number;
  keyId: number;
  /** The device it was rendered for: written only if the device is still this one, in the key's tenant. */
  device: SubmitDevice;
  originId: string;
  content: string;
  format: 'escpos' | 'markup';
  payload: Uint8Array;
  preview: string[];
  columns: number;
  copies: number;
  expireS: number;
  /** The values of the call's gate (lib/write-gate.ts) its row carries, or null. */
  gate: Record<string, unknown> | null;
}

/** What the write answers for one submit: its row (no id: not written) and its gate's answer. */
export type WrittenRow = Partial<SendRow> & {
  i: number;
  hits: number | null;
  fresh: boolean | null;
  key: unknown;
  pass: boolean | null;
  delivery_id: string | null;
};

/** A device as the open API shows it. */
export interface DeviceRow {
  id: number;
  sn: string;
  name: string;
  status: 'online' | 'offline';
  paper: 'ok' | 'out' | 'cover-open' | 'overheat';
  last_seen_at: Date | null;
  model: string;
  kind: 'printer' | 'android-terminal';
  paper_width_mm: number;
}

/** Which of one key's jobs a page shows. */
export type JobFilter = OpenPrintListQuery & { pageNo: number; pageSize: number };

const DEVICE_COLS = [
  'd.id',
  'd.sn',
  'd.name',
  'd.status',
  'd.paper',
  'd.last_seen_at',
  'm.code as model',
  'm.kind',
  'm.paper_width_mm',
] as const;

/**
 * The integrator's side of print jobs (`print_jobs`): submits, reads and cancels through an app key, and the
 * devices the open API shows (devices and their models, read for the key's tenant). A state change writes its
 * webhook deliveries in the same statement (`withDeliveries`).
 */
export class PrintJobRepository {
  constructor(private db: Db) {}

  /**
   * The job rows of a group of submits, in one statement (their order is their `seq`), with what their gates
   * carry in the same statement and commit (`gate`: the gates' CTEs, when a row has one). No row for one whose
   * gate closed, whose originId was taken, or whose device is gone or no longer the one rendered for.
   */
  async insertJobs(
    jobs: JobValues[],
    gate: RawBuilder<unknown> | undefined,
    maxAttempts: number,
  ): Promise<WrittenRow[]> {
    const data = jobs.map((j, i) => ({
      i,
      tenant_id: j.tenantId,
      app_key_id: j.keyId,
      device_id: j.device.id,
      kind: j.device.kind,
      paper: j.device.paper_width_mm,
      origin_id: j.originId,
      content: j.content,
      format: j.format,
      payload: Buffer.from(j.payload).toString('base64'),
      preview: j.preview.join('\n'),
      columns: j.columns,
      copies: j.copies,
      expire_s: j.expireS,
      g: j.gate,
    }));
    const { rows } = await sql<WrittenRow>`${PREPARED}
      WITH b AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(data)}::jsonb) AS b(i int, tenant_id bigint, app_key_id bigint,
          device_id bigint, kind text, paper int, origin_id text, content text, format text, payload text, preview text,
          columns smallint, copies smallint, expire_s float8, g jsonb)
      ), ${gate ?? NO_GATE},
      u AS (
        INSERT INTO print_jobs AS j (tenant_id, app_key_id, device_id, origin_id, content, format, payload, preview, columns, copies,
          state, attempts, sent_at, expire_at, max_attempts)
        SELECT b.tenant_id, b.app_key_id, d.id, b.origin_id, b.content, b.format, decode(b.payload, 'base64'),
          b.preview, b.columns, b.copies,
          CASE WHEN d.status = 'online' THEN 'sent' ELSE 'queued' END, CASE WHEN d.status = 'online' THEN 1 ELSE 0 END,
          CASE WHEN d.status = 'online' THEN now() END, now() + make_interval(secs => b.expire_s), ${maxAttempts}
        FROM b
        JOIN devices d ON d.id = b.device_id AND d.tenant_id = b.tenant_id
        JOIN device_models m ON m.id = d.model_id AND m.kind = b.kind AND m.paper_width_mm = b.paper
        LEFT JOIN gate ON gate.i = b.i
        WHERE b.g IS NULL OR gate.pass
        ORDER BY b.i
        ON CONFLICT (app_key_id, origin_id) DO NOTHING
        RETURNING ${COLS}, j.format, j.payload, (SELECT sn FROM devices WHERE id = j.device_id) AS sn, true AS changed
      ), ${DELIVERIES}
      SELECT b.i, gate.hits, gate.fresh, gate.key, gate.pass, u.*, w.id AS delivery_id
      FROM b LEFT JOIN gate ON gate.i = b.i
        LEFT JOIN u ON u.app_key_id = b.app_key_id AND u.origin_id = b.origin_id
        LEFT JOIN w ON w.job_id = u.id
      ORDER BY b.i`.execute(this.db);
    return rows;
  }

  /** Devices by tenant and lower-case serial number, in one statement; null for one not in that tenant. */
  async readDevices(ds: { tenantId: number; sn: string }[]): Promise<(SubmitDevice | null)[]> {
    const { rows } = await sql<{ i: number; device: SubmitDevice | null }>`${PREPARED}
      SELECT b.i, (SELECT json_build_object('id', d.id, 'kind', m.kind, 'paper_width_mm', m.paper_width_mm)
          FROM devices d JOIN device_models m ON m.id = d.model_id
          WHERE lower(d.sn) = b.sn AND d.tenant_id = b.tenant_id) AS device
      FROM jsonb_to_recordset(${JSON.stringify(ds.map((d, i) => ({ i, tenant_id: d.tenantId, sn: d.sn })))}::jsonb)
        AS b(i int, tenant_id bigint, sn text)
      ORDER BY b.i`.execute(this.db);
    return rows.map((r) => r.device);
  }

  /** A key's job of an originId. */
  async findByOrigin(keyId: number, originId: string): Promise<JobRow | undefined> {
    const { rows } = await sql<JobRow>`
      SELECT ${COLS}, d.sn FROM print_jobs j JOIN devices d ON d.id = j.device_id
      WHERE j.app_key_id = ${keyId} AND j.origin_id = ${originId}`.execute(this.db);
    return rows[0];
  }

  async findForKey(keyId: number, id: string): Promise<JobRow | undefined> {
    const { rows } = await sql<JobRow>`
      SELECT ${COLS}, d.sn FROM print_jobs j JOIN devices d ON d.id = j.device_id
      WHERE j.id = ${id} AND j.app_key_id = ${keyId}`.execute(this.db);
    return rows[0];
  }

  /** A page of a key's jobs, newest first; and their count. */
  async listForKey(keyId: number, q: JobFilter): Promise<{ rows: JobRow[]; total: number }> {
    const where = [sql`j.app_key_id = ${keyId}`];
    if (q.deviceSn) where.push(sql`lower(d.sn) = ${q.deviceSn.toLowerCase()}`);
    if (q.state) where.push(sql`j.state = ${q.state}`);
    if (q.originId) where.push(sql`j.origin_id = ${q.originId}`);
    if (q.from) where.push(sql`j.created_at >= ${q.from}::timestamptz`);
    if (q.to) where.push(sql`j.created_at < ${q.to}::timestamptz`);
    const cond = sql.join(where, sql` AND `);
    const [page, total] = await Promise.all([
      sql<JobRow>`
        SELECT ${COLS}, d.sn FROM print_jobs j JOIN devices d ON d.id = j.device_id WHERE ${cond}
        ORDER BY j.created_at DESC, j.seq DESC LIMIT ${q.pageSize} OFFSET ${(q.pageNo - 1) * q.pageSize}`.execute(
        this.db,
      ),
      sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM print_jobs j JOIN devices d ON d.id = j.device_id WHERE ${cond}`.execute(
        this.db,
      ),
    ]);
    return { rows: page.rows, total: total.rows[0].n };
  }

  private cancelWhere(where: RawBuilder<unknown>, reason: string): Promise<Changed<JobRow>[]> {
    return withDeliveries<JobRow>(
      this.db,
      sql`
      UPDATE print_jobs j SET state = 'canceled', error = ${reason}, finished_at = now(), updated_at = now()
      FROM devices d
      WHERE ${where} AND d.id = j.device_id AND ${CANCELABLE}
      RETURNING ${COLS}, d.sn, true AS changed`,
    );
  }

  /** Cancels a key's job if it was never sent. */
  cancelForKey(keyId: number, id: string, reason: string): Promise<Changed<JobRow>[]> {
    return this.cancelWhere(sql`j.id = ${id} AND j.app_key_id = ${keyId}`, reason);
  }

  /** Cancels a tenant's job if it was never sent. */
  cancelInTenant(tenantId: number, id: string, reason: string): Promise<Changed<JobRow>[]> {
    return this.cancelWhere(sql`j.id = ${id} AND j.tenant_id = ${tenantId}`, reason);
  }

  private async stateWhere(where: RawBuilder<unknown>) {
    const { rows } = await sql<{
      state: PrintJobState;
      attempts: number;
    }>`SELECT j.state, j.attempts FROM print_jobs j WHERE ${where}`.execute(this.db);
    return rows[0];
  }

  /** The state and deliveries of a key's job (why it cannot be canceled). */
  stateForKey(keyId: number, id: string) {
    return this.stateWhere(sql`j.id = ${id} AND j.app_key_id = ${keyId}`);
  }

  stateInTenant(tenantId: number, id: string) {
    return this.stateWhere(sql`j.id = ${id} AND j.tenant_id = ${tenantId}`);
  }

  /** Cancels every job of the tenant on one device that was never sent. */
  clearDevice(tenantId: number, deviceId: number): Promise<Changed<JobRow>[]> {
    return withDeliveries<JobRow>(
      this.db,
      sql`
      UPDATE print_jobs j SET state = 'canceled', error = 'the device queue was cleared', finished_at = now(), updated_at = now()
      FROM devices d
      WHERE j.id IN (
          -- locked in submission order, as a resend on hello locks them: two statements never wait on each other in a cycle
          SELECT id FROM print_jobs j WHERE device_id = ${deviceId} AND tenant_id = ${tenantId} AND ${CANCELABLE} ORDER BY seq FOR UPDATE)
        AND d.id = j.device_id AND ${CANCELABLE}
      RETURNING ${COLS}, d.sn, true AS changed`,
    );
  }

  /** A device of the tenant by serial number (any case), with its model. */
  findDevice(tenantId: number, sn: string): Promise<DeviceRow | undefined> {
    return this.db
      .selectFrom('devices as d')
      .innerJoin('device_models as m', 'm.id', 'd.model_id')
      .select(DEVICE_COLS)
      .where(sql<string>`lower(d.sn)`, '=', sn.toLowerCase())
      .where('d.tenant_id', '=', tenantId)
      .executeTakeFirst();
  }

  /** The device's unfinished jobs of the tenant. */
  async countOpenJobs(tenantId: number, deviceId: number): Promise<number> {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM print_jobs WHERE device_id = ${deviceId} AND tenant_id = ${tenantId} AND state IN ${OPEN}`.execute(
      this.db,
    );
    return rows[0].n;
  }

  /** A page of the tenant's devices by serial number, online or offline only when asked; and their count. */
  async listDevices(
    tenantId: number,
    q: { pageNo: number; pageSize: number; status?: 'online' | 'offline' },
  ): Promise<{ rows: DeviceRow[]; total: number }> {
    let base = this.db
      .selectFrom('devices as d')
      .innerJoin('device_models as m', 'm.id', 'd.model_id')
      .where('d.tenant_id', '=', tenantId);
    if (q.status) base = base.where('d.status', '=', q.status);
    const [rows, total] = await Promise.all([
      base
        .select(DEVICE_COLS)
        .orderBy('d.sn')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: total.n };
  }

  /** Whether an uploaded object is the tenant's own (an image its markup may show). */
  async ownsObject(tenantId: number, key: string): Promise<boolean> {
    const own = await this.db
      .selectFrom('objects')
      .select('key')
      .where('key', '=', key)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    return !!own;
  }
}

const JOB = '0b9e8f7a-6c5d-4e3f-8a2b-1c0d9e8f7a6b';
const job: JobValues = {
  tenantId: 3,
  keyId: 7,
  device: { id: 101, kind: 'printer', paper_width_mm: 58 },
  originId: 'order-1001',
  content: '<C>Order 1001</C>\n<CUT>',
  format: 'escpos',
  payload: Buffer.from([0x1b, 0x40]),
  preview: ['          Order 1001'],
  columns: 32,
  copies: 1,
  expireS: 86400,
  gate: null,
};
/** A stand-in for the open API's gate (its own CTEs are in src/queries/open-api.sql): the columns it defines. */
const SAMPLE_GATE = sql`gate AS (SELECT b.i, 1 AS hits, true AS fresh, NULL::jsonb AS key, true AS pass FROM b WHERE b.g IS NOT NULL)`;
const page = { pageNo: 1, pageSize: 20 };

export const jobQueries = defineQueries(PrintJobRepository, {
  insertJobs: [
    [[job, { ...job, originId: 'order-1002' }], undefined, 5],
    [[{ ...job, gate: { key_id: 7, nonce: 'n-8c1f2e' } }], SAMPLE_GATE, 5],
  ],
  readDevices: [[[{ tenantId: 3, sn: 'cpc58a0001' }]]],
  findByOrigin: [[7, 'order-1001']],
  findForKey: [[7, JOB]],
  listForKey: [
    { args: [7, page], results: [[], [{ n: 0 }]] },
    {
      args: [
        7,
        {
          ...page,
          deviceSn: 'CPC58A0001',
          state: 'printed',
          originId: 'order-1001',
          from: '2026-01-01',
          to: '2026-01-02',
        },
      ],
      results: [[], [{ n: 0 }]],
    },
  ],
  cancelForKey: [[7, JOB, 'canceled by the caller']],
  cancelInTenant: [[3, JOB, 'canceled from the console']],
  stateForKey: [[7, JOB]],
  stateInTenant: [[3, JOB]],
  clearDevice: [[3, 101]],
  findDevice: [[3, 'CPC58A0001']],
  countOpenJobs: [{ args: [3, 101], results: [[{ n: 0 }]] }],
  listDevices: [
    { args: [3, page], results: [[], [{ n: 0 }]] },
    { args: [3, { ...page, status: 'online' }], results: [[], [{ n: 0 }]] },
  ],
  ownsObject: [[3, 'tenants/3/images/logo.png']],
});
