import { sql, type Kysely } from 'kysely';

/**
 * Firmware upgrades (issue 15).
 * - `upgrade_releases`: one firmware package sent to a set of devices in waves (wave 1 the canary, wave 2 the rest),
 *   `throttle` devices at a time, inside each device's maintenance window (hh:mm in its own zone), halted by itself
 *   when a wave's failures pass `fail_percent` (and `fail_min_count`). `waiting_since`: wave 1 is done and wave 2
 *   waits for the soak time (`soak_minutes`, null: a manual promote).
 * - `upgrade_devices`: each device of a release, resolved when it is created: its wave, its step and the device task
 *   that carries it (`task_id`; a retry gives it a new one). What a device does is read back from `device_tasks`, so
 *   a restart loses nothing.
 * - `device_firmware_history`: every firmware change of a device, from a release or seen on a hello.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE upgrade_releases (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      package_id bigint NOT NULL REFERENCES packages(id),
      state text NOT NULL CHECK (state IN ('running', 'waiting', 'paused', 'halted', 'completed', 'canceled')),
      wave smallint NOT NULL DEFAULT 1 CHECK (wave IN (1, 2)),
      halt_reason text NOT NULL DEFAULT '',
      targets jsonb NOT NULL DEFAULT '{}',
      canary_percent smallint NOT NULL CHECK (canary_percent BETWEEN 0 AND 50),
      soak_minutes int,
      throttle int NOT NULL CHECK (throttle > 0),
      window_start text,
      window_end text,
      fail_percent smallint NOT NULL,
      fail_min_count int NOT NULL,
      expire_at timestamptz NOT NULL,
      waiting_since timestamptz,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz
    );
    CREATE INDEX upgrade_releases_list_idx ON upgrade_releases (tenant_id, id DESC);
    CREATE INDEX upgrade_releases_open_idx ON upgrade_releases (id) WHERE state IN ('running', 'waiting');
    CREATE TABLE upgrade_devices (
      release_id bigint NOT NULL REFERENCES upgrade_releases(id) ON DELETE CASCADE,
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      wave smallint NOT NULL,
      state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'downloading', 'downloaded', 'installing',
        'rebooting', 'verified', 'failed', 'canceled', 'skipped')),
      progress smallint NOT NULL DEFAULT 0,
      reason text NOT NULL DEFAULT '',
      from_version text NOT NULL DEFAULT '',
      task_id uuid REFERENCES device_tasks(id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (release_id, device_id)
    );
    CREATE INDEX upgrade_devices_task_idx ON upgrade_devices (task_id) WHERE task_id IS NOT NULL;
    CREATE INDEX upgrade_devices_device_idx ON upgrade_devices (device_id);
    CREATE TABLE device_firmware_history (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      from_version text NOT NULL,
      to_version text NOT NULL,
      source text NOT NULL CHECK (source IN ('release', 'hello')),
      release_id bigint REFERENCES upgrade_releases(id) ON DELETE SET NULL,
      at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX device_firmware_history_device_idx ON device_firmware_history (device_id, at DESC, id DESC);
  `.execute(db);
}
