import { sql, type Kysely } from 'kysely';

/**
 * Push tasks and push query (issue 16).
 * - `pushes`: one message (text, image, link, screen notice) to a set of devices, now or at `scheduled_at`, until
 *   `expire_at`. `targets` keeps what the sender chose ({deviceIds, groupIds, all}); `scope` the sender's data scope
 *   at the time (a scheduled push resolves its groups and the whole fleet when it starts, inside that scope).
 *   state: scheduled → sending → done | canceled.
 * - `push_deliveries`: each device of a push and the `push_message` device task that carries it (a retry gives it a
 *   new one). The delivery's state is read from that task (sent, delivered, displayed, expired, failed) and
 *   `clicked_at` (an `event` push.clicked from the device), so a restart loses nothing.
 * Never edit once landed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE pushes (
      id bigserial PRIMARY KEY,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('text', 'image', 'link', 'notice')),
      title text NOT NULL,
      body text NOT NULL DEFAULT '',
      image_key text,
      link text,
      notice_seconds int,
      targets jsonb NOT NULL DEFAULT '{}',
      scope jsonb NOT NULL DEFAULT '{}',
      state text NOT NULL CHECK (state IN ('scheduled', 'sending', 'done', 'canceled')),
      scheduled_at timestamptz,
      started_at timestamptz,
      expire_at timestamptz NOT NULL,
      finished_at timestamptz,
      created_by bigint REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX pushes_list_idx ON pushes (tenant_id, id DESC);
    CREATE INDEX pushes_due_idx ON pushes (scheduled_at) WHERE state = 'scheduled';
    CREATE INDEX pushes_open_idx ON pushes (id) WHERE state = 'sending';
    CREATE TABLE push_deliveries (
      push_id bigint NOT NULL REFERENCES pushes(id) ON DELETE CASCADE,
      device_id bigint NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
      tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
      task_id uuid REFERENCES device_tasks(id) ON DELETE SET NULL,
      clicked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (push_id, device_id)
    );
    CREATE INDEX push_deliveries_task_idx ON push_deliveries (task_id) WHERE task_id IS NOT NULL;
    CREATE INDEX push_deliveries_device_idx ON push_deliveries (device_id);
  `.execute(db);
}
