import { sql, type Kysely } from 'kysely';

/**
 * Counters of attempts shared by every node (issue 10, hardening): a row per bucket and key (an account's
 * logins, a client address's captchas, a session's lock-screen passwords, …) counting hits in a fixed window
 * that starts at its first hit. A hit is one `INSERT … ON CONFLICT DO UPDATE … RETURNING` (lib/counters.ts), so
 * check and count are one step under the row's lock: no number of simultaneous requests, on any number of
 * nodes, gets past the limit. It is logged, so a crash of PostgreSQL does not hand out a fresh window of
 * password guesses. The login throttle no longer counts failures in the audit log, so its two indexes go.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE rate_counters (
      bucket text NOT NULL,
      key text NOT NULL,
      hits integer NOT NULL,
      -- the end of the window, to the millisecond (a caller takes its own hit back only in the window it made it)
      reset_at timestamptz NOT NULL,
      PRIMARY KEY (bucket, key)
    );
    CREATE INDEX rate_counters_reset_idx ON rate_counters (reset_at);

    DROP INDEX audit_login_fail_subject_idx;
    DROP INDEX audit_login_fail_ip_idx;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX audit_login_fail_subject_idx ON audit_log (subject, at) WHERE action = 'login' AND result = 'fail';
    CREATE INDEX audit_login_fail_ip_idx ON audit_log (ip, at) WHERE action = 'login' AND result = 'fail';
    DROP TABLE rate_counters;
  `.execute(db);
}
