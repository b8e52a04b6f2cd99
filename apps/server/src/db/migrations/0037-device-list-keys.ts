import { sql, type Kysely } from 'kysely';

/**
 * The two fleet-list mixes that read every device of a tenant (issue 17; `bench/device-list.ts`, 1,000,000
 * devices: a keyword p99 139 ms, `sort=dataLeft` p99 198 ms for the largest tenants):
 * - keyword: a trigram index of sn and name with the tenant in front (`btree_gin`), so `ILIKE '%…%'` on either
 *   column reads the posting lists of the keyword's trigrams within one tenant (keywords of 3 characters or more;
 *   shorter ones match as before, by reading the tenant's rows);
 * - `sort=dataLeft`: the SIM's data left (`plan_total_mb - used_mb` of the SIM whose ICCID the device names)
 *   copied onto the device as `sim_left_mb`, kept in step by triggers on both tables whatever writes them (the
 *   gateway's roll-up, a top-up, binding, a script), and indexed with the tenant.
 * Both indexes take an entry on every non-HOT update of a device (a batched last-seen write is one): the bench
 * prints that write cost with and without them. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE EXTENSION IF NOT EXISTS btree_gin;
    CREATE INDEX devices_tenant_trgm_idx ON devices USING gin (tenant_id, sn gin_trgm_ops, name gin_trgm_ops)
      WHERE tenant_id IS NOT NULL;

    ALTER TABLE devices ADD COLUMN sim_left_mb numeric;
    UPDATE devices d SET sim_left_mb = s.plan_total_mb - s.used_mb FROM sims s WHERE s.iccid = d.iccid;
    -- nulls (no SIM) last in both directions: the list reads the non-null part and the null part apart
    CREATE INDEX devices_tenant_sim_left_idx ON devices (tenant_id, sim_left_mb, id) WHERE tenant_id IS NOT NULL;

    -- a device that names another card (or its first) takes that card's data left
    CREATE FUNCTION device_sim_left() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' OR NEW.iccid IS DISTINCT FROM OLD.iccid THEN
        NEW.sim_left_mb := (SELECT s.plan_total_mb - s.used_mb FROM sims s WHERE s.iccid = NEW.iccid);
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER devices_sim_left BEFORE INSERT OR UPDATE OF iccid ON devices
      FOR EACH ROW EXECUTE FUNCTION device_sim_left();

    -- a card's counter, plan or ICCID changed (or the card came or went): the devices naming it follow
    CREATE FUNCTION sim_left_to_devices() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.iccid IS DISTINCT FROM NEW.iccid) THEN
        UPDATE devices SET sim_left_mb = NULL WHERE iccid = OLD.iccid AND sim_left_mb IS NOT NULL;
      END IF;
      IF TG_OP <> 'DELETE' THEN
        UPDATE devices SET sim_left_mb = NEW.plan_total_mb - NEW.used_mb
        WHERE iccid = NEW.iccid AND sim_left_mb IS DISTINCT FROM NEW.plan_total_mb - NEW.used_mb;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER sims_left_to_devices AFTER INSERT OR DELETE OR UPDATE OF iccid, plan_total_mb, used_mb ON sims
      FOR EACH ROW EXECUTE FUNCTION sim_left_to_devices();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER sims_left_to_devices ON sims;
    DROP FUNCTION sim_left_to_devices();
    DROP TRIGGER devices_sim_left ON devices;
    DROP FUNCTION device_sim_left();
    DROP INDEX devices_tenant_sim_left_idx;
    ALTER TABLE devices DROP COLUMN sim_left_mb;
    DROP INDEX devices_tenant_trgm_idx;
  `.execute(db);
}
