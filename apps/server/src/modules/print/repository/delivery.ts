import { sql } from 'kysely';
import type { AckMsg, ProgressMsg, ResultMsg } from '@cpc/contracts/device-protocol';
import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import {
  COLS,
  EXPIRED_TAKEN,
  EXPIRED_UNTAKEN,
  OPEN,
  withDeliveries,
  type Changed,
  type JobRow,
  type SendRow,
} from './statements.ts';

/** A printer's report about a job: the device it came from (its authenticated topic) and the message. */
export interface Report<M> {
  deviceId: number;
  msg: M;
}

/** One group of printers' reports, each kind's last report per job. */
export interface ReportGroup {
  okAcks: Report<AckMsg>[];
  refusals: Report<AckMsg>[];
  progress: Report<ProgressMsg>[];
  results: Report<ResultMsg>[];
}

/** The jobs of a group's reports of one kind, as a jsonb list (`extra`: the kind's own fields). */
const list = <M extends { id: string }>(rs: Report<M>[], extra?: (r: Report<M>) => object) =>
  JSON.stringify(rs.map((r) => ({ id: r.msg.id, device_id: r.deviceId, ...(extra ? extra(r) : {}) })));

/**
 * The device's side of print jobs (`print_jobs`): resends on hello, the printers' acks, progress and results, and
 * the sweep. Every transition is one guarded UPDATE (`… WHERE state IN (…)`), so duplicate, late or out-of-order
 * messages cannot move a job backwards and N nodes may sweep at once; each writes the webhook deliveries of the
 * states jobs entered in the same statement (`withDeliveries`).
 */
export class PrintDeliveryRepository {
  constructor(private db: Db) {}

  /**
   * On hello: every unfinished job of the device, in submission order, marked sent again (those the printer took
   * stay as they are); waits (no SKIP LOCKED) for a sweep that is resending one of them.
   */
  resendPending(deviceId: number): Promise<Changed<SendRow>[]> {
    return withDeliveries<SendRow>(
      this.db,
      sql`
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
      RETURNING ${COLS}, j.format, j.payload, d.sn, j.state IS DISTINCT FROM due.prev AS changed`,
    );
  }

  /**
   * A group of reports in one transaction: a statement per kind, acks before progress before results. Durable only
   * when asked (it holds a result or a refusal). Answers the webhook deliveries written, to hand to the sender
   * after the commit.
   */
  async writeReports(g: ReportGroup, durable: boolean): Promise<string[]> {
    const changed: Changed<JobRow>[] = [];
    await this.db.transaction().execute(async (trx) => {
      if (!durable) await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      if (g.okAcks.length) changed.push(...(await this.acked(trx, g.okAcks)));
      if (g.refusals.length) changed.push(...(await this.refused(trx, g.refusals)));
      if (g.progress.length) changed.push(...(await this.printing(trx, g.progress)));
      if (g.results.length) changed.push(...(await this.finished(trx, g.results)));
    });
    return changed.flatMap((r) => (r.delivery_id ? [r.delivery_id] : []));
  }

  private acked(trx: Db, rs: Report<AckMsg>[]) {
    return withDeliveries(
      trx,
      sql`
          UPDATE print_jobs j SET state = 'delivered', delivered_at = now(), updated_at = now()
          FROM jsonb_to_recordset(${list(rs)}::jsonb) AS b(id uuid, device_id bigint), devices d
          WHERE j.id = b.id AND j.device_id = b.device_id AND d.id = j.device_id AND j.state IN ('sent', 'timeout')
          RETURNING ${COLS}, d.sn, true AS changed`,
    );
  }

  private refused(trx: Db, rs: Report<AckMsg>[]) {
    return withDeliveries(
      trx,
      sql`
          UPDATE print_jobs j SET state = 'failed', error = b.error, finished_at = now(), updated_at = now()
          FROM jsonb_to_recordset(${list(rs, (r) => ({ error: r.msg.error || 'refused by the printer' }))}::jsonb)
            AS b(id uuid, device_id bigint, error text), devices d
          WHERE j.id = b.id AND j.device_id = b.device_id AND d.id = j.device_id AND j.state IN ('sent', 'timeout', 'delivered')
          RETURNING ${COLS}, d.sn, true AS changed`,
    );
  }

  private printing(trx: Db, rs: Report<ProgressMsg>[]) {
    return withDeliveries(
      trx,
      sql`
          UPDATE print_jobs j SET state = 'printing', started_at = coalesce(j.started_at, now()),
            delivered_at = coalesce(j.delivered_at, now()), updated_at = now()
          FROM jsonb_to_recordset(${list(rs)}::jsonb) AS b(id uuid, device_id bigint), devices d
          WHERE j.id = b.id AND j.device_id = b.device_id AND d.id = j.device_id AND j.state IN ('sent', 'timeout', 'delivered')
          RETURNING ${COLS}, d.sn, true AS changed`,
    );
  }

  /**
   * Results. A job that had been sent and was then canceled (its ack lost) or given up at its expiry, but that the
   * printer printed anyway, is recorded as printed: the record follows the paper.
   */
  private finished(trx: Db, rs: Report<ResultMsg>[]) {
    const outcome = (r: Report<ResultMsg>) => ({
      ok: r.msg.ok,
      state: r.msg.ok ? 'printed' : 'failed',
      error: r.msg.ok ? '' : r.msg.error || 'failed on the printer',
    });
    return withDeliveries(
      trx,
      sql`
          UPDATE print_jobs j SET state = b.state,
            error = CASE WHEN j.state = 'canceled' THEN 'printed although canceled: the printer had already received it'
                         WHEN j.state IN ('expired', 'failed') THEN 'printed after its expiry: the printer had already received it'
                         ELSE b.error END,
            delivered_at = coalesce(j.delivered_at, now()), started_at = coalesce(j.started_at, now()), finished_at = now(), updated_at = now()
          FROM jsonb_to_recordset(${list(rs, outcome)}::jsonb) AS b(id uuid, device_id bigint, ok boolean, state text, error text), devices d
          WHERE j.id = b.id AND j.device_id = b.device_id AND d.id = j.device_id
            AND (j.state IN ('sent', 'timeout', 'delivered', 'printing')
              OR (b.ok AND j.attempts > 0 AND (j.state = 'canceled' OR (j.state IN ('expired', 'failed') AND j.error IN (${EXPIRED_UNTAKEN}, ${EXPIRED_TAKEN})))))
          RETURNING ${COLS}, d.sn, true AS changed`,
    );
  }

  // -----------------------------------------------------------------------------------------------------------
  // The sweep: SKIP LOCKED makes N sweepers safe

  /** Unfinished jobs past their expiry: expired, or failed when the printer had taken them. */
  expireDue(): Promise<Changed<JobRow>[]> {
    return withDeliveries(
      this.db,
      sql`
      UPDATE print_jobs j SET
        state = CASE WHEN j.state IN ('delivered', 'printing') THEN 'failed' ELSE 'expired' END,
        error = CASE WHEN j.state IN ('delivered', 'printing') THEN ${EXPIRED_TAKEN} ELSE ${EXPIRED_UNTAKEN} END,
        finished_at = now(), updated_at = now()
      FROM devices d
      WHERE j.id IN (SELECT id FROM print_jobs WHERE state IN ${OPEN} AND expire_at <= now() LIMIT 1000 FOR UPDATE SKIP LOCKED)
        AND d.id = j.device_id
      RETURNING ${COLS}, d.sn, true AS changed`,
    );
  }

  /**
   * No ack in time. From an online printer it counts (timeout, or failed after max_attempts of them); a printer
   * that went offline is not charged: the job goes back to queued and again on its hello, however often that is.
   */
  timeOutUnacked(ackTimeoutS: number): Promise<Changed<JobRow>[]> {
    return withDeliveries(
      this.db,
      sql`
      UPDATE print_jobs j SET
        state = CASE WHEN d.status <> 'online' THEN 'queued' WHEN j.ack_timeouts + 1 >= j.max_attempts THEN 'failed' ELSE 'timeout' END,
        ack_timeouts = CASE WHEN d.status <> 'online' THEN j.ack_timeouts ELSE j.ack_timeouts + 1 END,
        error = CASE WHEN d.status = 'online' AND j.ack_timeouts + 1 >= j.max_attempts
          THEN 'no acknowledgement from the printer after ' || (j.ack_timeouts + 1) || ' deliveries' ELSE '' END,
        finished_at = CASE WHEN d.status = 'online' AND j.ack_timeouts + 1 >= j.max_attempts THEN now() END,
        updated_at = now()
      FROM devices d
      WHERE j.id IN (
          SELECT id FROM print_jobs WHERE state = 'sent' AND sent_at <= now() - make_interval(secs => ${ackTimeoutS}::float8)
          LIMIT 1000 FOR UPDATE SKIP LOCKED)
        AND d.id = j.device_id
      RETURNING ${COLS}, d.sn, true AS changed`,
    );
  }

  /** Timed-out jobs after their back-off, and queued jobs of a printer that is online (a submit that raced its hello), marked sent. */
  claimResends(retryBackoffS: number): Promise<Changed<SendRow>[]> {
    return withDeliveries<SendRow>(
      this.db,
      sql`
      WITH due AS (
        SELECT j.id FROM print_jobs j JOIN devices d ON d.id = j.device_id
        WHERE j.state IN ('queued', 'timeout') AND d.status = 'online' AND d.tenant_id = j.tenant_id
          AND j.expire_at > now() AND j.ack_timeouts < j.max_attempts
          AND (
            (j.state = 'timeout' AND j.updated_at <= now() - make_interval(secs => ${retryBackoffS}::float8 * power(2, greatest(j.ack_timeouts - 1, 0))))
            OR (j.state = 'queued' AND j.updated_at <= now() - interval '1 second')
          )
        ORDER BY j.seq
        LIMIT 500
        FOR UPDATE OF j SKIP LOCKED
      )
      UPDATE print_jobs j SET state = 'sent', attempts = j.attempts + 1, sent_at = now(), updated_at = now()
      FROM due, devices d
      WHERE j.id = due.id AND d.id = j.device_id
      RETURNING ${COLS}, j.format, j.payload, d.sn, true AS changed`,
    );
  }

  /**
   * Jobs an online printer took, then was silent about for `resultTimeoutS`: one more delivery, in the state they
   * are in (the printer answers with the result it has, or prints a job it never had).
   */
  claimSilent(resultTimeoutS: number): Promise<Changed<SendRow>[]> {
    return withDeliveries<SendRow>(
      this.db,
      sql`
      WITH due AS (
        SELECT j.id FROM print_jobs j JOIN devices d ON d.id = j.device_id
        WHERE j.state IN ('delivered', 'printing') AND d.status = 'online' AND j.expire_at > now()
          AND j.updated_at <= now() - make_interval(secs => ${resultTimeoutS}::float8)
        ORDER BY j.seq
        LIMIT 500
        FOR UPDATE OF j SKIP LOCKED
      )
      UPDATE print_jobs j SET attempts = j.attempts + 1, updated_at = now()
      FROM due, devices d
      WHERE j.id = due.id AND d.id = j.device_id
      RETURNING ${COLS}, j.format, j.payload, d.sn, false AS changed`,
    );
  }
}

const JOB = '0b9e8f7a-6c5d-4e3f-8a2b-1c0d9e8f7a6b';
const ts = 1767225600000;
const none: ReportGroup = { okAcks: [], refusals: [], progress: [], results: [] };

export const deliveryQueries = defineQueries(PrintDeliveryRepository, {
  resendPending: [[101]],
  writeReports: [
    [{ ...none, okAcks: [{ deviceId: 101, msg: { ts, id: JOB, ok: true } }] }, false],
    [{ ...none, progress: [{ deviceId: 101, msg: { ts, id: JOB, progress: 50 } }] }, false],
    [{ ...none, refusals: [{ deviceId: 101, msg: { ts, id: JOB, ok: false, error: 'paper out' } }] }, true],
    [{ ...none, results: [{ deviceId: 101, msg: { ts, id: JOB, ok: true } }] }, true],
  ],
  expireDue: [[]],
  timeOutUnacked: [[30]],
  claimResends: [[5]],
  claimSilent: [[60]],
});
