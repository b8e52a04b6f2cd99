import { sql, type Kysely } from 'kysely';

/**
 * Devices, second round (issue 4 audit): the SIM's state follows the data left, whoever writes the counter or
 * the plan (the gateway, a top-up, a script); devices not yet provisioned on an external broker's dynamic
 * security are found without a scan; wrong bind keys are counted per account and serial number.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- low when less than 50 MB or less than 10 % of the plan is left (SIM_LOW_MB, SIM_LOW_RATIO in the contracts);
    -- a SIM without a plan (0 MB) is not low, the console says "no plan"; suspended is the carrier's word and stays
    CREATE FUNCTION sim_data_state() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.state <> 'suspended' THEN
        NEW.state := CASE
          WHEN NEW.plan_total_mb > 0 AND (NEW.plan_total_mb - NEW.used_mb < 50 OR NEW.plan_total_mb - NEW.used_mb < NEW.plan_total_mb * 0.1) THEN 'low'
          ELSE 'active' END;
      END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER sims_data_state BEFORE INSERT OR UPDATE OF plan_total_mb, used_mb, state ON sims
      FOR EACH ROW EXECUTE FUNCTION sim_data_state();
    UPDATE sims SET state = state;

    -- when the device's client and role were created on the external broker (MQTT_DYNSEC); NULL: still to do
    ALTER TABLE devices ADD COLUMN broker_synced_at timestamptz;
    CREATE INDEX devices_broker_unsynced_idx ON devices (id) WHERE broker_synced_at IS NULL;

    -- wrong bind keys per account and serial number in the last 15 minutes
    CREATE INDEX audit_bind_fail_tenant_idx ON audit_log (tenant_id, subject, at) WHERE action = 'device.bind' AND result = 'fail';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX audit_bind_fail_tenant_idx;
    DROP INDEX devices_broker_unsynced_idx;
    ALTER TABLE devices DROP COLUMN broker_synced_at;
    DROP TRIGGER sims_data_state ON sims;
    DROP FUNCTION sim_data_state();
  `.execute(db);
}
