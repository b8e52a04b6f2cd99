import { sql, type Kysely } from 'kysely';

/**
 * The staff queue of work orders at scale (issue 14; `bench/work-order.ts`: 1,000,000 orders): every filter of the
 * queue is served by an index walked in the list's order (created_at DESC, id DESC), so a page reads about a page.
 * - the whole queue, newest first (0019's indexes all start with another column);
 * - one assignee's, one type's, one priority's orders, newest first (the capped count reads the index alone);
 * - "overdue" and "open": only the orders nobody has finished (submitted, processing, waiting) — a small part of
 *   all orders, so a partial index of them is small and the due-time test filters a few rows;
 * - "unread by staff": the customer wrote after staff last read it (the same expression as the list's filter);
 * - keyword: a trigram index of the order number and title (`ILIKE '%…%'`);
 * - `client_request_id`: the form's id of a submission, unique per tenant: opening is idempotent;
 * - `work_order_no_seq`: the running number of order numbers (`WO` + the day in China + 6+ digits), never reused.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE SEQUENCE work_order_no_seq;
    ALTER TABLE work_orders ADD COLUMN client_request_id text;
    ALTER TABLE work_orders ADD CONSTRAINT work_orders_client_request_uq UNIQUE (tenant_id, client_request_id);
    CREATE INDEX work_orders_created_idx ON work_orders (created_at DESC, id DESC);
    CREATE INDEX work_orders_assignee_created_idx ON work_orders (assignee_id, created_at DESC, id DESC);
    CREATE INDEX work_orders_type_idx ON work_orders (type, created_at DESC, id DESC);
    CREATE INDEX work_orders_priority_idx ON work_orders (priority, created_at DESC, id DESC);
    CREATE INDEX work_orders_open_idx ON work_orders (created_at DESC, id DESC)
      WHERE state IN ('submitted', 'processing', 'waiting');
    CREATE INDEX work_orders_staff_unread_idx ON work_orders (created_at DESC, id DESC)
      WHERE staff_read_at IS NULL OR last_customer_at > staff_read_at;
    CREATE INDEX work_orders_keyword_idx ON work_orders USING gin ((order_no || ' ' || title) gin_trgm_ops);
    CREATE INDEX work_orders_resolved_idx ON work_orders (resolved_at) WHERE state = 'resolved';
  `.execute(db);
}
