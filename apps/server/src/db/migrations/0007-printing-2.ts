import { sql, type Kysely } from 'kysely';

/**
 * Printing, second round (issue 5 audit): a per-key rate limit, ack time-outs counted apart from deliveries
 * (a printer that drops off the line is not charged for it), and the index of the sweep that queues webhook
 * retries again when their pg-boss job was lost. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- calls per second of this key; NULL follows the server's OPEN_RATE_LIMIT
    ALTER TABLE app_keys ADD COLUMN rate_limit integer CHECK (rate_limit BETWEEN 1 AND 100000);
    -- deliveries an online printer left unacknowledged past PRINT_ACK_TIMEOUT_S; max_attempts bounds these
    ALTER TABLE print_jobs ADD COLUMN ack_timeouts smallint NOT NULL DEFAULT 0;
    -- retries whose queued try is overdue (lost in a crash between the attempt's commit and the queue insert)
    CREATE INDEX webhook_deliveries_retry_idx ON webhook_deliveries (next_attempt_at) WHERE state = 'retrying';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX webhook_deliveries_retry_idx;
    ALTER TABLE print_jobs DROP COLUMN ack_timeouts;
    ALTER TABLE app_keys DROP COLUMN rate_limit;
  `.execute(db);
}
