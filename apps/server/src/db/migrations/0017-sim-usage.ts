import { sql, type Kysely } from 'kysely';

/**
 * Data traffic (issue 13): every SIM state (active, low, exhausted, expired, suspended), the counters the gateway's
 * roll-up turns into a compact daily usage series (one row per SIM and day, keyed by the SIM so its history stays
 * with the ICCID when the card moves to another device), the month's usage kept on the SIM for the traffic query,
 * and the state last alerted so a customer gets one message per change. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE sims DROP CONSTRAINT IF EXISTS sims_state_check;
    ALTER TABLE sims ADD CONSTRAINT sims_state_check CHECK (state IN ('active', 'low', 'exhausted', 'expired', 'suspended'));
    -- a compact key for the usage series (8 bytes instead of a 20-digit text)
    ALTER TABLE sims ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY;
    ALTER TABLE sims ADD CONSTRAINT sims_id_key UNIQUE (id);
    -- the modem's last byte counters of the plan period; NULL: not reported yet (the next report is the baseline)
    ALTER TABLE sims ADD COLUMN tx_bytes bigint;
    ALTER TABLE sims ADD COLUMN rx_bytes bigint;
    -- when the roll-up last counted this SIM; NULL: its used_mb is not a baseline yet
    ALTER TABLE sims ADD COLUMN counted_at timestamptz;
    -- bytes used in the month month_start (local dates, Asia/Shanghai): "used this month" is month_bytes when
    -- month_start is this month, else 0
    ALTER TABLE sims ADD COLUMN month_start date;
    ALTER TABLE sims ADD COLUMN month_bytes bigint NOT NULL DEFAULT 0;
    -- the alert last sent: '' none, low, exhausted, expiring, expired (reset on a top-up)
    ALTER TABLE sims ADD COLUMN alerted_state text NOT NULL DEFAULT ''
      CHECK (alerted_state IN ('', 'low', 'exhausted', 'expiring', 'expired'));

    CREATE TABLE sim_usage_daily (
      sim_id bigint NOT NULL REFERENCES sims(id) ON DELETE CASCADE,
      day date NOT NULL,
      tx_bytes bigint NOT NULL DEFAULT 0,
      rx_bytes bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (sim_id, day)
    );
    CREATE INDEX sim_usage_daily_day_idx ON sim_usage_daily (day);

    -- the traffic query's filters and sorts within a tenant
    CREATE INDEX sims_tenant_state_idx ON sims (tenant_id, state) WHERE tenant_id IS NOT NULL;
    CREATE INDEX sims_tenant_expiry_idx ON sims (tenant_id, expires_at) WHERE tenant_id IS NOT NULL;
    CREATE INDEX sims_device_idx ON sims (device_id) WHERE device_id IS NOT NULL;
    -- the alert sweep's candidates: anything not plainly active, or alerted before, or with an expiry date
    CREATE INDEX sims_alert_idx ON sims (expires_at) WHERE tenant_id IS NOT NULL;
    CREATE INDEX sims_alert_state_idx ON sims (id) WHERE tenant_id IS NOT NULL AND (state <> 'active' OR alerted_state <> '');

    -- the state follows the data left and the expiry (SIM_LOW_MB = 50, SIM_LOW_RATIO = 0.1 in the contracts):
    -- suspended is the carrier's word and stays; a plan of 0 MB is "no plan", never low or exhausted.
    -- A top-up (more plan or a later expiry) clears the alert so the next change is told again.
    CREATE FUNCTION sim_state_v2() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.state <> 'suspended' THEN
        NEW.state := CASE
          WHEN NEW.expires_at IS NOT NULL AND NEW.expires_at <= now() THEN 'expired'
          WHEN NEW.plan_total_mb > 0 AND NEW.used_mb >= NEW.plan_total_mb THEN 'exhausted'
          WHEN NEW.plan_total_mb > 0 AND (NEW.plan_total_mb - NEW.used_mb < 50 OR NEW.plan_total_mb - NEW.used_mb < NEW.plan_total_mb * 0.1) THEN 'low'
          ELSE 'active' END;
      END IF;
      IF TG_OP = 'UPDATE' AND (NEW.plan_total_mb > OLD.plan_total_mb
          OR coalesce(NEW.expires_at, 'infinity') > coalesce(OLD.expires_at, 'infinity')) THEN
        NEW.alerted_state := '';
      END IF;
      RETURN NEW;
    END $$;
    DROP TRIGGER sims_data_state ON sims;
    CREATE TRIGGER sims_data_state BEFORE INSERT OR UPDATE OF plan_total_mb, used_mb, expires_at, state ON sims
      FOR EACH ROW EXECUTE FUNCTION sim_state_v2();
    UPDATE sims SET state = state;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP TRIGGER sims_data_state ON sims;
    CREATE TRIGGER sims_data_state BEFORE INSERT OR UPDATE OF plan_total_mb, used_mb, state ON sims
      FOR EACH ROW EXECUTE FUNCTION sim_data_state();
    DROP FUNCTION sim_state_v2();
    DROP TABLE sim_usage_daily;
    DROP INDEX sims_alert_state_idx;
    DROP INDEX sims_alert_idx;
    DROP INDEX sims_device_idx;
    DROP INDEX sims_tenant_expiry_idx;
    DROP INDEX sims_tenant_state_idx;
    ALTER TABLE sims DROP COLUMN alerted_state, DROP COLUMN month_bytes, DROP COLUMN month_start,
      DROP COLUMN counted_at, DROP COLUMN rx_bytes, DROP COLUMN tx_bytes, DROP COLUMN id;
    UPDATE sims SET state = 'active' WHERE state IN ('exhausted', 'expired');
    ALTER TABLE sims DROP CONSTRAINT sims_state_check;
    ALTER TABLE sims ADD CONSTRAINT sims_state_check CHECK (state IN ('active', 'low', 'suspended'));
  `.execute(db);
}
