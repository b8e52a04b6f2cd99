import { sql, type Kysely } from 'kysely';

/**
 * The message centre (issue 14): each message is also sent by e-mail, once, by a periodic job.
 * - `messages.mail_state`: `pending` (to be mailed), `sent`, `skipped` (no address, or older than this migration),
 *   `failed` (given up after MAIL_MAX_ATTEMPTS); `mail_attempts` counts the tries, `mailed_at` the success.
 *   Messages that exist already are `skipped` (nobody is mailed their history); new rows start `pending`, also
 *   those inserted by bulk SQL (SIM alerts), so the job finds every one of them through a partial index.
 * - the inbox's filters: kind and time per user.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE messages
      ADD COLUMN mail_state text NOT NULL DEFAULT 'skipped'
        CHECK (mail_state IN ('pending', 'sent', 'skipped', 'failed')),
      ADD COLUMN mail_attempts smallint NOT NULL DEFAULT 0,
      ADD COLUMN mailed_at timestamptz;
    ALTER TABLE messages ALTER COLUMN mail_state SET DEFAULT 'pending';
    CREATE INDEX messages_mail_pending_idx ON messages (id) WHERE mail_state = 'pending';
    CREATE INDEX messages_user_unread_idx ON messages (user_id) WHERE read_at IS NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX messages_user_unread_idx;
    DROP INDEX messages_mail_pending_idx;
    ALTER TABLE messages DROP COLUMN mailed_at, DROP COLUMN mail_attempts, DROP COLUMN mail_state;
  `.execute(db);
}
