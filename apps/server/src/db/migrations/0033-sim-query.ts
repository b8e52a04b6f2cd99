import { sql, type Kysely } from 'kysely';

/**
 * The traffic query at 1,000,000 SIMs (issue 13's leftovers): a tenant's SIMs are spread over the whole table (one
 * heap page each, as devices are imported across tenants), so every query that reads the tenant's rows pays a page
 * per SIM. These indexes let a page, a count and a keyword read the tenant's entries of one index instead:
 * - the list's default order (least data left first) and the expiry order walk an index of the tenant in that
 *   order (the expressions are the list's sort keys, exactly), so a page reads its 20 rows;
 * - the tenant's ICCIDs, and its devices' sn and name, in narrow indexes: the count and a keyword read those;
 * - the tenant's SIMs per state with what the summary adds up (month, expiry): the summary reads that index.
 * `sims_tenant_idx (tenant_id)` is replaced by `(tenant_id, iccid)`, which serves every query it served.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX sims_tenant_left_idx ON sims
      (tenant_id, (CASE WHEN plan_total_mb > 0 THEN plan_total_mb - used_mb ELSE 1e15 END), iccid)
      WHERE tenant_id IS NOT NULL;
    CREATE INDEX sims_tenant_expiry_order_idx ON sims
      (tenant_id, (coalesce(expires_at, 'infinity'::timestamptz)), iccid) WHERE tenant_id IS NOT NULL;
    CREATE INDEX sims_tenant_iccid_idx ON sims (tenant_id, iccid) WHERE tenant_id IS NOT NULL;
    DROP INDEX sims_tenant_idx;
    CREATE INDEX devices_tenant_keyword_idx ON devices (tenant_id) INCLUDE (id, sn, name) WHERE tenant_id IS NOT NULL;
    DROP INDEX sims_tenant_state_idx;
    CREATE INDEX sims_tenant_state_idx ON sims (tenant_id, state) INCLUDE (id, expires_at, month_start, month_bytes)
      WHERE tenant_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX sims_tenant_state_idx;
    CREATE INDEX sims_tenant_state_idx ON sims (tenant_id, state) WHERE tenant_id IS NOT NULL;
    DROP INDEX devices_tenant_keyword_idx;
    CREATE INDEX sims_tenant_idx ON sims (tenant_id) WHERE tenant_id IS NOT NULL;
    DROP INDEX sims_tenant_iccid_idx;
    DROP INDEX sims_tenant_expiry_order_idx;
    DROP INDEX sims_tenant_left_idx;
  `.execute(db);
}
