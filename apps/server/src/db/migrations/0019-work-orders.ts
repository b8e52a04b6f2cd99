import { sql, type Kysely } from 'kysely';

/**
 * Work orders (issue 14): a customer's request to the platform and the conversation about it.
 * - `work_orders`: one row per order, its state (submitted → processing → waiting → resolved → closed, or
 *   withdrawn), the due times computed from the targets when it was opened (so "overdue" is a plain comparison
 *   the queue can index), each side's last reply and last read (unread = the other side wrote after one's read),
 *   the devices and orders it is about (ids of the tenant's own, checked when written), and the rating.
 * - `work_order_events`: the timeline: replies of both sides, internal staff notes (never shown to the customer),
 *   state changes, assignments, edits and the rating, in order.
 * - `work_order_attachments`: uploaded objects attached to an order or to one of its events.
 * - `work_order_targets`: first-response and resolution targets per priority (minutes), platform-wide.
 * - `work_order_canned_replies`: staff's canned replies, shared (owner_id null) or one staff member's own.
 * Also `messages.link`: the console path a message leads to (the message centre). Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE work_orders (
      id bigserial PRIMARY KEY,
      order_no text NOT NULL UNIQUE,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      user_id bigint REFERENCES users(id) ON DELETE SET NULL,
      department_id bigint REFERENCES departments(id) ON DELETE SET NULL,
      type text NOT NULL CHECK (type IN ('device', 'printing', 'traffic', 'billing', 'account', 'other')),
      priority text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
      state text NOT NULL DEFAULT 'submitted'
        CHECK (state IN ('submitted', 'processing', 'waiting', 'resolved', 'closed', 'withdrawn')),
      title text NOT NULL,
      description_html text NOT NULL DEFAULT '',
      device_ids bigint[] NOT NULL DEFAULT '{}',
      order_ids bigint[] NOT NULL DEFAULT '{}',
      assignee_id bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      response_due_at timestamptz NOT NULL,
      resolve_due_at timestamptz NOT NULL,
      first_response_at timestamptz,
      taken_at timestamptz,
      resolved_at timestamptz,
      closed_at timestamptz,
      withdrawn_at timestamptz,
      last_customer_at timestamptz NOT NULL DEFAULT now(),
      last_staff_at timestamptz,
      customer_read_at timestamptz,
      staff_read_at timestamptz,
      rating smallint CHECK (rating IS NULL OR rating BETWEEN 1 AND 5),
      rating_comment text NOT NULL DEFAULT '',
      rated_at timestamptz
    );
    CREATE INDEX work_orders_tenant_idx ON work_orders (tenant_id, created_at DESC, id DESC);
    CREATE INDEX work_orders_queue_idx ON work_orders (state, created_at DESC, id DESC);
    CREATE INDEX work_orders_assignee_idx ON work_orders (assignee_id, state) WHERE assignee_id IS NOT NULL;

    CREATE TABLE work_order_events (
      id bigserial PRIMARY KEY,
      work_order_id bigint NOT NULL REFERENCES work_orders(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      kind text NOT NULL CHECK (kind IN ('reply', 'note', 'state', 'assign', 'edit', 'rating')),
      side text NOT NULL CHECK (side IN ('customer', 'staff', 'system')),
      author_id bigint REFERENCES users(id) ON DELETE SET NULL,
      body_html text NOT NULL DEFAULT '',
      from_state text,
      to_state text,
      data jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX work_order_events_order_idx ON work_order_events (work_order_id, id);

    CREATE TABLE work_order_attachments (
      id bigserial PRIMARY KEY,
      work_order_id bigint NOT NULL REFERENCES work_orders(id) ON DELETE CASCADE,
      event_id bigint REFERENCES work_order_events(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      object_key text NOT NULL REFERENCES objects(key),
      name text NOT NULL,
      size bigint NOT NULL,
      mime text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX work_order_attachments_order_idx ON work_order_attachments (work_order_id, id);

    CREATE TABLE work_order_targets (
      priority text PRIMARY KEY CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
      response_minutes integer NOT NULL CHECK (response_minutes > 0),
      resolve_minutes integer NOT NULL CHECK (resolve_minutes > 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      updated_by bigint REFERENCES users(id) ON DELETE SET NULL
    );
    INSERT INTO work_order_targets (priority, response_minutes, resolve_minutes) VALUES
      ('urgent', 30, 240), ('high', 120, 1440), ('normal', 480, 4320), ('low', 1440, 10080);

    CREATE TABLE work_order_canned_replies (
      id bigserial PRIMARY KEY,
      owner_id bigint REFERENCES users(id) ON DELETE CASCADE,
      title text NOT NULL,
      body_html text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    ALTER TABLE messages ADD COLUMN link text NOT NULL DEFAULT '';
  `.execute(db);
}
