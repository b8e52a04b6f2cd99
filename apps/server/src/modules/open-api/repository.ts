import { sql } from 'kysely';
import { PREPARED, type Db } from '../../db/database.ts';
import { defineQueries } from '../../db/query-spec.ts';

/** An app key's row as the signature checks read it. */
export interface KeyRow {
  id: number;
  tenant_id: number;
  app_id: string;
  secret: string;
  state: string;
  ip_allow: string[];
  rate_limit: number | null;
}

/** One call's rate count and nonce, as written. */
export interface CallCount {
  keyId: number;
  /** The start of the call's rate window (unix seconds). */
  windowS: number;
  nonce: string;
  expiresAt: Date;
  /** The key's calls per window: a call over it records no nonce. */
  limit: number;
}

/** What the count answers a call: its place in the window's count, a new nonce, the key's row as it is now. */
export interface Counted {
  hits: number;
  fresh: boolean;
  key: KeyRow | null;
}

/** One line of the request log, as written. */
export interface LogLine {
  tenant_id: number;
  app_key_id: number;
  at: Date;
  method: string;
  path: string;
  call: string;
  code: number;
  reason: string | null;
  latency_ms: number;
  ip: string;
  job_id: string | null;
  test_print: boolean;
}

/** A key's calls, errors and new jobs in one hour, to add to its usage. */
export interface UsageHour {
  keyId: number;
  tenantId: number;
  hour: Date;
  calls: number;
  errors: number;
  jobs: number;
}

/**
 * The count's gate (lib/write-gate.ts) as common table expressions, for the statement of a write that carries it
 * (a submit's job row): from `b (i int, g jsonb)` to `gate (i, hits, fresh, key, pass)`, with the same counting as
 * a group of calls one by one (each call its own place in its key's window, in the order of i; a nonce sent twice
 * fresh only for the first). The key is compared on its secret's hash, state, allow-list and limit: the checks
 * the node made must still hold. `OpenApiRepository.countCall` counts one call by the same rule (kept apart: this
 * jsonb unpacking would slow that path down); change one, change both.
 */
export const GATE_CTES = sql`
  g_b AS (
    SELECT b.i, (b.g->>'key_id')::bigint AS key_id, (b.g->>'window_s')::bigint AS window_s, b.g->>'nonce' AS nonce,
      (b.g->>'expires_at')::timestamptz AS expires_at, (b.g->>'lim')::int AS lim, b.g->>'secret_sha' AS secret_sha,
      b.g->>'state' AS state, ARRAY(SELECT jsonb_array_elements_text(b.g->'ip_allow')) AS ip_allow,
      (b.g->>'rate_limit')::int AS rate_limit
    FROM b WHERE b.g IS NOT NULL
  ), g_c AS (
    SELECT key_id, window_s, count(*)::int AS n FROM g_b GROUP BY key_id, window_s
  ), g_r AS (
    INSERT INTO open_rate (app_key_id, window_s, hits) SELECT key_id, window_s, n FROM g_c ORDER BY key_id, window_s
    ON CONFLICT (app_key_id, window_s) DO UPDATE SET hits = open_rate.hits + excluded.hits
    RETURNING app_key_id, window_s, hits
  ), g_ranked AS (
    SELECT g_b.*, (g_r.hits - g_c.n + row_number() OVER (PARTITION BY g_b.key_id, g_b.window_s ORDER BY g_b.i))::int AS hits
    FROM g_b JOIN g_c USING (key_id, window_s) JOIN g_r ON g_r.app_key_id = g_b.key_id AND g_r.window_s = g_b.window_s
  ), g_firsts AS (
    SELECT DISTINCT ON (key_id, nonce) i, key_id, nonce, expires_at FROM g_ranked WHERE hits <= lim ORDER BY key_id, nonce, i
  ), g_n AS (
    INSERT INTO open_nonces (app_key_id, nonce, expires_at) SELECT key_id, nonce, expires_at FROM g_firsts
    ON CONFLICT DO NOTHING
    RETURNING app_key_id, nonce
  ), g_k AS (
    SELECT id, tenant_id, app_id, secret, state, ip_allow, rate_limit FROM app_keys WHERE id IN (SELECT key_id FROM g_c)
  ), gate AS (
    SELECT g.i, g.hits, g.fresh, g.key,
      g.fresh AND g.hits <= g.lim AND g.unchanged AS pass
    FROM (
      SELECT r.i, r.hits, r.lim,
        EXISTS (SELECT 1 FROM g_n JOIN g_firsts f ON f.key_id = g_n.app_key_id AND f.nonce = g_n.nonce WHERE f.i = r.i) AS fresh,
        (SELECT to_jsonb(k) FROM g_k k WHERE k.id = r.key_id) AS key,
        EXISTS (
          SELECT 1 FROM g_k k WHERE k.id = r.key_id AND encode(sha256(convert_to(k.secret, 'UTF8')), 'hex') = r.secret_sha
            AND k.state = r.state AND k.ip_allow = r.ip_allow AND k.rate_limit IS NOT DISTINCT FROM r.rate_limit
        ) AS unchanged
      FROM g_ranked r
    ) g
  )`;

/**
 * Every statement of the open API: the rate counters and nonces (`open_rate`, `open_nonces`), the request log and
 * usage (`open_request_log`, `app_key_usage`), and what the checks read and the log writes of the app keys.
 */
export class OpenApiRepository {
  constructor(private db: Db) {}

  /** The key row of an app id, or null. */
  async findKey(appId: string): Promise<KeyRow | null> {
    return (
      (await this.db
        .selectFrom('app_keys')
        .select(['id', 'tenant_id', 'app_id', 'secret', 'state', 'ip_allow', 'rate_limit'])
        .where('app_id', '=', appId)
        .executeTakeFirst()) ?? null
    );
  }

  /**
   * One call's rate count and nonce (recorded only within the limit), and the key's row as it is now, in one
   * statement with a durable commit. `GATE_CTES` counts a group of calls by the same rule; change one, change both.
   */
  async countCall(c: CallCount): Promise<Counted> {
    const { rows } = await sql<Counted>`${PREPARED}
      WITH r AS (
        INSERT INTO open_rate (app_key_id, window_s, hits) VALUES (${c.keyId}, ${c.windowS}, 1)
        ON CONFLICT (app_key_id, window_s) DO UPDATE SET hits = open_rate.hits + 1
        RETURNING hits
      ), n AS (
        INSERT INTO open_nonces (app_key_id, nonce, expires_at)
        SELECT ${c.keyId}, ${c.nonce}, ${c.expiresAt} FROM r WHERE r.hits <= ${c.limit}
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT r.hits, EXISTS (SELECT 1 FROM n) AS fresh,
        (SELECT to_jsonb(k) FROM (SELECT id, tenant_id, app_id, secret, state, ip_allow, rate_limit FROM app_keys WHERE id = ${c.keyId}) k) AS key
      FROM r`.execute(this.db);
    return rows[0];
  }

  /** Forgets expired nonces and rate counters of windows over a minute old. */
  async pruneCounts(): Promise<void> {
    await sql`DELETE FROM open_nonces WHERE expires_at < now()`.execute(this.db);
    await sql`DELETE FROM open_rate WHERE window_s < extract(epoch FROM now())::bigint - 60`.execute(this.db);
  }

  /** Request-log lines, in one statement (a line of a key deleted meanwhile makes it fail: the caller drops them). */
  async insertLogLines(lines: LogLine[]): Promise<void> {
    await this.db.insertInto('open_request_log').values(lines).execute();
  }

  /** Adds calls, errors and jobs to the keys' hourly usage (keys deleted meanwhile left out). */
  async addUsage(u: UsageHour[]): Promise<void> {
    await sql`
      INSERT INTO app_key_usage (app_key_id, tenant_id, hour, calls, errors, jobs)
      SELECT k, t, h, c, e, j FROM unnest(${u.map((x) => x.keyId)}::bigint[], ${u.map((x) => x.tenantId)}::bigint[], ${u.map((x) => x.hour)}::timestamptz[],
        ${u.map((x) => x.calls)}::int[], ${u.map((x) => x.errors)}::int[], ${u.map((x) => x.jobs)}::int[]) AS x(k, t, h, c, e, j)
      WHERE EXISTS (SELECT 1 FROM app_keys WHERE id = k)
      ON CONFLICT (app_key_id, hour) DO UPDATE SET calls = app_key_usage.calls + excluded.calls,
        errors = app_key_usage.errors + excluded.errors, jobs = app_key_usage.jobs + excluded.jobs`.execute(this.db);
  }

  /** Moves the keys' last use on to the given times (never back). */
  async markKeysUsed(lastUse: Map<number, Date>): Promise<void> {
    await sql`
        UPDATE app_keys a SET last_used_at = greatest(a.last_used_at, x.at)
        FROM unnest(${[...lastUse.keys()]}::bigint[], ${[...lastUse.values()]}::timestamptz[]) AS x(id, at)
        WHERE a.id = x.id`.execute(this.db);
  }

  /** Deletes log lines and usage older than the retention. */
  async pruneLog(retentionDays: number): Promise<void> {
    await sql`DELETE FROM open_request_log WHERE at < now() - make_interval(days => ${retentionDays})`.execute(this.db);
    await sql`DELETE FROM app_key_usage WHERE hour < now() - make_interval(days => ${retentionDays + 1})`.execute(
      this.db,
    );
  }
}

const AT = new Date('2026-01-01T08:15:00Z');

export const openApiQueries = defineQueries(OpenApiRepository, {
  findKey: [['ak3f9a1c2b4d5e6f70']],
  countCall: [
    {
      args: [
        { keyId: 7, windowS: 1767254400, nonce: 'n-8c1f2e', expiresAt: new Date('2026-01-01T08:21:00Z'), limit: 50 },
      ],
      results: [[{ hits: 1, fresh: true, key: null }]],
    },
  ],
  pruneCounts: [[]],
  insertLogLines: [
    [
      [
        {
          tenant_id: 3,
          app_key_id: 7,
          at: AT,
          method: 'POST',
          path: '/open/v1/print',
          call: 'POST /open/v1/print',
          code: 200,
          reason: null,
          latency_ms: 12.5,
          ip: '203.0.113.7',
          job_id: '0b9e8f7a-6c5d-4e3f-8a2b-1c0d9e8f7a6b',
          test_print: false,
        },
      ],
    ],
  ],
  addUsage: [[[{ keyId: 7, tenantId: 3, hour: new Date('2026-01-01T08:00:00Z'), calls: 4, errors: 1, jobs: 3 }]]],
  markKeysUsed: [[new Map([[7, AT]])]],
  pruneLog: [[30]],
});
