import { sql, type Kysely } from 'kysely';

/**
 * The print sweep's per-printer look-ups (issue 17). Every sweep tick asks, for each online printer, whether it
 * has jobs to send again (queued or timed out) or taken jobs that went silent (delivered or printing). Through
 * `print_jobs_pending_idx` each such probe read every open job of the printer, and with statistics a burst had
 * outrun the planner crossed it with the tenant's whole job index: about a second of PostgreSQL CPU per tick
 * with 1,000 printers online and 20,000 jobs (bench/README.md, "print"). These partial indexes hold only the jobs
 * each question is about, so a printer with none costs one empty probe. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX print_jobs_resend_idx ON print_jobs (device_id, seq) WHERE state IN ('queued', 'timeout');
    CREATE INDEX print_jobs_taken_idx ON print_jobs (device_id, seq) WHERE state IN ('delivered', 'printing');
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX print_jobs_taken_idx;
    DROP INDEX print_jobs_resend_idx;
  `.execute(db);
}
