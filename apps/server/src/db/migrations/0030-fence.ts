import { sql, type Kysely } from 'kysely';

/**
 * Geofencing (issue 16). PostGIS is absent from the embedded PostgreSQL: a fence's shape is GeoJSON-like jsonb
 * (WGS-84) evaluated in Node with Turf, and `min_lng..max_lat` is its bounding box, a cheap prefilter in SQL
 * (a point outside the box is outside the fence without Turf).
 * - `fences`: circle {center, radiusM} or polygon {ring} (closed), schedule {kind: always|weekly…}, alert rule,
 *   dwell seconds, `version` (optimistic edits), soft-deleted (`deleted_at`; events keep their fence).
 * - `fence_targets`: a device or a group (a group includes its sub-groups) per row.
 * - `fence_device_state`: a device's confirmed side of a fence since when, and a side change waiting for its
 *   dwell time (`pending_side`, `pending_since` and the position where it crossed).
 * - `fence_events`: each confirmed enter/leave with where and when the device crossed.
 * - `device_positions`: a device's track, kept 7 days; a report is stored when it moved ≥ 10 m or 5 minutes passed
 *   since the last stored one.
 * - webhook deliveries carry other events than a print job's state: `event` and `payload` (the job columns are
 *   null then); a print job's delivery is unchanged.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE fences (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      shape jsonb NOT NULL,
      min_lng float8 NOT NULL,
      min_lat float8 NOT NULL,
      max_lng float8 NOT NULL,
      max_lat float8 NOT NULL,
      schedule jsonb NOT NULL DEFAULT '{"kind":"always"}',
      alert_on text NOT NULL DEFAULT 'leave' CHECK (alert_on IN ('leave', 'enter', 'both')),
      dwell_s integer NOT NULL DEFAULT 60 CHECK (dwell_s BETWEEN 0 AND 3600),
      enabled boolean NOT NULL DEFAULT true,
      version integer NOT NULL DEFAULT 1,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    );
    CREATE INDEX fences_tenant_idx ON fences (tenant_id, id DESC) WHERE deleted_at IS NULL;
    CREATE UNIQUE INDEX fences_name_idx ON fences (tenant_id, name) WHERE deleted_at IS NULL;

    CREATE TABLE fence_targets (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      fence_id bigint NOT NULL REFERENCES fences(id) ON DELETE CASCADE,
      device_id bigint REFERENCES devices(id) ON DELETE CASCADE,
      group_id bigint REFERENCES device_groups(id) ON DELETE CASCADE,
      CHECK ((device_id IS NULL) <> (group_id IS NULL))
    );
    CREATE INDEX fence_targets_fence_idx ON fence_targets (fence_id);
    CREATE INDEX fence_targets_device_idx ON fence_targets (device_id) WHERE device_id IS NOT NULL;
    CREATE INDEX fence_targets_group_idx ON fence_targets (group_id) WHERE group_id IS NOT NULL;

    CREATE TABLE fence_device_state (
      fence_id bigint NOT NULL REFERENCES fences(id) ON DELETE CASCADE,
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      side text NOT NULL CHECK (side IN ('inside', 'outside')),
      since timestamptz NOT NULL DEFAULT now(),
      pending_side text CHECK (pending_side IN ('inside', 'outside')),
      pending_since timestamptz,
      pending_lat float8,
      pending_lng float8,
      changed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (fence_id, device_id)
    );
    CREATE INDEX fence_device_state_device_idx ON fence_device_state (device_id);
    CREATE INDEX fence_device_state_pending_idx ON fence_device_state (pending_since) WHERE pending_side IS NOT NULL;

    CREATE TABLE fence_events (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      fence_id bigint NOT NULL REFERENCES fences(id) ON DELETE CASCADE,
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('enter', 'leave')),
      at timestamptz NOT NULL DEFAULT now(),
      lat float8 NOT NULL,
      lng float8 NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX fence_events_tenant_idx ON fence_events (tenant_id, at DESC);
    CREATE INDEX fence_events_fence_idx ON fence_events (fence_id, at DESC);
    CREATE INDEX fence_events_device_idx ON fence_events (device_id, at DESC);

    CREATE TABLE device_positions (
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      at timestamptz NOT NULL DEFAULT now(),
      lat float8 NOT NULL,
      lng float8 NOT NULL,
      accuracy_m real,
      PRIMARY KEY (device_id, at)
    );
    CREATE INDEX device_positions_at_idx ON device_positions (at);

    ALTER TABLE webhook_deliveries
      ALTER COLUMN job_id DROP NOT NULL,
      ALTER COLUMN job_state DROP NOT NULL,
      ADD COLUMN event text NOT NULL DEFAULT 'print.job.state',
      ADD COLUMN payload jsonb,
      ADD CHECK (job_id IS NOT NULL OR payload IS NOT NULL);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DELETE FROM webhook_deliveries WHERE job_id IS NULL;
    ALTER TABLE webhook_deliveries DROP COLUMN payload, DROP COLUMN event,
      ALTER COLUMN job_id SET NOT NULL, ALTER COLUMN job_state SET NOT NULL;
    DROP TABLE device_positions;
    DROP TABLE fence_events;
    DROP TABLE fence_device_state;
    DROP TABLE fence_targets;
    DROP TABLE fences;
  `.execute(db);
}
