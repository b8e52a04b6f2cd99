import { sql, type Kysely } from 'kysely';

/** Accounts, sessions, identity, objects, menus, notices, messages, audit. Never edit once landed. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- Server-wide secrets and settings, shared by every node through the database.
    CREATE TABLE app_settings (
      key text PRIMARY KEY,
      value text NOT NULL
    );

    CREATE TABLE tenants (
      id bigserial PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('individual', 'enterprise', 'platform')),
      name text NOT NULL,
      auth_status smallint NOT NULL DEFAULT 0 CHECK (auth_status IN (0, 1, 2, 3)),
      attest_name text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE users (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      username text NOT NULL,
      mobile text,
      password_hash text NOT NULL,
      is_super smallint NOT NULL DEFAULT 2,
      state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
      avatar text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_username_key ON users (lower(username));
    CREATE UNIQUE INDEX users_mobile_key ON users (mobile) WHERE mobile IS NOT NULL;
    CREATE INDEX users_tenant_idx ON users (tenant_id);

    CREATE TABLE roles (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      code text NOT NULL,
      name text NOT NULL,
      permissions text[] NOT NULL DEFAULT '{}',
      UNIQUE (tenant_id, code)
    );
    CREATE TABLE user_roles (
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role_id bigint NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
      PRIMARY KEY (user_id, role_id)
    );

    -- A session is a refresh-token family: rotation keeps it, reuse of an old token revokes it.
    CREATE TABLE sessions (
      id uuid PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      ip text NOT NULL DEFAULT '',
      user_agent text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz,
      revoke_reason text
    );
    CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE revoked_at IS NULL;
    CREATE TABLE refresh_tokens (
      token_hash text PRIMARY KEY,
      session_id uuid NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    );
    CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

    CREATE TABLE captchas (
      id uuid PRIMARY KEY,
      answer text NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE TABLE sms_codes (
      id bigserial PRIMARY KEY,
      mobile text NOT NULL,
      purpose text NOT NULL,
      code_hash text NOT NULL,
      attempts int NOT NULL DEFAULT 0,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sms_codes_mobile_idx ON sms_codes (mobile, purpose, created_at DESC);

    CREATE TABLE objects (
      key text PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      user_id bigint NOT NULL REFERENCES users(id),
      bucket text NOT NULL,
      size bigint NOT NULL,
      mime text NOT NULL,
      original_name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX objects_tenant_idx ON objects (tenant_id);

    CREATE TABLE identity_submissions (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      user_id bigint NOT NULL REFERENCES users(id),
      kind text NOT NULL CHECK (kind IN ('individual', 'enterprise')),
      real_name text,
      id_number text,
      id_front_key text,
      id_back_key text,
      company_name text,
      credit_code text,
      legal_person text,
      licence_key text,
      status smallint NOT NULL DEFAULT 2 CHECK (status IN (1, 2, 3)),
      reason text,
      reviewed_by bigint REFERENCES users(id),
      reviewed_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX identity_tenant_idx ON identity_submissions (tenant_id, created_at DESC);
    CREATE INDEX identity_status_idx ON identity_submissions (status, created_at DESC);

    -- Route records of SPEC §3; platform-wide, filtered per user by their guard.
    CREATE TABLE menus (
      id bigserial PRIMARY KEY,
      parent_id bigint REFERENCES menus(id) ON DELETE CASCADE,
      path text NOT NULL,
      name text NOT NULL UNIQUE,
      component text,
      redirect text,
      meta jsonb NOT NULL DEFAULT '{}',
      sort int NOT NULL DEFAULT 0
    );

    CREATE TABLE notices (
      id bigserial PRIMARY KEY,
      title text NOT NULL,
      body_html text NOT NULL,
      image text NOT NULL DEFAULT '',
      pinned boolean NOT NULL DEFAULT false,
      published_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE messages (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      kind text NOT NULL,
      title text NOT NULL,
      body text NOT NULL DEFAULT '',
      read_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX messages_user_idx ON messages (user_id, created_at DESC);

    CREATE TABLE audit_log (
      id bigserial PRIMARY KEY,
      at timestamptz NOT NULL DEFAULT now(),
      tenant_id bigint REFERENCES tenants(id),
      user_id bigint REFERENCES users(id) ON DELETE SET NULL,
      ip text NOT NULL DEFAULT '',
      action text NOT NULL,
      resource text NOT NULL DEFAULT '',
      resource_id text NOT NULL DEFAULT '',
      result text NOT NULL,
      subject text NOT NULL DEFAULT '',
      details jsonb NOT NULL DEFAULT '{}'
    );
    CREATE INDEX audit_tenant_idx ON audit_log (tenant_id, at DESC);
    CREATE INDEX audit_login_fail_subject_idx ON audit_log (subject, at) WHERE action = 'login' AND result = 'fail';
    CREATE INDEX audit_login_fail_ip_idx ON audit_log (ip, at) WHERE action = 'login' AND result = 'fail';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE audit_log, messages, notices, menus, identity_submissions, objects, sms_codes, captchas,
    refresh_tokens, sessions, user_roles, roles, users, tenants, app_settings`.execute(db);
}
