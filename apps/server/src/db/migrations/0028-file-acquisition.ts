import { sql, type Kysely } from 'kysely';

/**
 * File acquisition (issue 15): one row per device asked for files. The device gets a `fetch_file` task (`task_id`)
 * and uploads what matched, in chunks, to a signed link bound to this row; `received`/`total` follow the upload
 * (the bytes so far live in a partial file beside the object storage), and the finished file is an object
 * (`object_key`, bucket 'acquired'). What the console shows (waiting, delivered, uploading, failed, expired) is read
 * from the task's own state, so nothing here has to be kept in step with it. Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE file_requests (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      task_id uuid NOT NULL REFERENCES device_tasks(id) ON DELETE CASCADE,
      preset text NOT NULL DEFAULT '',
      pattern text NOT NULL,
      max_bytes bigint NOT NULL CHECK (max_bytes > 0),
      ready boolean NOT NULL DEFAULT false,
      received bigint NOT NULL DEFAULT 0,
      total bigint NOT NULL DEFAULT 0,
      file_name text NOT NULL DEFAULT '',
      object_key text REFERENCES objects(key) ON DELETE SET NULL,
      size bigint NOT NULL DEFAULT 0,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz
    );
    CREATE INDEX file_requests_list_idx ON file_requests (tenant_id, created_at DESC, id DESC);
    CREATE UNIQUE INDEX file_requests_task_uq ON file_requests (task_id);
  `.execute(db);
}
