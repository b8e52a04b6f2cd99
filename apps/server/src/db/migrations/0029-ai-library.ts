import { sql, type Kysely } from 'kysely';

/**
 * The AI library's cloud OCR (issue 15): `ocr_jobs` is both the durable queue and the result store. A node takes
 * queued jobs with `FOR UPDATE SKIP LOCKED` (so N nodes never take the same one), a running job whose lease ran out
 * (its node died) goes back to the queue, and a job is deleted 7 days after it was made (`expires_at`).
 * - `image_key`: the image in object storage — the console's upload (an `objects` row of the tenant) or, for the open
 *   API, an object the job stored itself (`own_image`: deleted with the job).
 * - `lines`: [{text, confidence}] per recognised line; `print` (open API): {deviceSn, copies} to print once done,
 *   `print_job_id` the print job made for it.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE ocr_jobs (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      source text NOT NULL CHECK (source IN ('console', 'open')),
      app_key_id bigint REFERENCES app_keys(id) ON DELETE SET NULL,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      image_key text NOT NULL,
      own_image boolean NOT NULL DEFAULT false,
      file_name text NOT NULL DEFAULT '',
      size bigint NOT NULL DEFAULT 0,
      mime text NOT NULL,
      state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
      attempts int NOT NULL DEFAULT 0,
      lease_until timestamptz,
      text text NOT NULL DEFAULT '',
      lines jsonb NOT NULL DEFAULT '[]',
      language text NOT NULL DEFAULT '',
      duration_ms int,
      error text NOT NULL DEFAULT '',
      print jsonb,
      print_job_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      expires_at timestamptz NOT NULL DEFAULT now() + interval '7 days'
    );
    CREATE INDEX ocr_jobs_queue_idx ON ocr_jobs (created_at) WHERE state = 'queued';
    CREATE INDEX ocr_jobs_running_idx ON ocr_jobs (lease_until) WHERE state = 'running';
    CREATE INDEX ocr_jobs_list_idx ON ocr_jobs (tenant_id, created_at DESC, id DESC);
    CREATE INDEX ocr_jobs_expiry_idx ON ocr_jobs (expires_at);
  `.execute(db);
}
