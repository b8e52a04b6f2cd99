import { sql, type RawBuilder } from 'kysely';
import {
  CANCEL_REFUSED_REASON,
  PRINT_EXPIRE_DEFAULT_S,
  type OpenClearResult,
  type OpenDevice,
  type OpenDeviceStatus,
  type OpenPrintJob,
  type OpenPrintListQuery,
  type PrintJobState,
} from '@cpc/contracts/open-api';
import type { Paged } from '@cpc/contracts';
import type { AckMsg, PrintMsg, ProgressMsg, ResultMsg } from '@cpc/contracts/device-protocol';
import { PREPARED, type Db } from '../../db/database.ts';
import { AppError, notFound } from '../../plugins/errors.ts';
import type { PreparedContent, PrintContent } from './content.ts';
import { GroupCommit } from '../../lib/group-commit.ts';
import { NO_GATE, type GateAnswer, type WriteGate } from '../../lib/write-gate.ts';
import type { DeviceBus } from '../../plugins/mqtt/device-bus.ts';

/** Where print messages go: this node's link to the devices. */
export interface PrintDownlink {
  /** Publishes now (used while handling the device's own hello, in its order). */
  print(sn: string, msg: PrintMsg): Promise<void>;
  /** Publishes after whatever is already being sent to or handled for the device (its hello's resends). */
  printAfterPending(sn: string, msg: PrintMsg): void;
}
/** Where new webhook deliveries are announced (the webhook sender queues them). */
export interface WebhookOutbox {
  enqueue(deliveryIds: string[]): void;
}
export interface PrintOptions {
  /** A sent job without an ack for this long times out. */
  ackTimeoutS: number;
  /** Back-off before the n-th resend of a timed-out job: base × 2^(n−1) seconds. */
  retryBackoffS: number;
  /** Deliveries an online printer may leave unacknowledged before the job fails. */
  maxAttempts: number;
  /**
   * How long the printers' acks, progress and results wait for others to share their transaction (ms; default
   * 5). Submits wait for no window: they share a commit only with those that arrived while one was in flight.
   */
  deviceWindowMs?: number;
  /**
   * How long positive acks and progress, which nobody waits on, wait for others (ms; default 50): a printer's
   * `delivered` and `printing` show up to this much later, and printers reporting one by one share commits.
   */
  deviceLazyWindowMs?: number;
  /**
   * A job an online printer took (delivered, printing) without a word since for this long is sent again: the
   * printer reports its result again (a result lost with a server node that died holding it) and never prints
   * it twice. Default 60.
   */
  resultTimeoutS?: number;
}
/** The app key a call is signed with. */
export interface PrintKey {
  id: number;
  tenantId: number;
}
export interface SubmitInput {
  deviceSn: string;
  content: string;
  copies: number;
  originId: string;
  expireInSec?: number;
}

/** A device as a submit renders for it. */
interface SubmitDevice {
  id: number;
  kind: 'printer' | 'android-terminal';
  paper_width_mm: number;
}

export interface JobRow {
  id: string;
  seq: number;
  tenant_id: number;
  app_key_id: number | null;
  device_id: number;
  origin_id: string;
  state: PrintJobState;
  error: string;
  copies: number;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
  delivered_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  expire_at: Date;
  sn: string;
}
type SendRow = JobRow & { format: 'escpos' | 'markup'; payload: Buffer };

/** One submit's job row, ready to be written (its checks and content done). */
interface NewJob {
  key: PrintKey;
  body: SubmitInput;
  /** The device it was rendered for: written only if the device is still this one, in the key's tenant. */
  device: SubmitDevice;
  prepared: PreparedContent;
  expireS: number;
  /** The call's conditions its write carries (the open API's count and nonce), or null. */
  gate: WriteGate | null;
}
/** What a submit's write answers: the new row (null: a duplicate originId, the device changed or the gate closed), the gate's answer. */
interface Written {
  row: SendRow | null;
  answer: GateAnswer | null;
}
/** A printer's message about a job, written by the device-side group commit. */
type DeviceReport =
  | { kind: 'ack'; deviceId: number; msg: AckMsg }
  | { kind: 'progress'; deviceId: number; msg: ProgressMsg }
  | { kind: 'result'; deviceId: number; msg: ResultMsg };
/** Largest group of one commit. */
const GROUP_MAX = 256;
/** Devices a node keeps for rendering submits (each write checks its device is still the one rendered for). */
const DEVICE_CACHE_MAX = 100_000;
const DEVICE_CACHE_MS = 10 * 60_000;

/** The columns every statement returns (plus the device's sn). */
const COLS = sql.raw(
  'j.id, j.seq, j.tenant_id, j.app_key_id, j.device_id, j.origin_id, j.state, j.error, j.copies, j.attempts, j.created_at, ' +
    'j.updated_at, j.sent_at, j.delivered_at, j.started_at, j.finished_at, j.expire_at',
);
const OPEN = sql.raw(`('queued', 'sent', 'delivered', 'printing', 'timeout')`);
/**
 * The webhook deliveries of the jobs a statement's CTE `u` changed (`u.changed`) whose key has a callback URL,
 * written in the same statement as the change.
 */
const DELIVERIES = sql`
  w AS (
    INSERT INTO webhook_deliveries (tenant_id, app_key_id, job_id, job_state, job_error)
    SELECT u.tenant_id, u.app_key_id, u.id, u.state, u.error FROM u JOIN app_keys k ON k.id = u.app_key_id
    WHERE u.changed AND k.callback_url <> '' AND k.state = 'active'
    RETURNING id, job_id
  )`;
/** A job that was never published (contracts: isCancelablePrintJob): only it can be canceled with the promise that it never prints. */
const CANCELABLE = sql.raw(`j.state = 'queued' AND j.attempts = 0`);
const deviceKey = (tenantId: number, sn: string) => `${tenantId}|${sn.toLowerCase()}`;
const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());

export function toOpenJob(r: JobRow): OpenPrintJob {
  return {
    id: r.id,
    originId: r.origin_id,
    deviceSn: r.sn,
    state: r.state,
    error: r.error,
    copies: r.copies,
    attempts: r.attempts,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    sentAt: iso(r.sent_at),
    deliveredAt: iso(r.delivered_at),
    startedAt: iso(r.started_at),
    finishedAt: iso(r.finished_at),
    expireAt: iso(r.expire_at)!,
  };
}

const FAULT = { out: 'paper_out', 'cover-open': 'cover_open', overheat: 'overheat' } as const;
/** The errors of jobs given up at their expiry; a later printed result from the printer still counts. */
const EXPIRED_UNTAKEN = 'the printer did not take the job before it expired';
const EXPIRED_TAKEN = 'no result from the printer before the job expired';

/**
 * Print jobs (DESIGN §6): queued → sent → delivered (ack) → printing (progress) → printed | failed, with
 * timeout (no ack in time from an online printer; sent again with back-off until max_attempts such time-outs,
 * then failed; a printer that went offline is not charged: its job goes back to queued and again on hello),
 * expired (the printer stayed offline past expire_at) and canceled (only a job never sent). A job is a row before it is
 * a message; every transition is one guarded UPDATE (`… WHERE state IN (…)`), so duplicate, late or
 * out-of-order messages cannot move a job backwards and N nodes may sweep at once. The same statement writes
 * the webhook delivery of every state a job enters, so a callback is never lost between the two. Writes on the
 * path of a job are grouped across jobs (issue 17): a submit's row with those of concurrent submits, a
 * printer's ack, progress and result with other printers' reports; a job costs about two commits shared with
 * others (its submit, its result), each caller answered only after its group committed.
 */
export class PrintService {
  /**
   * Submits' job rows, written by concurrent submits together: those that arrive while a commit is in flight
   * share the next one (one INSERT of all their rows, one COMMIT), and each is answered after it.
   */
  readonly inserts: GroupCommit<NewJob, Written>;
  /**
   * The printers' acks, progress and results, in arrival order, written in one transaction per group (a
   * statement per kind, in the order ack → progress → result). Acks and progress are not waited for (their
   * device's next message goes on at once) and a group of only them commits without waiting for the disk: what
   * a crash forgets is asked again (on hello every delivered or printing job goes again, and the printer
   * acknowledges and re-reports it; the sweep resends a job left `sent`). A result is answered after its durable
   * commit, as before.
   */
  readonly reports: GroupCommit<DeviceReport, void>;
  /**
   * Devices by tenant and serial number as submits render for them (id, kind, paper width), kept up to ten
   * minutes: never trusted alone, as the job's write checks the device is still that one in the key's tenant
   * and renders again when it is not.
   */
  private submitDevices = new Map<string, { device: Promise<SubmitDevice | null>; at: number }>();
  /** The reads of devices that submits found in no cache, grouped: those that arrive while one is in flight share the next. */
  private deviceReads: GroupCommit<{ tenantId: number; sn: string }, SubmitDevice | null>;

  constructor(
    private db: Db,
    private content: PrintContent,
    private downlink: PrintDownlink,
    private webhooks: WebhookOutbox,
    private opts: PrintOptions,
  ) {
    this.inserts = new GroupCommit({
      windowMs: 0,
      max: GROUP_MAX,
      single: async (job) => (await this.insertJobs([job]))[0],
      flush: (jobs) => this.insertJobs(jobs),
    });
    this.deviceReads = new GroupCommit({
      windowMs: 0,
      max: GROUP_MAX,
      single: async (d) => (await this.readDevices([d]))[0],
      flush: (ds) => this.readDevices(ds),
    });
    this.reports = new GroupCommit({
      windowMs: opts.deviceWindowMs ?? 5,
      // positive acks and progress: nobody waits on them, so they wait longer for company
      lazyWindowMs: opts.deviceLazyWindowMs ?? 50,
      urgent: (r) => r.kind === 'result' || (r.kind === 'ack' && !r.msg.ok),
      max: GROUP_MAX,
      single: (r) => this.writeReports([r]),
      flush: async (rs) => {
        await this.writeReports(rs);
        return rs.map(() => undefined);
      },
    });
  }

  /** Writes what the group commits hold (on close, before the database goes). */
  async drain(): Promise<void> {
    await this.deviceReads.drain();
    await this.inserts.drain();
    await this.reports.drain();
  }

  /**
   * The job rows of a group of submits, in one statement (their order is their `seq`), with what their gates
   * carry (the open API's count and nonce) in the same statement and commit. No row for one whose gate closed,
   * whose originId was taken (by an earlier job, or by one before it in the group), or whose device is gone or no
   * longer the one its content was rendered for.
   */
  private async insertJobs(jobs: NewJob[]): Promise<Written[]> {
    const gated = jobs.find((j) => j.gate)?.gate;
    const data = jobs.map((j, i) => ({
      i,
      tenant_id: j.key.tenantId,
      app_key_id: j.key.id,
      device_id: j.device.id,
      kind: j.device.kind,
      paper: j.device.paper_width_mm,
      origin_id: j.body.originId,
      content: j.body.content,
      format: j.prepared.format,
      payload: Buffer.from(j.prepared.payload).toString('base64'),
      preview: j.prepared.preview.join('\n'),
      columns: j.prepared.columns,
      copies: j.body.copies,
      expire_s: j.expireS,
      g: j.gate?.values ?? null,
    }));
    const { rows } = await sql<
      SendRow & {
        i: number;
        hits: number | null;
        fresh: boolean | null;
        key: unknown;
        pass: boolean | null;
        delivery_id: string | null;
      }
    >`${PREPARED}
      WITH b AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(data)}::jsonb) AS b(i int, tenant_id bigint, app_key_id bigint,
          device_id bigint, kind text, paper int, origin_id text, content text, format text, payload text, preview text,
          columns smallint, copies smallint, expire_s float8, g jsonb)
      ), ${gated ? gated.ctes : NO_GATE},
      u AS (
        INSERT INTO print_jobs AS j (tenant_id, app_key_id, device_id, origin_id, content, format, payload, preview, columns, copies,
          state, attempts, sent_at, expire_at, max_attempts)
        SELECT b.tenant_id, b.app_key_id, d.id, b.origin_id, b.content, b.format, decode(b.payload, 'base64'),
          b.preview, b.columns, b.copies,
          CASE WHEN d.status = 'online' THEN 'sent' ELSE 'queued' END, CASE WHEN d.status = 'online' THEN 1 ELSE 0 END,
          CASE WHEN d.status = 'online' THEN now() END, now() + make_interval(secs => b.expire_s), ${this.opts.maxAttempts}
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
    const deliveries = new Set<string>();
    const taken = new Set<string>();
    const out = jobs.map((j, i): Written => {
      const r = rows[i];
      const answer = j.gate ? { hits: r.hits!, fresh: r.fresh!, key: r.key, pass: r.pass! } : null;
      if (!r.id || (answer && !answer.pass) || taken.has(r.id)) return { row: null, answer };
      // the first of the group with this originId whose gate passed made the row; a later one is its duplicate
      taken.add(r.id);
      if (r.delivery_id) deliveries.add(r.delivery_id);
      const { i: _i, hits: _h, fresh: _f, key: _k, pass: _p, delivery_id: _d, ...row } = r;
      return { row, answer };
    });
    if (deliveries.size) this.webhooks.enqueue([...deliveries]);
    return out;
  }

  /**
   * A group of printers' reports in one transaction: a statement per kind, acks before progress before
   * results, each for all the group's jobs of that kind. Durable only when it holds a result.
   */
  private async writeReports(reports: DeviceReport[]): Promise<void> {
    // the last report of a job per kind counts (a printer that said it twice)
    const last = <K extends DeviceReport['kind']>(kind: K) => {
      const m = new Map<string, Extract<DeviceReport, { kind: K }>>();
      for (const r of reports) if (r.kind === kind) m.set(r.msg.id, r as Extract<DeviceReport, { kind: K }>);
      return [...m.values()];
    };
    const acks = last('ack');
    const progress = last('progress');
    const results = last('result');
    const okAcks = acks.filter((a) => a.msg.ok);
    const refusals = acks.filter((a) => !a.msg.ok);
    const durable = results.length > 0 || refusals.length > 0;
    const deliveries: string[] = [];
    await this.db.transaction().execute(async (trx) => {
      if (!durable) await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      const list = (rs: { deviceId: number; msg: { id: string } }[], extra?: (r: never) => unknown) =>
        JSON.stringify(
          rs.map((r) => ({ id: r.msg.id, device_id: r.deviceId, ...(extra ? (extra(r as never) as object) : {}) })),
        );
      if (okAcks.length) {
        await this.transition(
          sql`
          UPDATE print_jobs j SET state = 'delivered', delivered_at = now(), updated_at = now()
          FROM jsonb_to_recordset(${list(okAcks)}::jsonb) AS b(id uuid, device_id bigint), devices d
          WHERE j.id = b.id AND j.device_id = b.device_id AND d.id = j.device_id AND j.state IN ('sent', 'timeout')
          RETURNING ${COLS}, d.sn, true AS changed`,
          trx,
          deliveries,
        );
      }
      if (refusals.length) {
        await this.transition(
          sql`
          UPDATE print_jobs j SET state = 'failed', error = b.error, finished_at = now(), updated_at = now()
          FROM jsonb_to_recordset(${list(refusals, (r: { msg: AckMsg }) => ({ error: r.msg.error || 'refused by the printer' }))}::jsonb)
            AS b(id uuid, device_id bigint, error text), devices d
          WHERE j.id = b.id AND j.device_id = b.device_id AND d.id = j.device_id AND j.state IN ('sent', 'timeout', 'delivered')
          RETURNING ${COLS}, d.sn, true AS changed`,
          trx,
          deliveries,
        );
      }
      if (progress.length) {
        await this.transition(
          sql`
          UPDATE print_jobs j SET state = 'printing', started_at = coalesce(j.started_at, now()),
            delivered_at = coalesce(j.delivered_at, now()), updated_at = now()
          FROM jsonb_to_recordset(${list(progress)}::jsonb) AS b(id uuid, device_id bigint), devices d
          WHERE j.id = b.id AND j.device_id = b.device_id AND d.id = j.device_id AND j.state IN ('sent', 'timeout', 'delivered')
          RETURNING ${COLS}, d.sn, true AS changed`,
          trx,
          deliveries,
        );
      }
      if (results.length) {
        await this.transition(
          sql`
          UPDATE print_jobs j SET state = b.state,
            error = CASE WHEN j.state = 'canceled' THEN 'printed although canceled: the printer had already received it'
                         WHEN j.state IN ('expired', 'failed') THEN 'printed after its expiry: the printer had already received it'
                         ELSE b.error END,
            delivered_at = coalesce(j.delivered_at, now()), started_at = coalesce(j.started_at, now()), finished_at = now(), updated_at = now()
          FROM jsonb_to_recordset(${list(results, (r: { msg: ResultMsg }) => ({
            ok: r.msg.ok,
            state: r.msg.ok ? 'printed' : 'failed',
            error: r.msg.ok ? '' : r.msg.error || 'failed on the printer',
          }))}::jsonb) AS b(id uuid, device_id bigint, ok boolean, state text, error text), devices d
          WHERE j.id = b.id AND j.device_id = b.device_id AND d.id = j.device_id
            AND (j.state IN ('sent', 'timeout', 'delivered', 'printing')
              OR (b.ok AND j.attempts > 0 AND (j.state = 'canceled' OR (j.state IN ('expired', 'failed') AND j.error IN (${EXPIRED_UNTAKEN}, ${EXPIRED_TAKEN})))))
          RETURNING ${COLS}, d.sn, true AS changed`,
          trx,
          deliveries,
        );
      }
    });
    if (deliveries.length) this.webhooks.enqueue(deliveries);
  }

  // -------------------------------------------------------------------------------------------------------------
  // The integrator's side (open API): everything through the key, which names its tenant

  /**
   * Makes a job, or answers the first one of this originId: a unique index and `ON CONFLICT DO NOTHING` make
   * concurrent identical submits produce exactly one row. The job is sent in the same statement when the
   * printer is online (state `sent`), and published after the commit. `gate`: the call's conditions (the open
   * API's count and nonce), written in the job's statement; a call that ends before it is counted alone first.
   */
  async submit(key: PrintKey, body: SubmitInput, gate?: WriteGate): Promise<{ job: JobRow; duplicate: boolean }> {
    const expireS = body.expireInSec ?? PRINT_EXPIRE_DEFAULT_S;
    let job: NewJob;
    try {
      job = { key, body, expireS, gate: gate ?? null, ...(await this.render(key, body)) };
    } catch (err) {
      await gate?.countAlone();
      // a retry is answered its first job, whatever its device or content are now
      const earlier = await this.byOrigin(key.id, body.originId);
      if (earlier) return { job: earlier, duplicate: true };
      throw err;
    }
    const written = await this.inserts.add(job);
    let row = written.row;
    // the key changed meanwhile and the call passed on it as it is now: written again, its count and nonce are in
    if (written.answer && gate!.settle(written.answer)) ({ row } = await this.inserts.add({ ...job, gate: null }));
    if (!row) {
      // an earlier job of the originId (or a concurrent submit of it that committed first) is the answer
      const earlier = await this.byOrigin(key.id, body.originId);
      if (earlier) return { job: earlier, duplicate: true };
      // else the device changed since this node read it (another model, another tenant, gone)
      const k = deviceKey(key.tenantId, body.deviceSn);
      const entry = this.submitDevices.get(k);
      if (entry) this.forgetDevice(k, entry);
      ({ row } = await this.inserts.add({ key, body, expireS, gate: null, ...(await this.render(key, body)) }));
    }
    if (row) {
      if (row.state === 'sent') this.downlink.printAfterPending(row.sn, printMsg(row));
      return { job: row, duplicate: false };
    }
    // a concurrent submit of the originId committed first: its job is the answer
    const first = await this.byOrigin(key.id, body.originId);
    if (first) return { job: first, duplicate: true };
    throw notFound('device');
  }

  /** Forgets this node's copy of a device (gone, changed, or its read failed), unless a newer one replaced it. */
  private forgetDevice(k: string, entry: { at: number }): void {
    if (this.submitDevices.get(k) === entry) this.submitDevices.delete(k);
  }

  /** Devices by tenant and lower-case serial number, in one statement; null for one not in that tenant. */
  private async readDevices(ds: { tenantId: number; sn: string }[]): Promise<(SubmitDevice | null)[]> {
    const { rows } = await sql<{ i: number; device: SubmitDevice | null }>`${PREPARED}
      SELECT b.i, (SELECT json_build_object('id', d.id, 'kind', m.kind, 'paper_width_mm', m.paper_width_mm)
          FROM devices d JOIN device_models m ON m.id = d.model_id
          WHERE lower(d.sn) = b.sn AND d.tenant_id = b.tenant_id) AS device
      FROM jsonb_to_recordset(${JSON.stringify(ds.map((d, i) => ({ i, tenant_id: d.tenantId, sn: d.sn })))}::jsonb)
        AS b(i int, tenant_id bigint, sn text)
      ORDER BY b.i`.execute(this.db);
    return rows.map((r) => r.device);
  }

  /** The device of a submit (this node's copy, else read) and the content rendered for it; 404 for no such device. */
  private async render(key: PrintKey, body: SubmitInput): Promise<Pick<NewJob, 'device' | 'prepared'>> {
    const k = deviceKey(key.tenantId, body.deviceSn);
    let cached = this.submitDevices.get(k);
    if (!cached || Date.now() - cached.at > DEVICE_CACHE_MS) {
      // one read per device however many submits for it arrive meanwhile, and one statement for those of a burst
      const entry = {
        device: this.deviceReads.add({ tenantId: key.tenantId, sn: body.deviceSn.toLowerCase() }),
        at: Date.now(),
      };
      if (this.submitDevices.size >= DEVICE_CACHE_MAX) this.submitDevices.clear();
      this.submitDevices.set(k, entry);
      // a device not found (or a failed read) is not kept: the next submit reads it again
      entry.device.then(
        (d) => {
          if (!d) this.forgetDevice(k, entry);
        },
        () => this.forgetDevice(k, entry),
      );
      cached = entry;
    }
    const device = await cached.device;
    if (!device) throw notFound('device');
    const prepared = await this.content.prepare(key.tenantId, body.content, {
      kind: device.kind,
      paperWidthMm: device.paper_width_mm,
    });
    return { device, prepared };
  }

  private async byOrigin(keyId: number, originId: string): Promise<JobRow | undefined> {
    const { rows } = await sql<JobRow>`
      SELECT ${COLS}, d.sn FROM print_jobs j JOIN devices d ON d.id = j.device_id
      WHERE j.app_key_id = ${keyId} AND j.origin_id = ${originId}`.execute(this.db);
    return rows[0];
  }

  async get(key: PrintKey, id: string): Promise<JobRow> {
    const { rows } = await sql<JobRow>`
      SELECT ${COLS}, d.sn FROM print_jobs j JOIN devices d ON d.id = j.device_id
      WHERE j.id = ${id} AND j.app_key_id = ${key.id}`.execute(this.db);
    if (!rows[0]) throw notFound('job');
    return rows[0];
  }

  async list(
    key: PrintKey,
    q: OpenPrintListQuery & { pageNo: number; pageSize: number },
  ): Promise<Paged<OpenPrintJob>> {
    const where = [sql`j.app_key_id = ${key.id}`];
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
    return { list: page.rows.map(toOpenJob), total: total.rows[0].n };
  }

  /**
   * Cancels a job of this key that was never sent to the printer. A job sent once may have reached it (an
   * unacknowledged delivery proves nothing), so it is refused: a cancel answered 200 means the job never prints.
   */
  async cancel(key: PrintKey, id: string, reason = 'canceled by the caller'): Promise<JobRow> {
    return this.cancelWhere(sql`j.id = ${id} AND j.app_key_id = ${key.id}`, id, reason);
  }

  /** The console's cancel: any job of the tenant. */
  async cancelInTenant(tenantId: number, id: string): Promise<JobRow> {
    return this.cancelWhere(sql`j.id = ${id} AND j.tenant_id = ${tenantId}`, id, 'canceled from the console');
  }

  private async cancelWhere(where: RawBuilder<unknown>, id: string, reason: string): Promise<JobRow> {
    const rows = await this.transition<JobRow>(sql`
      UPDATE print_jobs j SET state = 'canceled', error = ${reason}, finished_at = now(), updated_at = now()
      FROM devices d
      WHERE ${where} AND d.id = j.device_id AND ${CANCELABLE}
      RETURNING ${COLS}, d.sn, true AS changed`);
    if (rows[0]) return rows[0];
    const { rows: existing } = await sql<{
      state: PrintJobState;
      attempts: number;
    }>`SELECT j.state, j.attempts FROM print_jobs j WHERE ${where}`.execute(this.db);
    if (!existing[0]) throw notFound('job');
    const { state, attempts } = existing[0];
    // 400, not 409: the code catalogue (SPEC §8) has no conflict code; data.reason tells it apart from bad input
    const extra = { field: 'id', data: { reason: CANCEL_REFUSED_REASON, state, attempts } };
    if (state === 'canceled') throw new AppError(400, 'print.alreadyCanceled', null, extra);
    if (state === 'queued' || state === 'timeout')
      throw new AppError(
        400,
        'print.alreadySent',
        { state, n: attempts, deliveries: attempts === 1 ? 'delivery' : 'deliveries' },
        extra,
      );
    throw new AppError(400, 'print.notCancelable', { state }, extra);
  }

  /** Cancels every job of the tenant on one device that was never sent (jobs once sent stay: they may print). */
  async clearDevice(key: PrintKey, sn: string): Promise<OpenClearResult> {
    const device = await this.deviceOf(key, sn);
    const rows = await this.transition<JobRow>(sql`
      UPDATE print_jobs j SET state = 'canceled', error = 'the device queue was cleared', finished_at = now(), updated_at = now()
      FROM devices d
      WHERE j.id IN (
          -- locked in submission order, as a resend on hello locks them: two statements never wait on each other in a cycle
          SELECT id FROM print_jobs j WHERE device_id = ${device.id} AND tenant_id = ${key.tenantId} AND ${CANCELABLE} ORDER BY seq FOR UPDATE)
        AND d.id = j.device_id AND ${CANCELABLE}
      RETURNING ${COLS}, d.sn, true AS changed`);
    return { canceled: rows.length, jobIds: rows.sort((a, b) => a.seq - b.seq).map((r) => r.id) };
  }

  private async deviceOf(key: PrintKey, sn: string) {
    const d = await this.db
      .selectFrom('devices as d')
      .innerJoin('device_models as m', 'm.id', 'd.model_id')
      .select([
        'd.id',
        'd.sn',
        'd.name',
        'd.status',
        'd.paper',
        'd.last_seen_at',
        'm.code as model',
        'm.kind',
        'm.paper_width_mm',
      ])
      .where(sql<string>`lower(d.sn)`, '=', sn.toLowerCase())
      .where('d.tenant_id', '=', key.tenantId)
      .executeTakeFirst();
    if (!d) throw notFound('device');
    return d;
  }

  async deviceStatus(key: PrintKey, sn: string): Promise<OpenDeviceStatus> {
    const d = await this.deviceOf(key, sn);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM print_jobs WHERE device_id = ${d.id} AND tenant_id = ${key.tenantId} AND state IN ${OPEN}`.execute(
      this.db,
    );
    return { ...openDevice(d), paper: d.paper, pendingJobs: rows[0].n };
  }

  async devices(
    key: PrintKey,
    q: { pageNo: number; pageSize: number; status?: 'online' | 'offline' },
  ): Promise<Paged<OpenDevice>> {
    let base = this.db
      .selectFrom('devices as d')
      .innerJoin('device_models as m', 'm.id', 'd.model_id')
      .where('d.tenant_id', '=', key.tenantId);
    if (q.status) base = base.where('d.status', '=', q.status);
    const [rows, total] = await Promise.all([
      base
        .select([
          'd.id',
          'd.sn',
          'd.name',
          'd.status',
          'd.paper',
          'd.last_seen_at',
          'm.code as model',
          'm.kind',
          'm.paper_width_mm',
        ])
        .orderBy('d.sn')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { list: rows.map(openDevice), total: total.n };
  }

  // -------------------------------------------------------------------------------------------------------------
  // The device's side (called by the gateway; the device id comes from the authenticated topic)

  /**
   * On hello: every unfinished job goes again, in submission order. Jobs the printer already took (delivered,
   * printing) go too: it acknowledges them again and re-reports a result it has, so a result lost with the
   * connection still arrives. A device prints an id once, however often it arrives.
   */
  /** What printing hears from devices: print acks, progress and results, hellos, and the gateway's sweep. */
  listenTo(bus: DeviceBus): void {
    bus.on('print.ack', (id, m) => this.onAck(id, m));
    bus.on('print.progress', (id, m) => this.onProgress(id, m));
    bus.on('print.result', (id, m) => this.onResult(id, m));
    bus.on('hello', (id, hello) => (hello.printsOpen ? this.resendPending(id) : undefined));
    bus.onSweep(() => this.sweep());
  }

  async resendPending(deviceId: number): Promise<number> {
    const rows = await this.transition<SendRow>(sql`
      WITH due AS (
        SELECT j.id, j.state AS prev FROM print_jobs j
        WHERE j.device_id = ${deviceId} AND j.state IN ${OPEN} AND j.expire_at > now()
          AND (j.state IN ('delivered', 'printing') OR j.ack_timeouts < j.max_attempts)
        ORDER BY j.seq
        -- waits (no SKIP LOCKED) for a sweep that is resending one of them: skipping it would send it after its successors
        FOR UPDATE OF j
      )
      UPDATE print_jobs j SET
        state = CASE WHEN j.state IN ('queued', 'sent', 'timeout') THEN 'sent' ELSE j.state END,
        sent_at = CASE WHEN j.state IN ('queued', 'sent', 'timeout') THEN now() ELSE j.sent_at END,
        attempts = j.attempts + 1, updated_at = now()
      FROM due, devices d
      WHERE j.id = due.id AND d.id = j.device_id AND d.tenant_id = j.tenant_id
      RETURNING ${COLS}, j.format, j.payload, d.sn, j.state IS DISTINCT FROM due.prev AS changed`);
    rows.sort((a, b) => a.seq - b.seq);
    for (const r of rows) await this.downlink.print(r.sn, printMsg(r)).catch(() => {});
    return rows.length;
  }

  /**
   * An ack: written with the next group of reports (see `reports`). A positive one is not waited for — the
   * device's next message goes on, and a lost one is asked again — a refusal (the job fails) is.
   */
  onAck(deviceId: number, m: AckMsg): Promise<void> {
    const written = this.reports.add({ kind: 'ack', deviceId, msg: m });
    if (!m.ok) return written;
    written.catch(() => {});
    return Promise.resolve();
  }

  /** Progress: written with the next group of reports, not waited for (re-reported on hello if lost). */
  onProgress(deviceId: number, m: ProgressMsg): Promise<void> {
    this.reports.add({ kind: 'progress', deviceId, msg: m }).catch(() => {});
    return Promise.resolve();
  }

  /**
   * The printer's outcome, answered after its group's durable commit. A job that had been sent and was then
   * canceled (its ack lost) or given up at its expiry, but that the printer printed anyway, is recorded as
   * printed: the record follows the paper.
   */
  async onResult(deviceId: number, m: ResultMsg): Promise<void> {
    return this.reports.add({ kind: 'result', deviceId, msg: m });
  }

  /** Expiry, ack time-outs, resends and jobs left queued for an online printer; SKIP LOCKED makes N sweepers safe. */
  async sweep(): Promise<void> {
    await this.transition(sql`
      UPDATE print_jobs j SET
        state = CASE WHEN j.state IN ('delivered', 'printing') THEN 'failed' ELSE 'expired' END,
        error = CASE WHEN j.state IN ('delivered', 'printing') THEN ${EXPIRED_TAKEN} ELSE ${EXPIRED_UNTAKEN} END,
        finished_at = now(), updated_at = now()
      FROM devices d
      WHERE j.id IN (SELECT id FROM print_jobs WHERE state IN ${OPEN} AND expire_at <= now() LIMIT 1000 FOR UPDATE SKIP LOCKED)
        AND d.id = j.device_id
      RETURNING ${COLS}, d.sn, true AS changed`);

    // No ack in time. From an online printer it counts (timeout, or failed after max_attempts of them); a printer
    // that went offline is not charged: the job goes back to queued and again on its hello, however often that is.
    await this.transition(sql`
      UPDATE print_jobs j SET
        state = CASE WHEN d.status <> 'online' THEN 'queued' WHEN j.ack_timeouts + 1 >= j.max_attempts THEN 'failed' ELSE 'timeout' END,
        ack_timeouts = CASE WHEN d.status <> 'online' THEN j.ack_timeouts ELSE j.ack_timeouts + 1 END,
        error = CASE WHEN d.status = 'online' AND j.ack_timeouts + 1 >= j.max_attempts
          THEN 'no acknowledgement from the printer after ' || (j.ack_timeouts + 1) || ' deliveries' ELSE '' END,
        finished_at = CASE WHEN d.status = 'online' AND j.ack_timeouts + 1 >= j.max_attempts THEN now() END,
        updated_at = now()
      FROM devices d
      WHERE j.id IN (
          SELECT id FROM print_jobs WHERE state = 'sent' AND sent_at <= now() - make_interval(secs => ${this.opts.ackTimeoutS}::float8)
          LIMIT 1000 FOR UPDATE SKIP LOCKED)
        AND d.id = j.device_id
      RETURNING ${COLS}, d.sn, true AS changed`);

    // timed-out jobs after their back-off, and queued jobs of a printer that is online (a submit that raced its hello)
    const resent = await this.transition<SendRow>(sql`
      WITH due AS (
        SELECT j.id FROM print_jobs j JOIN devices d ON d.id = j.device_id
        WHERE j.state IN ('queued', 'timeout') AND d.status = 'online' AND d.tenant_id = j.tenant_id
          AND j.expire_at > now() AND j.ack_timeouts < j.max_attempts
          AND (
            (j.state = 'timeout' AND j.updated_at <= now() - make_interval(secs => ${this.opts.retryBackoffS}::float8 * power(2, greatest(j.ack_timeouts - 1, 0))))
            OR (j.state = 'queued' AND j.updated_at <= now() - interval '1 second')
          )
        ORDER BY j.seq
        LIMIT 500
        FOR UPDATE OF j SKIP LOCKED
      )
      UPDATE print_jobs j SET state = 'sent', attempts = j.attempts + 1, sent_at = now(), updated_at = now()
      FROM due, devices d
      WHERE j.id = due.id AND d.id = j.device_id
      RETURNING ${COLS}, j.format, j.payload, d.sn, true AS changed`);
    resent.sort((a, b) => a.seq - b.seq);
    for (const r of resent) this.downlink.printAfterPending(r.sn, printMsg(r));

    // taken by an online printer, then silent: its result may have died with the node that received it (a shared
    // subscription hands each message to one node). Sent again, in the state it is in: the printer answers with
    // the result it has (docs/device-protocol.md, "a known id"), or prints it if it never had it.
    const asked = await this.transition<SendRow>(sql`
      WITH due AS (
        SELECT j.id FROM print_jobs j JOIN devices d ON d.id = j.device_id
        WHERE j.state IN ('delivered', 'printing') AND d.status = 'online' AND j.expire_at > now()
          AND j.updated_at <= now() - make_interval(secs => ${this.opts.resultTimeoutS ?? 60}::float8)
        ORDER BY j.seq
        LIMIT 500
        FOR UPDATE OF j SKIP LOCKED
      )
      UPDATE print_jobs j SET attempts = j.attempts + 1, updated_at = now()
      FROM due, devices d
      WHERE j.id = due.id AND d.id = j.device_id
      RETURNING ${COLS}, j.format, j.payload, d.sn, false AS changed`);
    asked.sort((a, b) => a.seq - b.seq);
    for (const r of asked) this.downlink.printAfterPending(r.sn, printMsg(r));
  }

  /**
   * Runs a state change and, in the same statement, writes a webhook delivery for every job that entered a new
   * state and whose key has a callback URL; the new deliveries are then handed to the sender.
   */
  private async transition<T extends JobRow>(
    change: RawBuilder<unknown>,
    exec: Db = this.db,
    /** Inside a transaction: the new deliveries are collected here and handed to the sender after its commit. */
    after?: string[],
  ): Promise<T[]> {
    const { rows } = await sql<T & { delivery_id: string | null; changed: boolean }>`${PREPARED}
      WITH u AS (${change}), ${DELIVERIES}
      SELECT u.*, w.id AS delivery_id FROM u LEFT JOIN w ON w.job_id = u.id`.execute(exec);
    const deliveries = rows.flatMap((r) => (r.delivery_id ? [r.delivery_id] : []));
    if (after) after.push(...deliveries);
    else if (deliveries.length) this.webhooks.enqueue(deliveries);
    return rows;
  }
}

export function printMsg(r: SendRow): PrintMsg {
  return {
    id: r.id,
    format: r.format,
    content:
      r.format === 'escpos' ? Buffer.from(r.payload).toString('base64') : Buffer.from(r.payload).toString('utf8'),
    copies: r.copies,
    expireAt: iso(r.expire_at)!,
    attempt: Math.max(1, r.attempts),
  };
}

function openDevice(d: {
  sn: string;
  name: string;
  status: 'online' | 'offline';
  paper: keyof typeof FAULT | 'ok';
  last_seen_at: Date | null;
  model: string;
  kind: 'printer' | 'android-terminal';
  paper_width_mm: number;
}): OpenDevice {
  const fault = d.status === 'online' && d.paper !== 'ok' ? FAULT[d.paper] : null;
  return {
    sn: d.sn,
    name: d.name,
    model: d.model,
    kind: d.kind,
    paperWidthMm: d.paper_width_mm,
    status: d.status,
    state: d.status === 'offline' ? 'offline' : fault ? 'fault' : 'ok',
    fault,
    lastSeenAt: iso(d.last_seen_at),
  };
}
