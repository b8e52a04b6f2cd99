import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { defineQueries } from '../../../db/query-spec.ts';
import type { PrintJobState } from '../../../db/schema.ts';

/** A delivery as the sender reads it: with its key, and its print job's origin id, copies and device. */
export interface DeliveryRow {
  id: string;
  tenant_id: number;
  app_key_id: number;
  /** The print job's delivery: the job, its state and error; null for another event's (`payload` then). */
  job_id: string | null;
  job_state: PrintJobState | null;
  job_error: string;
  /** `print.job.state`, or another event (`fence.enter`…) whose body fields are `payload`. */
  event: string;
  payload: Record<string, unknown> | null;
  occurred_at: Date;
  state: 'pending' | 'retrying' | 'succeeded' | 'failed';
  attempts: number;
  /** Scheduled tries made so far (attempts made from the console's resend button are not counted). */
  scheduled: number;
  app_id: string;
  secret: string;
  callback_url: string;
  key_state: 'active' | 'disabled';
  origin_id: string | null;
  copies: number | null;
  sn: string | null;
}

/** One attempt of a delivery, and the delivery's state after it. */
export interface AttemptRecord {
  deliveryId: string;
  tenantId: number;
  status: number | null;
  error: string;
  ok: boolean;
  durationMs: number;
  response: string;
  manual: boolean;
  /** The delivery's new state; null: as it was (a failed manual try). */
  next: 'succeeded' | 'retrying' | 'failed' | null;
  retrying: boolean;
  retryInS?: number;
}

/** The webhook deliveries (`webhook_deliveries`) and their attempts (`webhook_attempts`), as the sender writes them. */
export class WebhookDeliveryRepository {
  constructor(private db: Db) {}

  /**
   * Deliveries of an event other than a print job's state to every active app key of the tenant with a callback
   * URL; answers their ids.
   */
  async insertForEvent(tenantId: number, event: string, payload: Record<string, unknown>): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
    INSERT INTO webhook_deliveries (tenant_id, app_key_id, event, payload)
    SELECT k.tenant_id, k.id, ${event}, ${JSON.stringify(payload)}::jsonb
    FROM app_keys k
    WHERE k.tenant_id = ${tenantId} AND k.state = 'active' AND k.callback_url <> ''
    RETURNING id`.execute(this.db);
    return rows.map((r) => r.id);
  }

  /**
   * The tries the queue may have lost: first tries of deliveries never tried (older than 10 s), and the next try
   * of deliveries retrying whose time came more than 10 s ago.
   */
  async listLostTries(): Promise<{ id: string; try: number }[]> {
    const { rows } = await sql<{ id: string; try: number }>`
      (SELECT d.id, 1 AS try FROM webhook_deliveries d
       WHERE d.attempts = 0 AND d.state = 'pending' AND d.created_at < now() - interval '10 seconds'
       ORDER BY d.created_at LIMIT 500)
      UNION ALL
      (SELECT d.id, (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id AND NOT a.manual) + 1 AS try
       FROM webhook_deliveries d
       WHERE d.state = 'retrying' AND d.next_attempt_at < now() - interval '10 seconds'
       ORDER BY d.next_attempt_at LIMIT 500)`.execute(this.db);
    return rows;
  }

  /** A delivery with what its try needs. */
  async findDelivery(deliveryId: string): Promise<DeliveryRow | undefined> {
    const { rows } = await sql<DeliveryRow>`
      SELECT w.id, w.tenant_id, w.app_key_id, w.job_id, w.job_state, w.job_error, w.event, w.payload, w.occurred_at,
        w.state, w.attempts,
        (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = w.id AND NOT a.manual) AS scheduled,
        k.app_id, k.secret, k.callback_url, k.state AS key_state, j.origin_id, j.copies, d.sn
      FROM webhook_deliveries w
      JOIN app_keys k ON k.id = w.app_key_id
      LEFT JOIN print_jobs j ON j.id = w.job_id
      LEFT JOIN devices d ON d.id = j.device_id
      WHERE w.id = ${deliveryId}`.execute(this.db);
    return rows[0];
  }

  /** The attempt's log entry and the delivery's new state, in one statement. */
  async recordAttempt(a: AttemptRecord): Promise<void> {
    const { next, retrying } = a;
    await sql`
      WITH d AS (
        UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ${a.status}, last_error = ${a.error},
          state = coalesce(${next}::text, state),
          next_attempt_at = CASE WHEN ${retrying} THEN now() + make_interval(secs => ${a.retryInS ?? 0}) WHEN ${next}::text IS NULL THEN next_attempt_at END,
          delivered_at = CASE WHEN ${a.ok} THEN now() ELSE delivered_at END
        WHERE id = ${a.deliveryId}
        RETURNING attempts
      )
      INSERT INTO webhook_attempts (delivery_id, tenant_id, attempt, manual, status, duration_ms, error, response)
      SELECT ${a.deliveryId}, ${a.tenantId}, d.attempts, ${a.manual}, ${a.status}, ${a.durationMs}, ${a.error}, ${a.response} FROM d`.execute(
      this.db,
    );
  }
}

const DELIVERY = '7d6c5b4a-3e2f-4a1b-9c8d-7e6f5a4b3c2d';
const attempt = { deliveryId: DELIVERY, tenantId: 3, durationMs: 184, response: '' };

export const deliveryQueries = defineQueries(WebhookDeliveryRepository, {
  insertForEvent: [[3, 'fence.enter', { event: 'fence.enter', fenceId: 9, deviceSn: 'CPC58A0001' }]],
  listLostTries: [[]],
  findDelivery: [[DELIVERY]],
  recordAttempt: [
    [{ ...attempt, status: 200, error: '', ok: true, manual: false, next: 'succeeded', retrying: false }],
    [
      {
        ...attempt,
        status: 503,
        error: 'HTTP 503',
        ok: false,
        manual: false,
        next: 'retrying',
        retrying: true,
        retryInS: 60,
      },
    ],
    [{ ...attempt, status: null, error: 'ECONNREFUSED', ok: false, manual: true, next: null, retrying: false }],
  ],
});
