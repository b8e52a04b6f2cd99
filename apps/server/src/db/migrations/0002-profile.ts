import { sql, type Kysely } from 'kysely';

/** Personal centre and sub-accounts: nickname and e-mail of a user, last activity of a session. Never edit once landed. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE users
      ADD COLUMN nickname text NOT NULL DEFAULT '',
      ADD COLUMN email text NOT NULL DEFAULT '';

    -- Bumped at login and at every token refresh, so the session list can say which browser is still in use.
    ALTER TABLE sessions ADD COLUMN last_active_at timestamptz NOT NULL DEFAULT now();

    -- The sub-account list of a tenant: its users that are not the main account.
    CREATE INDEX users_tenant_super_idx ON users (tenant_id, is_super, created_at DESC);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX users_tenant_super_idx;
    ALTER TABLE sessions DROP COLUMN last_active_at;
    ALTER TABLE users DROP COLUMN email, DROP COLUMN nickname;
  `.execute(db);
}
