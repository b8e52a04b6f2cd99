import { sql, type Kysely } from 'kysely';

/**
 * The device side (DESIGN §4, §6): models, devices, groups, SIM cards, tasks and their batches,
 * telemetry history and online/offline history. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE device_models (
      id bigserial PRIMARY KEY,
      code text NOT NULL UNIQUE,
      name text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('printer', 'android-terminal')),
      paper_width_mm smallint NOT NULL DEFAULT 58,
      capabilities text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE device_groups (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      parent_id bigint REFERENCES device_groups(id) ON DELETE CASCADE,
      name text NOT NULL,
      sort integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX device_groups_name_key ON device_groups (tenant_id, coalesce(parent_id, 0), lower(name));

    -- A device exists from factory registration (tenant_id NULL) and belongs to a tenant once bound.
    CREATE TABLE devices (
      id bigserial PRIMARY KEY,
      sn text NOT NULL UNIQUE,
      tenant_id bigint REFERENCES tenants(id),
      model_id bigint NOT NULL REFERENCES device_models(id),
      -- sha256 of the bind key printed on the label; the key itself is never stored
      bind_key_hash text NOT NULL,
      -- the MQTT credential is derived from this; never logged, never sent to a browser
      secret text NOT NULL,
      bound_at timestamptz,
      name text NOT NULL DEFAULT '',
      remark text NOT NULL DEFAULT '',
      group_id bigint REFERENCES device_groups(id) ON DELETE SET NULL,
      firmware text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'offline' CHECK (status IN ('online', 'offline')),
      connected_at timestamptz,
      last_seen_at timestamptz,
      heartbeat_s integer NOT NULL DEFAULT 30,
      paper text NOT NULL DEFAULT 'ok' CHECK (paper IN ('ok', 'out', 'cover-open', 'overheat')),
      battery smallint CHECK (battery BETWEEN 0 AND 100),
      signal smallint CHECK (signal BETWEEN 0 AND 100),
      imei text NOT NULL DEFAULT '',
      iccid text,
      lat double precision,
      lng double precision,
      located_at timestamptz,
      province text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX devices_tenant_idx ON devices (tenant_id, id DESC) WHERE tenant_id IS NOT NULL;
    CREATE INDEX devices_tenant_status_idx ON devices (tenant_id, status) WHERE tenant_id IS NOT NULL;
    CREATE INDEX devices_tenant_group_idx ON devices (tenant_id, group_id) WHERE tenant_id IS NOT NULL;
    -- the heartbeat sweep looks for online devices not heard from in time
    CREATE INDEX devices_online_seen_idx ON devices (last_seen_at) WHERE status = 'online';

    CREATE TABLE sims (
      iccid text PRIMARY KEY,
      tenant_id bigint REFERENCES tenants(id),
      device_id bigint REFERENCES devices(id) ON DELETE SET NULL,
      msisdn text NOT NULL DEFAULT '',
      carrier text NOT NULL DEFAULT '',
      plan_total_mb numeric(12, 2) NOT NULL DEFAULT 0,
      used_mb numeric(12, 2) NOT NULL DEFAULT 0,
      expires_at timestamptz,
      state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'low', 'suspended'))
    );
    CREATE INDEX sims_tenant_idx ON sims (tenant_id) WHERE tenant_id IS NOT NULL;

    CREATE TABLE task_batches (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      type text NOT NULL,
      targets jsonb NOT NULL DEFAULT '{}',
      strategy jsonb NOT NULL DEFAULT '{"kind":"now"}',
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX task_batches_tenant_idx ON task_batches (tenant_id, id DESC);

    -- A command is a row before it is a message (DESIGN §2, §6).
    CREATE TABLE device_tasks (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      batch_id bigint REFERENCES task_batches(id) ON DELETE SET NULL,
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      type text NOT NULL CHECK (type IN ('reboot', 'shutdown', 'apply_profile', 'install_app', 'uninstall_app',
        'fetch_file', 'upgrade', 'push_message', 'deploy_model')),
      params jsonb NOT NULL DEFAULT '{}',
      state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'delivered', 'running', 'succeeded',
        'failed', 'timeout', 'expired', 'canceled')),
      progress smallint NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
      error text NOT NULL DEFAULT '',
      attempts smallint NOT NULL DEFAULT 0,
      max_attempts smallint NOT NULL DEFAULT 3,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      delivered_at timestamptz,
      started_at timestamptz,
      finished_at timestamptz,
      expire_at timestamptz NOT NULL
    );
    CREATE INDEX device_tasks_pending_idx ON device_tasks (device_id, created_at)
      WHERE state IN ('queued', 'sent', 'timeout');
    CREATE INDEX device_tasks_tenant_idx ON device_tasks (tenant_id, created_at DESC);
    CREATE INDEX device_tasks_device_idx ON device_tasks (device_id, created_at DESC);
    CREATE INDEX device_tasks_batch_idx ON device_tasks (batch_id) WHERE batch_id IS NOT NULL;
    -- the sweeper finds sent tasks without an ack and pending ones past their expiry
    CREATE INDEX device_tasks_open_idx ON device_tasks (updated_at) WHERE state IN ('queued', 'sent', 'delivered', 'running', 'timeout');

    -- Sampled telemetry for the detail page's history chart (not every heartbeat).
    CREATE TABLE device_telemetry (
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint REFERENCES tenants(id),
      at timestamptz NOT NULL DEFAULT now(),
      battery smallint,
      signal smallint,
      paper text,
      used_mb numeric(12, 2),
      lat double precision,
      lng double precision,
      PRIMARY KEY (device_id, at)
    );

    -- Every online/offline change, for the trend widget and the detail page.
    CREATE TABLE device_status_log (
      id bigserial PRIMARY KEY,
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint REFERENCES tenants(id),
      status text NOT NULL CHECK (status IN ('online', 'offline')),
      reason text NOT NULL DEFAULT '',
      at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX device_status_log_tenant_idx ON device_status_log (tenant_id, at DESC);
    CREATE INDEX device_status_log_device_idx ON device_status_log (device_id, at DESC);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE device_status_log, device_telemetry, device_tasks, task_batches, sims, devices, device_groups,
    device_models`.execute(db);
}
