import { sql, type Kysely } from 'kysely';

/**
 * The device list's keyword (issue 17). PostgreSQL estimates how many devices `sn ILIKE '%333%'` matches by
 * trying the pattern on the column's histogram: with the default 100 entries, a three-digit keyword found in one
 * or two of them reads as 1–2 % of the tenant, and the plan flips from the trigram index (0.7 ms for the largest
 * tenant) to reading the whole tenant (20 ms: bench/README.md, "device-list"). A histogram of 1,000 entries on
 * `sn` and `name` puts such a keyword near its true share (~0.4 %). Costs a larger ANALYZE sample and a few
 * tenths of a millisecond of planning for a keyword. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE devices ALTER COLUMN sn SET STATISTICS 1000, ALTER COLUMN name SET STATISTICS 1000;
    ANALYZE devices (sn, name);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE devices ALTER COLUMN sn SET STATISTICS -1, ALTER COLUMN name SET STATISTICS -1`.execute(db);
}
