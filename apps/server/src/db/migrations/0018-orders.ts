import { sql, type Kysely } from 'kysely';

/**
 * Traffic packages and orders (issue 13). Money is integer fen (bigint), never floating point. An order is a row
 * before it is a payment: pending → paid → fulfilled, or canceled / closed (unpaid after its expires_at) /
 * refunded. `UNIQUE (tenant_id, client_request_id)` makes creation idempotent, also for concurrent submits.
 * `order_lines` keep the package as it was sold and each SIM's plan before and after fulfilment;
 * `payment_notifications` every notification a gateway sent, refused ones included. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE traffic_packages (
      id bigserial PRIMARY KEY,
      name text NOT NULL,
      data_mb integer NOT NULL CHECK (data_mb > 0),
      validity_days integer NOT NULL CHECK (validity_days > 0),
      price_fen bigint NOT NULL CHECK (price_fen >= 0),
      on_shelf boolean NOT NULL DEFAULT false,
      per_sim_limit integer CHECK (per_sim_limit IS NULL OR per_sim_limit > 0),
      carriers text[] NOT NULL DEFAULT '{}',
      plan_min_mb integer,
      plan_max_mb integer,
      sort integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (plan_min_mb IS NULL OR plan_max_mb IS NULL OR plan_min_mb <= plan_max_mb)
    );
    CREATE INDEX traffic_packages_shelf_idx ON traffic_packages (on_shelf, sort, id);

    CREATE TABLE orders (
      id bigserial PRIMARY KEY,
      order_no text NOT NULL UNIQUE,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      owner_id bigint REFERENCES users(id) ON DELETE SET NULL,
      department_id bigint REFERENCES departments(id) ON DELETE SET NULL,
      state text NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'paid', 'fulfilled', 'canceled', 'closed', 'refunded')),
      total_fen bigint NOT NULL CHECK (total_fen >= 0),
      client_request_id text NOT NULL,
      provider text,
      trade_no text,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      paid_at timestamptz,
      pay_failed_at timestamptz,
      fulfilled_at timestamptz,
      canceled_at timestamptz,
      closed_at timestamptz,
      refunded_at timestamptz,
      refund_reason text,
      refunded_by bigint REFERENCES users(id) ON DELETE SET NULL,
      UNIQUE (tenant_id, client_request_id)
    );
    CREATE INDEX orders_tenant_idx ON orders (tenant_id, id DESC);
    CREATE INDEX orders_created_idx ON orders (created_at DESC, id DESC);
    CREATE INDEX orders_pending_idx ON orders (expires_at) WHERE state = 'pending';

    CREATE TABLE order_lines (
      id bigserial PRIMARY KEY,
      order_id bigint NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      iccid text NOT NULL,
      package_id bigint REFERENCES traffic_packages(id) ON DELETE SET NULL,
      package_name text NOT NULL,
      data_mb integer NOT NULL,
      validity_days integer NOT NULL,
      price_fen bigint NOT NULL CHECK (price_fen >= 0),
      fulfilled_at timestamptz,
      plan_before numeric(12, 2),
      plan_after numeric(12, 2),
      expires_before timestamptz,
      expires_after timestamptz
    );
    CREATE INDEX order_lines_order_idx ON order_lines (order_id, id);
    CREATE INDEX order_lines_sim_idx ON order_lines (tenant_id, iccid, package_id);

    CREATE TABLE payment_notifications (
      id bigserial PRIMARY KEY,
      provider text NOT NULL,
      order_no text,
      order_id bigint REFERENCES orders(id) ON DELETE SET NULL,
      tenant_id bigint REFERENCES tenants(id),
      params jsonb NOT NULL,
      verified boolean NOT NULL,
      result text NOT NULL,
      at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX payment_notifications_order_idx ON payment_notifications (order_id, id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE payment_notifications, order_lines, orders, traffic_packages`.execute(db);
}
