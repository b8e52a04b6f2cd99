import { sql, type Kysely } from 'kysely';

/**
 * The dashboard's "target" widget (issue 14): the monthly print-job target an account sets, one row per tenant
 * (no row: no target). Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE dashboard_targets (
      tenant_id bigint PRIMARY KEY REFERENCES tenants(id),
      monthly_jobs integer NOT NULL CHECK (monthly_jobs > 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      updated_by bigint REFERENCES users(id) ON DELETE SET NULL
    );
  `.execute(db);
}
