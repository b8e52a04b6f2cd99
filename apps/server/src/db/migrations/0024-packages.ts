import { sql, type Kysely } from 'kysely';

/**
 * Fleet software (issue 15): the packages a tenant sends to its devices, and what devices report while they work.
 * - `packages`: one row per uploaded version of firmware, an Android application (APK) or an AI model, its bytes an
 *   object (`objects.key`, kept by the storage layer) with their SHA-256. `identifier` is what versions share: the
 *   APK's package name, the firmware's product line, the model's id; `models` the device model codes it fits (empty:
 *   any); `meta` what the kind adds (APK: minimum SDK, permissions, signing certificate, icon; model: framework,
 *   inputs, outputs). A deleted package keeps its row (releases and history name it) with `deleted_at`.
 * - `device_tasks.stage`: the step a device reports while it works on a task (downloading, installing, rebooting…).
 * - `devices.time_zone`: the IANA zone a device reports in its hello, for maintenance windows in its own time.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE packages (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('firmware', 'app', 'model')),
      name text NOT NULL,
      identifier text NOT NULL,
      version_name text NOT NULL,
      version_code bigint NOT NULL DEFAULT 0,
      object_key text NOT NULL REFERENCES objects(key),
      size bigint NOT NULL CHECK (size >= 0),
      sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
      models text[] NOT NULL DEFAULT '{}',
      notes text NOT NULL DEFAULT '',
      meta jsonb NOT NULL DEFAULT '{}',
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    );
    CREATE UNIQUE INDEX packages_version_uq ON packages (tenant_id, kind, identifier, version_name) WHERE deleted_at IS NULL;
    CREATE INDEX packages_list_idx ON packages (tenant_id, kind, created_at DESC, id DESC);
    ALTER TABLE device_tasks ADD COLUMN stage text NOT NULL DEFAULT '';
    ALTER TABLE devices ADD COLUMN time_zone text NOT NULL DEFAULT '';
  `.execute(db);
}
