import { sql, type Kysely } from 'kysely';

/**
 * The device gateway (DESIGN §6): the id of a device's current MQTT connection, so that the last will of an
 * older connection arriving late cannot mark a reconnected device offline; indexes for the task sweeps.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE devices ADD COLUMN conn_id text;
    -- the ack-timeout sweep and the expiry sweep
    CREATE INDEX device_tasks_sent_idx ON device_tasks (sent_at) WHERE state = 'sent';
    CREATE INDEX device_tasks_expire_idx ON device_tasks (expire_at) WHERE state IN ('queued', 'sent', 'delivered', 'running', 'timeout');
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    DROP INDEX device_tasks_expire_idx;
    DROP INDEX device_tasks_sent_idx;
    ALTER TABLE devices DROP COLUMN conn_id;
  `.execute(db);
}
