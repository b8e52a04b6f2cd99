import { sql, type Kysely } from 'kysely';

/**
 * Cloud printing (DESIGN §4, §6): app keys of the open API, the nonces and rate counters of its signature
 * check, its request log and hourly usage, print jobs (a row before a message), webhook deliveries and
 * their attempts. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE app_keys (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      app_id text NOT NULL UNIQUE,
      -- the HMAC key of the signatures and webhooks; shown once, never logged
      secret text NOT NULL,
      name text NOT NULL,
      state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
      callback_url text NOT NULL DEFAULT '',
      ip_allow text[] NOT NULL DEFAULT '{}',
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      secret_rotated_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz
    );
    CREATE INDEX app_keys_tenant_idx ON app_keys (tenant_id, id DESC);

    -- Nonces seen within the clock window, shared by every node. Written with asynchronous commit (a crash of
    -- PostgreSQL forgets at most the last fraction of a second of them).
    CREATE TABLE open_nonces (
      app_key_id bigint NOT NULL,
      nonce text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (app_key_id, nonce)
    );
    CREATE INDEX open_nonces_expiry_idx ON open_nonces (expires_at);
    -- Calls per key per second, shared by every node; losing them in a crash only resets a second's count.
    CREATE UNLOGGED TABLE open_rate (
      app_key_id bigint NOT NULL,
      window_s bigint NOT NULL,
      hits integer NOT NULL,
      PRIMARY KEY (app_key_id, window_s)
    );

    CREATE TABLE open_request_log (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL,
      app_key_id bigint NOT NULL REFERENCES app_keys(id) ON DELETE CASCADE,
      at timestamptz NOT NULL,
      method text NOT NULL,
      path text NOT NULL,
      call text NOT NULL,
      code smallint NOT NULL,
      reason text,
      latency_ms real NOT NULL,
      ip text NOT NULL,
      job_id uuid,
      test_print boolean NOT NULL DEFAULT false
    );
    CREATE INDEX open_request_log_key_idx ON open_request_log (app_key_id, at DESC);
    -- retention deletes by time; a BRIN index is tiny for an append-only table
    CREATE INDEX open_request_log_at_brin ON open_request_log USING brin (at);

    CREATE TABLE app_key_usage (
      app_key_id bigint NOT NULL REFERENCES app_keys(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL,
      hour timestamptz NOT NULL,
      calls integer NOT NULL DEFAULT 0,
      errors integer NOT NULL DEFAULT 0,
      jobs integer NOT NULL DEFAULT 0,
      PRIMARY KEY (app_key_id, hour)
    );

    CREATE TABLE print_jobs (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      -- submission order, per device on resend
      seq bigserial NOT NULL,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      app_key_id bigint REFERENCES app_keys(id) ON DELETE SET NULL,
      device_id bigint NOT NULL REFERENCES devices(id),
      origin_id text NOT NULL,
      content text NOT NULL,
      format text NOT NULL CHECK (format IN ('escpos', 'markup')),
      -- what goes down to the device: ESC/POS bytes, or the markup for a terminal
      payload bytea NOT NULL,
      preview text NOT NULL,
      columns smallint NOT NULL,
      copies smallint NOT NULL DEFAULT 1 CHECK (copies BETWEEN 1 AND 99),
      state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'delivered', 'printing', 'printed',
        'failed', 'timeout', 'expired', 'canceled')),
      error text NOT NULL DEFAULT '',
      attempts smallint NOT NULL DEFAULT 0,
      max_attempts smallint NOT NULL DEFAULT 5,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      delivered_at timestamptz,
      started_at timestamptz,
      finished_at timestamptz,
      expire_at timestamptz NOT NULL
    );
    -- the idempotency of submits: one job per origin id per key, whatever the concurrency
    CREATE UNIQUE INDEX print_jobs_origin_key ON print_jobs (app_key_id, origin_id);
    -- resend on hello, in submission order; clearing a device's queue
    CREATE INDEX print_jobs_pending_idx ON print_jobs (device_id, seq) WHERE state IN ('queued', 'sent', 'timeout', 'delivered', 'printing');
    CREATE INDEX print_jobs_tenant_idx ON print_jobs (tenant_id, created_at DESC);
    CREATE INDEX print_jobs_key_idx ON print_jobs (app_key_id, created_at DESC);
    CREATE INDEX print_jobs_device_idx ON print_jobs (device_id, created_at DESC);
    -- the sweeps: sent without an ack, waiting for a resend, past their expiry
    CREATE INDEX print_jobs_sent_idx ON print_jobs (sent_at) WHERE state = 'sent';
    CREATE INDEX print_jobs_waiting_idx ON print_jobs (updated_at) WHERE state IN ('queued', 'timeout');
    CREATE INDEX print_jobs_expire_idx ON print_jobs (expire_at) WHERE state IN ('queued', 'sent', 'delivered', 'printing', 'timeout');

    -- One row per job state to report to a key's callback URL: written in the same statement as the state change.
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      tenant_id bigint NOT NULL,
      app_key_id bigint NOT NULL REFERENCES app_keys(id) ON DELETE CASCADE,
      job_id uuid NOT NULL REFERENCES print_jobs(id) ON DELETE CASCADE,
      job_state text NOT NULL,
      job_error text NOT NULL DEFAULT '',
      occurred_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'retrying', 'succeeded', 'failed')),
      attempts smallint NOT NULL DEFAULT 0,
      last_status smallint,
      last_error text NOT NULL DEFAULT '',
      next_attempt_at timestamptz,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_deliveries_key_idx ON webhook_deliveries (app_key_id, created_at DESC);
    CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant_id, created_at DESC);
    CREATE INDEX webhook_deliveries_job_idx ON webhook_deliveries (job_id);
    -- deliveries whose first try was never queued (a crash between the commit and the queue)
    CREATE INDEX webhook_deliveries_untried_idx ON webhook_deliveries (created_at) WHERE attempts = 0 AND state = 'pending';

    CREATE TABLE webhook_attempts (
      id bigserial PRIMARY KEY,
      delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL,
      attempt smallint NOT NULL,
      manual boolean NOT NULL DEFAULT false,
      at timestamptz NOT NULL DEFAULT now(),
      status smallint,
      duration_ms integer NOT NULL,
      error text NOT NULL DEFAULT '',
      response text NOT NULL DEFAULT ''
    );
    CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE webhook_attempts;
    DROP TABLE webhook_deliveries;
    DROP TABLE print_jobs;
    DROP TABLE app_key_usage;
    DROP TABLE open_request_log;
    DROP TABLE open_rate;
    DROP TABLE open_nonces;
    DROP TABLE app_keys;
  `.execute(db);
}
