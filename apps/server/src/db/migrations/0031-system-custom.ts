import { sql, type Kysely } from 'kysely';

/**
 * System customization (issue 16): profiles, their versions, where they are assigned, and each device's state.
 * - `custom_profiles`: a customer's profile (name, description).
 * - `custom_profile_versions`: `version` null is the profile's one draft (editable); 1, 2, … are published and never
 *   change. `settings` holds the six parts without secrets; the kiosk exit and app-lock unlock passwords are kept
 *   apart as salted scrypt hashes (`{alg, salt, hash, N, r, p, keylen}`). `hash`/`part_hashes`: the hashes of the
 *   configuration a device gets (profileHashes in contracts/device-protocol), what its report is compared with.
 * - `custom_profile_assignments`: a profile given to one device or one group; a device or group has at most one.
 * - `device_profile_state`: per device, the profile that governs it after resolution (device beats group, nearest
 *   group beats farther) and where from, the version it should run, the version it runs, its last apply task
 *   (whose state `device_tasks` holds), its last report (hash, per-part hashes) and whether it drifted.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE custom_profiles (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX custom_profiles_list_idx ON custom_profiles (tenant_id, updated_at DESC, id DESC);

    CREATE TABLE custom_profile_versions (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      profile_id bigint NOT NULL REFERENCES custom_profiles(id) ON DELETE CASCADE,
      version integer,
      settings jsonb NOT NULL DEFAULT '{}',
      kiosk_password jsonb,
      applock_password jsonb,
      hash text NOT NULL DEFAULT '',
      part_hashes jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      published_at timestamptz,
      published_by bigint REFERENCES users(id) ON DELETE SET NULL,
      UNIQUE (profile_id, version)
    );
    CREATE UNIQUE INDEX custom_profile_versions_draft_uq ON custom_profile_versions (profile_id) WHERE version IS NULL;

    CREATE TABLE custom_profile_assignments (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      profile_id bigint NOT NULL REFERENCES custom_profiles(id) ON DELETE CASCADE,
      device_id bigint REFERENCES devices(id) ON DELETE CASCADE,
      group_id bigint REFERENCES device_groups(id) ON DELETE CASCADE,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((device_id IS NULL) <> (group_id IS NULL))
    );
    CREATE UNIQUE INDEX custom_profile_assignments_device_uq ON custom_profile_assignments (device_id)
      WHERE device_id IS NOT NULL;
    CREATE UNIQUE INDEX custom_profile_assignments_group_uq ON custom_profile_assignments (group_id)
      WHERE group_id IS NOT NULL;
    CREATE INDEX custom_profile_assignments_profile_idx ON custom_profile_assignments (tenant_id, profile_id);

    CREATE TABLE device_profile_state (
      device_id bigint PRIMARY KEY REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      profile_id bigint REFERENCES custom_profiles(id) ON DELETE SET NULL,
      source text CHECK (source IN ('device', 'group')),
      source_group_id bigint REFERENCES device_groups(id) ON DELETE SET NULL,
      desired_version_id bigint REFERENCES custom_profile_versions(id) ON DELETE SET NULL,
      applied_version_id bigint REFERENCES custom_profile_versions(id) ON DELETE SET NULL,
      task_id uuid,
      reported_hash text,
      reported_parts jsonb,
      reported_version_id bigint,
      drift boolean NOT NULL DEFAULT false,
      drift_fields text[] NOT NULL DEFAULT '{}',
      reported_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX device_profile_state_profile_idx ON device_profile_state (tenant_id, profile_id);
  `.execute(db);
}
