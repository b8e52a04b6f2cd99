import { sql, type Kysely } from 'kysely';

/**
 * The payload-crypto replay guard (issue 17; issue 2 kept it in each node's memory): what every node has seen of
 * encrypted requests — the SHA-256 of a modern request's wrapped key, of each of a legacy request's ciphertext
 * blocks — for the window of an access token's life, so a request replayed to another node is refused too. One
 * `INSERT … ON CONFLICT DO NOTHING` per encrypted request, with an asynchronous commit (the request's own durable
 * write, if it makes one, flushes the log past it); expired rows are deleted by a cluster-once job. No index on
 * the expiry: the sweep reads the whole table once a minute, each request pays one index (the key) only.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payload_replays (
      digest bytea PRIMARY KEY,
      expires_at timestamptz NOT NULL
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE payload_replays`.execute(db);
}
