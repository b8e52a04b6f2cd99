import { sql, type Kysely } from 'kysely';

/**
 * The device REST API: serial numbers unique without regard to case (binding matches them so), the fleet list's
 * orders (so a page of a 30,000-device tenant reads 20 rows, not all of them), lookups of the factory import's
 * duplicate checks, and the bind-key throttle. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE UNIQUE INDEX devices_sn_lower_key ON devices (lower(sn));
    -- the list's default order (newest bound first), by serial number, and by last seen (never seen = oldest)
    CREATE INDEX devices_tenant_bound_idx ON devices (tenant_id, bound_at DESC, id DESC) WHERE tenant_id IS NOT NULL;
    CREATE INDEX devices_tenant_sn_idx ON devices (tenant_id, sn) WHERE tenant_id IS NOT NULL;
    CREATE INDEX devices_tenant_seen_idx ON devices (tenant_id, last_seen_at DESC NULLS LAST, id DESC) WHERE tenant_id IS NOT NULL;
    -- the few devices with a paper problem (list filter, dashboard reminder); small, and untouched by heartbeats of the rest
    CREATE INDEX devices_tenant_paper_idx ON devices (tenant_id, paper) WHERE tenant_id IS NOT NULL AND paper <> 'ok';
    CREATE INDEX devices_iccid_idx ON devices (iccid) WHERE iccid IS NOT NULL;
    CREATE INDEX devices_imei_idx ON devices (imei) WHERE imei <> '';
    -- wrong bind keys per serial number in the last 15 minutes
    CREATE INDEX audit_bind_fail_subject_idx ON audit_log (subject, at) WHERE action = 'device.bind' AND result = 'fail';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX audit_bind_fail_subject_idx;
    DROP INDEX devices_imei_idx;
    DROP INDEX devices_iccid_idx;
    DROP INDEX devices_tenant_paper_idx;
    DROP INDEX devices_tenant_seen_idx;
    DROP INDEX devices_tenant_sn_idx;
    DROP INDEX devices_tenant_bound_idx;
    DROP INDEX devices_sn_lower_key;
  `.execute(db);
}
