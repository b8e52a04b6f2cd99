import { sql, type RawBuilder } from 'kysely';
import type { PrintJobState } from '@cpc/contracts/open-api';
import { PREPARED, type Db } from '../../../db/database.ts';

/** A job as every statement answers it, with its device's serial number. */
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
/** A job with what is sent to the printer. */
export type SendRow = JobRow & { format: 'escpos' | 'markup'; payload: Buffer };
/** A changed job with the webhook delivery its change wrote (null: its key has no callback URL). */
export type Changed<T extends JobRow> = T & { delivery_id: string | null; changed: boolean };

/** The columns every statement returns (plus the device's sn). */
export const COLS = sql.raw(
  'j.id, j.seq, j.tenant_id, j.app_key_id, j.device_id, j.origin_id, j.state, j.error, j.copies, j.attempts, j.created_at, ' +
    'j.updated_at, j.sent_at, j.delivered_at, j.started_at, j.finished_at, j.expire_at',
);
export const OPEN = sql.raw(`('queued', 'sent', 'delivered', 'printing', 'timeout')`);
/**
 * The webhook deliveries of the jobs a statement's CTE `u` changed (`u.changed`) whose key has a callback URL,
 * written in the same statement as the change.
 */
export const DELIVERIES = sql`
  w AS (
    INSERT INTO webhook_deliveries (tenant_id, app_key_id, job_id, job_state, job_error)
    SELECT u.tenant_id, u.app_key_id, u.id, u.state, u.error FROM u JOIN app_keys k ON k.id = u.app_key_id
    WHERE u.changed AND k.callback_url <> '' AND k.state = 'active'
    RETURNING id, job_id
  )`;
/** A job that was never published (contracts: isCancelablePrintJob): only it can be canceled with the promise that it never prints. */
export const CANCELABLE = sql.raw(`j.state = 'queued' AND j.attempts = 0`);
/** The errors of jobs given up at their expiry; a later printed result from the printer still counts. */
export const EXPIRED_UNTAKEN = 'the printer did not take the job before it expired';
export const EXPIRED_TAKEN = 'no result from the printer before the job expired';

/**
 * Runs a state change (an UPDATE of `print_jobs j` returning `COLS`, the sn and `changed`) and, in the same
 * statement, writes a webhook delivery for every job that entered a new state and whose key has a callback URL.
 */
export async function withDeliveries<T extends JobRow>(db: Db, change: RawBuilder<unknown>): Promise<Changed<T>[]> {
  const { rows } = await sql<Changed<T>>`${PREPARED}
      WITH u AS (${change}), ${DELIVERIES}
      SELECT u.*, w.id AS delivery_id FROM u LEFT JOIN w ON w.job_id = u.id`.execute(db);
  return rows;
}
