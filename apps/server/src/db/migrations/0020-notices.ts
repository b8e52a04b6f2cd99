import { sql, type Kysely } from 'kysely';

/**
 * System announcements (issue 14): staff write them, customers read them.
 * - `notices` gains a life (draft → published → withdrawn), an audience (everyone, individual or enterprise
 *   customers, or chosen tenants), an optional end, who wrote it and when. `published_at` is the publish time:
 *   null for a draft nobody scheduled; a `published` row whose time is in the future is scheduled. The rows of
 *   0001 (and a row inserted with the defaults) stay published to everyone, now. `announced_at` / `end_announced_at`: when consoles were told that it went
 *   live / ended (the periodic sweep tells them of the scheduled ones, once across nodes).
 * - `notice_reads`: one row per user and notice read. Unread = the live notices of the reader's audience minus
 *   the reader's reads: a publish writes nothing per user (100,000 users cost one row, not 100,000).
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE notices
      ADD COLUMN state text NOT NULL DEFAULT 'published' CHECK (state IN ('draft', 'published', 'withdrawn')),
      ADD COLUMN audience text NOT NULL DEFAULT 'all' CHECK (audience IN ('all', 'individual', 'enterprise', 'tenants')),
      ADD COLUMN tenant_ids bigint[] NOT NULL DEFAULT '{}',
      ADD COLUMN ends_at timestamptz,
      ADD COLUMN created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      ADD COLUMN updated_by bigint REFERENCES users(id) ON DELETE SET NULL,
      ADD COLUMN created_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now(),
      ADD COLUMN withdrawn_at timestamptz,
      ADD COLUMN announced_at timestamptz,
      ADD COLUMN end_announced_at timestamptz,
      ALTER COLUMN published_at DROP NOT NULL,
      ADD CONSTRAINT notices_ends_after_publish CHECK (ends_at IS NULL OR published_at IS NULL OR ends_at > published_at);
    UPDATE notices SET announced_at = published_at WHERE published_at <= now();
    CREATE INDEX notices_live_idx ON notices (published_at DESC, id DESC) WHERE state = 'published';
    CREATE INDEX notices_tenant_ids_idx ON notices USING gin (tenant_ids) WHERE audience = 'tenants';

    CREATE TABLE notice_reads (
      user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      notice_id bigint NOT NULL REFERENCES notices(id) ON DELETE CASCADE,
      read_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, notice_id)
    );
    CREATE INDEX notice_reads_notice_idx ON notice_reads (notice_id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TABLE notice_reads;
    DELETE FROM notices WHERE state <> 'published' OR published_at IS NULL;
    ALTER TABLE notices
      DROP CONSTRAINT notices_ends_after_publish,
      DROP COLUMN state, DROP COLUMN audience, DROP COLUMN tenant_ids, DROP COLUMN ends_at,
      DROP COLUMN created_by, DROP COLUMN updated_by, DROP COLUMN created_at, DROP COLUMN updated_at,
      DROP COLUMN withdrawn_at, DROP COLUMN announced_at, DROP COLUMN end_announced_at,
      ALTER COLUMN published_at SET NOT NULL;
  `.execute(db);
}
