import { sql, type Kysely } from 'kysely';

/**
 * Administration (issue 12): a department tree per tenant, users in one department, roles with a data scope,
 * and devices that remember who bound them and for which department, so a role's scope ("all", "department
 * and below", "own") is one indexed condition in the device list's SQL.
 *
 * A department's `path` is its ancestors' ids and its own, each followed by '/' ("1/5/9/"): "and below" is a
 * prefix match, served by the text_pattern_ops index. Moving a department rewrites the paths of its subtree.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE departments (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      parent_id bigint REFERENCES departments(id),
      name text NOT NULL,
      sort integer NOT NULL DEFAULT 0,
      path text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX departments_tenant_idx ON departments (tenant_id, parent_id, sort);
    CREATE INDEX departments_path_idx ON departments (tenant_id, path text_pattern_ops);
    -- names are unique among siblings (NULLS NOT DISTINCT: two roots of one tenant cannot share a name either)
    CREATE UNIQUE INDEX departments_sibling_name_key ON departments (tenant_id, parent_id, lower(name)) NULLS NOT DISTINCT;

    ALTER TABLE users ADD COLUMN department_id bigint REFERENCES departments(id);
    CREATE INDEX users_department_idx ON users (department_id) WHERE department_id IS NOT NULL;

    ALTER TABLE roles
      ADD COLUMN data_scope text NOT NULL DEFAULT 'all' CHECK (data_scope IN ('all', 'department', 'own')),
      ADD COLUMN description text NOT NULL DEFAULT '',
      -- a default role the system created (operator, viewer, Admin): editable, and recreated by no one
      ADD COLUMN builtin boolean NOT NULL DEFAULT false,
      ADD COLUMN created_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
    CREATE INDEX user_roles_role_idx ON user_roles (role_id);

    ALTER TABLE devices
      ADD COLUMN department_id bigint REFERENCES departments(id) ON DELETE SET NULL,
      ADD COLUMN owner_id bigint REFERENCES users(id) ON DELETE SET NULL;
    CREATE INDEX devices_tenant_department_idx ON devices (tenant_id, department_id, id DESC) WHERE tenant_id IS NOT NULL;
    CREATE INDEX devices_tenant_owner_idx ON devices (tenant_id, owner_id, id DESC) WHERE tenant_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE devices DROP COLUMN owner_id, DROP COLUMN department_id;
    DROP INDEX user_roles_role_idx;
    ALTER TABLE roles DROP COLUMN updated_at, DROP COLUMN created_at, DROP COLUMN builtin, DROP COLUMN description,
      DROP COLUMN data_scope;
    ALTER TABLE users DROP COLUMN department_id;
    DROP TABLE departments;
  `.execute(db);
}
