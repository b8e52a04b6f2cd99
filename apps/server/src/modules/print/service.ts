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
import type { AckMsg, ProgressMsg, ResultMsg } from '@cpc/contracts/device-protocol';
import type { Db } from '../../db/database.ts';
import { AppError, notFound } from '../../plugins/errors.ts';
import type { PreparedContent, PrintContent } from './content.ts';
import { GroupCommit } from '../../lib/group-commit.ts';
import type { GateAnswer, WriteGate } from '../../lib/write-gate.ts';
import type { DeviceBus } from '../../plugins/mqtt/device-bus.ts';
import {
  PrintRepository,
  type Changed,
  type DeviceRow,
  type JobRow,
  type SendRow,
  type SubmitDevice,
} from './repository/index.ts';

import { openDevice, printMsg, toOpenJob } from './present.ts';
import type { PrintDownlink, PrintKey, PrintOptions, SubmitInput, WebhookOutbox } from './types.ts';

export type { JobRow } from './repository/index.ts';
export { printMsg, toOpenJob } from './present.ts';
export type { PrintDownlink, PrintKey, PrintOptions, SubmitInput, WebhookOutbox } from './types.ts';

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

const deviceKey = (tenantId: number, sn: string) => `${tenantId}|${sn.toLowerCase()}`;

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

  private repo: PrintRepository;

  constructor(
    db: Db,
    private content: PrintContent,
    private downlink: PrintDownlink,
    private webhooks: WebhookOutbox,
    private opts: PrintOptions,
  ) {
    this.repo = new PrintRepository(db);
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
    const rows = await this.repo.jobs.insertJobs(
      jobs.map((j) => ({
        tenantId: j.key.tenantId,
        keyId: j.key.id,
        device: j.device,
        originId: j.body.originId,
        content: j.body.content,
        format: j.prepared.format,
        payload: j.prepared.payload,
        preview: j.prepared.preview,
        columns: j.prepared.columns,
        copies: j.body.copies,
        expireS: j.expireS,
        gate: j.gate?.values ?? null,
      })),
      gated?.ctes,
      this.opts.maxAttempts,
    );
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
      return { row: row as SendRow, answer };
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
    const deliveries = await this.repo.delivery.writeReports({ okAcks, refusals, progress, results }, durable);
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
  private readDevices(ds: { tenantId: number; sn: string }[]): Promise<(SubmitDevice | null)[]> {
    return this.repo.jobs.readDevices(ds);
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

  private byOrigin(keyId: number, originId: string): Promise<JobRow | undefined> {
    return this.repo.jobs.findByOrigin(keyId, originId);
  }

  async get(key: PrintKey, id: string): Promise<JobRow> {
    const row = await this.repo.jobs.findForKey(key.id, id);
    if (!row) throw notFound('job');
    return row;
  }

  async list(
    key: PrintKey,
    q: OpenPrintListQuery & { pageNo: number; pageSize: number },
  ): Promise<Paged<OpenPrintJob>> {
    const { rows, total } = await this.repo.jobs.listForKey(key.id, q);
    return { list: rows.map(toOpenJob), total };
  }

  /**
   * Cancels a job of this key that was never sent to the printer. A job sent once may have reached it (an
   * unacknowledged delivery proves nothing), so it is refused: a cancel answered 200 means the job never prints.
   */
  async cancel(key: PrintKey, id: string, reason = 'canceled by the caller'): Promise<JobRow> {
    const [row] = this.announce(await this.repo.jobs.cancelForKey(key.id, id, reason));
    return row ?? this.refuseCancel(await this.repo.jobs.stateForKey(key.id, id));
  }

  /** The console's cancel: any job of the tenant. */
  async cancelInTenant(tenantId: number, id: string): Promise<JobRow> {
    const [row] = this.announce(await this.repo.jobs.cancelInTenant(tenantId, id, 'canceled from the console'));
    return row ?? this.refuseCancel(await this.repo.jobs.stateInTenant(tenantId, id));
  }

  /** Why a job was not canceled: not found, or sent once already (it may print). */
  private refuseCancel(existing: { state: PrintJobState; attempts: number } | undefined): never {
    if (!existing) throw notFound('job');
    const { state, attempts } = existing;
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
    const rows = this.announce(await this.repo.jobs.clearDevice(key.tenantId, device.id));
    return { canceled: rows.length, jobIds: rows.sort((a, b) => a.seq - b.seq).map((r) => r.id) };
  }

  private async deviceOf(key: PrintKey, sn: string): Promise<DeviceRow> {
    const d = await this.repo.jobs.findDevice(key.tenantId, sn);
    if (!d) throw notFound('device');
    return d;
  }

  async deviceStatus(key: PrintKey, sn: string): Promise<OpenDeviceStatus> {
    const d = await this.deviceOf(key, sn);
    const pendingJobs = await this.repo.jobs.countOpenJobs(key.tenantId, d.id);
    return { ...openDevice(d), paper: d.paper, pendingJobs };
  }

  async devices(
    key: PrintKey,
    q: { pageNo: number; pageSize: number; status?: 'online' | 'offline' },
  ): Promise<Paged<OpenDevice>> {
    const { rows, total } = await this.repo.jobs.listDevices(key.tenantId, q);
    return { list: rows.map(openDevice), total };
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
    const rows = this.announce(await this.repo.delivery.resendPending(deviceId));
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
    this.announce(await this.repo.delivery.expireDue());
    // No ack in time: from an online printer it counts; a printer that went offline is not charged
    this.announce(await this.repo.delivery.timeOutUnacked(this.opts.ackTimeoutS));

    // timed-out jobs after their back-off, and queued jobs of a printer that is online (a submit that raced its hello)
    const resent = this.announce(await this.repo.delivery.claimResends(this.opts.retryBackoffS));
    resent.sort((a, b) => a.seq - b.seq);
    for (const r of resent) this.downlink.printAfterPending(r.sn, printMsg(r));

    // taken by an online printer, then silent: its result may have died with the node that received it (a shared
    // subscription hands each message to one node). Sent again, in the state it is in: the printer answers with
    // the result it has (docs/device-protocol.md, "a known id"), or prints it if it never had it.
    const asked = this.announce(await this.repo.delivery.claimSilent(this.opts.resultTimeoutS ?? 60));
    asked.sort((a, b) => a.seq - b.seq);
    for (const r of asked) this.downlink.printAfterPending(r.sn, printMsg(r));
  }

  /** Hands the webhook deliveries a state change wrote (in its own statement) to the sender; answers its rows. */
  private announce<T extends JobRow>(rows: Changed<T>[]): Changed<T>[] {
    const deliveries = rows.flatMap((r) => (r.delivery_id ? [r.delivery_id] : []));
    if (deliveries.length) this.webhooks.enqueue(deliveries);
    return rows;
  }
}
