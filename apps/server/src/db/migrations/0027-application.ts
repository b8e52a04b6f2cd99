import { sql, type Kysely } from 'kysely';

/**
 * Application management (issue 15): deployments of apps and AI models, each device's reported inventory, and the
 * tenant's required apps.
 * - `app_deployments`: one install / uninstall of an app (or deploy / remove of a model) to devices and groups; its
 *   device tasks carry `batch_id` = the deployment's `task_batches` row, so the counts per state are read from
 *   `device_tasks` (nothing here to keep in step). `source` 'policy' for what the required-apps policy sent.
 * - `device_inventory`: the last inventory of each device (free storage, a hash of the lists: a report that changed
 *   nothing writes nothing); `device_apps` / `device_ai_models` its apps and models, replaced when it changed.
 * - `required_apps`: apps every device of the tenant must have, at a minimum version code (null: the latest).
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE app_deployments (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      batch_id bigint NOT NULL REFERENCES task_batches(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('app', 'model')),
      action text NOT NULL CHECK (action IN ('install', 'uninstall')),
      package_id bigint REFERENCES packages(id),
      identifier text NOT NULL,
      version_name text NOT NULL DEFAULT '',
      version_code bigint NOT NULL DEFAULT 0,
      targets jsonb NOT NULL DEFAULT '{}',
      source text NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'policy')),
      canceled_at timestamptz,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX app_deployments_list_idx ON app_deployments (tenant_id, created_at DESC, id DESC);
    CREATE UNIQUE INDEX app_deployments_batch_uq ON app_deployments (batch_id);

    CREATE TABLE device_inventory (
      device_id bigint PRIMARY KEY REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      hash text NOT NULL,
      storage_free_mb double precision,
      reported_at timestamptz NOT NULL DEFAULT now(),
      changed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE device_apps (
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      pkg text NOT NULL,
      name text NOT NULL DEFAULT '',
      version_code bigint NOT NULL DEFAULT 0,
      version_name text NOT NULL DEFAULT '',
      PRIMARY KEY (device_id, pkg)
    );
    CREATE INDEX device_apps_pkg_idx ON device_apps (tenant_id, pkg, version_code);
    CREATE TABLE device_ai_models (
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      name text NOT NULL,
      version text NOT NULL DEFAULT '',
      framework text NOT NULL DEFAULT '',
      PRIMARY KEY (device_id, name)
    );
    CREATE INDEX device_ai_models_name_idx ON device_ai_models (tenant_id, name, version);

    CREATE TABLE required_apps (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      identifier text NOT NULL,
      min_version_code bigint,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (tenant_id, identifier)
    );
  `.execute(db);
}
