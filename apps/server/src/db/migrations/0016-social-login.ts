import { sql, type Kysely } from 'kysely';

/**
 * Social login (issue 12): OpenID Connect / OAuth 2.0 sign-in through identity providers configured by
 * environment. `social_flows` holds one started authorization (state, nonce and PKCE verifier, single use,
 * expiring; `link_user_id` when a signed-in user links another identity), `social_link_tickets` an identity
 * the IdP vouched for that is not linked yet (the user links it with a password or registers), and
 * `user_identities` the links: one account per (provider, subject). Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE social_flows (
      state_hash text PRIMARY KEY,
      provider text NOT NULL,
      nonce text NOT NULL,
      code_verifier text NOT NULL,
      redirect_uri text NOT NULL,
      link_user_id bigint REFERENCES users(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX social_flows_expires_idx ON social_flows (expires_at);

    CREATE TABLE social_link_tickets (
      ticket_hash text PRIMARY KEY,
      provider text NOT NULL,
      subject text NOT NULL,
      email text,
      name text,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX social_link_tickets_expires_idx ON social_link_tickets (expires_at);

    CREATE TABLE user_identities (
      id bigserial PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id),
      provider text NOT NULL,
      subject text NOT NULL,
      email text,
      name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (provider, subject)
    );
    CREATE INDEX user_identities_user_idx ON user_identities (tenant_id, user_id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE user_identities;
    DROP TABLE social_link_tickets;
    DROP TABLE social_flows;
  `.execute(db);
}
