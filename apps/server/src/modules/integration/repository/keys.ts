import { sql } from 'kysely';
import { defineQueries } from '../../../db/query-spec.ts';
import { Repository } from '../../../db/repository.ts';

/** An app key as the console shows it (with its secret, shown only on creation and rotation). */
export interface KeyRow {
  id: number;
  app_id: string;
  secret: string;
  name: string;
  state: 'active' | 'disabled';
  callback_url: string;
  ip_allow: string[];
  rate_limit: number | null;
  created_at: Date;
  secret_rotated_at: Date;
  last_used_at: Date | null;
}
const KEY_COLS = [
  'app_keys.id',
  'app_keys.app_id',
  'app_keys.secret',
  'app_keys.name',
  'app_keys.state',
  'app_keys.callback_url',
  'app_keys.ip_allow',
  'app_keys.rate_limit',
  'app_keys.created_at',
  'app_keys.secret_rotated_at',
  'app_keys.last_used_at',
] as const;

/** A new key's values. */
export interface NewKey {
  app_id: string;
  secret: string;
  name: string;
  callback_url: string;
  ip_allow: string[];
  rate_limit: number | null;
  created_by: number;
}

/** What a change of a key sets (only what is given). */
export interface KeyChange {
  name?: string;
  callback_url?: string;
  ip_allow?: string[];
  rate_limit?: number | null;
}

/** A changed key with the values it had before. */
export type ChangedKey = KeyRow & {
  old_name: string;
  old_callback_url: string;
  old_ip_allow: string[];
  old_rate_limit: number | null;
};

/** Which request-log lines a page shows. */
export interface RequestFilter {
  pageNo: number;
  pageSize: number;
  from?: string;
  to?: string;
  result?: 'ok' | 'error';
}

/** The app keys of a tenant (`app_keys`), their request log (`open_request_log`) and usage (`app_key_usage`). */
export class AppKeyRepository extends Repository {
  /** A page of the tenant's keys, newest first, with a keyword in the name or app id; and their count. */
  async listKeys(
    tenantId: number,
    q: { pageNo: number; pageSize: number; keyword?: string },
  ): Promise<{ rows: KeyRow[]; total: number }> {
    let base = this.scope(tenantId).selectFrom('app_keys');
    if (q.keyword) {
      const like = `%${q.keyword.replace(/[\\%_]/g, '\\$&')}%`;
      base = base.where((eb) => eb.or([eb('app_keys.name', 'ilike', like), eb('app_keys.app_id', 'ilike', like)]));
    }
    const [rows, total] = await Promise.all([
      base
        .select(KEY_COLS)
        .orderBy('app_keys.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: total.n };
  }

  findKey(tenantId: number, id: number): Promise<KeyRow | undefined> {
    return this.scope(tenantId)
      .selectFrom('app_keys')
      .select(KEY_COLS)
      .where('app_keys.id', '=', id)
      .executeTakeFirst();
  }

  /** Locks the tenant's row until the transaction ends: simultaneous creations of its keys queue here. */
  async lockTenant(tenantId: number): Promise<void> {
    await this.db.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().executeTakeFirst();
  }

  async countKeys(tenantId: number): Promise<number> {
    const row = await this.scope(tenantId)
      .selectFrom('app_keys')
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return row.n;
  }

  insertKey(tenantId: number, key: NewKey): Promise<KeyRow> {
    return this.scope(tenantId)
      .insertInto('app_keys', key)
      .returning([...KEY_COLS])
      .executeTakeFirstOrThrow();
  }

  /** Sets what is given; the values before come back from the update itself (its FROM reads the row as it was). */
  updateKey(tenantId: number, id: number, set: KeyChange): Promise<ChangedKey | undefined> {
    const scope = this.scope(tenantId);
    return scope
      .updateTable('app_keys')
      .from(
        scope
          .selectFrom('app_keys')
          .select([
            'app_keys.id',
            'app_keys.name as old_name',
            'app_keys.callback_url as old_callback_url',
            'app_keys.ip_allow as old_ip_allow',
            'app_keys.rate_limit as old_rate_limit',
          ])
          .where('app_keys.id', '=', id)
          .forUpdate()
          .as('old'),
      )
      .set(set)
      .whereRef('app_keys.id', '=', 'old.id')
      .returning([...KEY_COLS])
      .returning(['old.old_name', 'old.old_callback_url', 'old.old_ip_allow', 'old.old_rate_limit'])
      .executeTakeFirst();
  }

  setKeyState(tenantId: number, id: number, state: 'active' | 'disabled'): Promise<KeyRow | undefined> {
    return this.scope(tenantId)
      .updateTable('app_keys')
      .set({ state })
      .where('app_keys.id', '=', id)
      .returning([...KEY_COLS])
      .executeTakeFirst();
  }

  /** A new secret, rotated now. */
  setSecret(tenantId: number, id: number, secret: string, at: Date): Promise<KeyRow | undefined> {
    return this.scope(tenantId)
      .updateTable('app_keys')
      .set({ secret, secret_rotated_at: at })
      .where('app_keys.id', '=', id)
      .returning([...KEY_COLS])
      .executeTakeFirst();
  }

  deleteKey(tenantId: number, id: number): Promise<{ app_id: string; name: string; callback_url: string } | undefined> {
    return this.scope(tenantId)
      .deleteFrom('app_keys')
      .where('app_keys.id', '=', id)
      .returning(['app_keys.app_id', 'app_keys.name', 'app_keys.callback_url'])
      .executeTakeFirst();
  }

  /** A page of a key's request-log lines of the last `days` days, newest first; and their count. */
  async listRequests(tenantId: number, keyId: number, days: number, q: RequestFilter) {
    let base = this.scope(tenantId)
      .selectFrom('open_request_log')
      .where('open_request_log.app_key_id', '=', keyId)
      .where('open_request_log.at', '>=', sql<Date>`now() - make_interval(days => ${days})`);
    if (q.from) base = base.where('open_request_log.at', '>=', new Date(q.from));
    if (q.to) base = base.where('open_request_log.at', '<', new Date(q.to));
    if (q.result) base = base.where('open_request_log.code', q.result === 'ok' ? '=' : '<>', 200);
    const [rows, total] = await Promise.all([
      base
        .selectAll('open_request_log')
        .orderBy('open_request_log.at', 'desc')
        .orderBy('open_request_log.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: total.n };
  }

  /** A key's calls, errors and jobs per day of the last `days` days in time zone `tz`, every day present. */
  async usageByDay(
    tenantId: number,
    keyId: number,
    q: { days: number; tz: string },
  ): Promise<{ day: string; calls: number; errors: number; jobs: number }[]> {
    const { rows } = await sql<{ day: string; calls: number; errors: number; jobs: number }>`
      WITH days AS (
        SELECT generate_series((now() AT TIME ZONE ${q.tz})::date - ${q.days - 1}::int, (now() AT TIME ZONE ${q.tz})::date, interval '1 day')::date AS day
      ), u AS (
        SELECT (hour AT TIME ZONE ${q.tz})::date AS day, sum(calls)::int AS calls, sum(errors)::int AS errors, sum(jobs)::int AS jobs
        FROM app_key_usage
        WHERE app_key_id = ${keyId} AND tenant_id = ${tenantId} AND hour >= now() - make_interval(days => ${q.days + 1})
        GROUP BY 1
      )
      SELECT to_char(days.day, 'YYYY-MM-DD') AS day, coalesce(u.calls, 0) AS calls, coalesce(u.errors, 0) AS errors, coalesce(u.jobs, 0) AS jobs
      FROM days LEFT JOIN u ON u.day = days.day ORDER BY days.day`.execute(this.db);
    return rows;
  }
}

const page = { pageNo: 1, pageSize: 20 };

export const keyQueries = defineQueries(AppKeyRepository, {
  listKeys: [
    { args: [3, page], results: [[], [{ n: 0 }]] },
    { args: [3, { ...page, keyword: 'shop_1' }], results: [[], [{ n: 0 }]] },
  ],
  findKey: [[3, 7]],
  lockTenant: [[3]],
  countKeys: [{ args: [3], results: [[{ n: 2 }]] }],
  insertKey: [
    {
      args: [
        3,
        {
          app_id: 'ak3f9a1c2b4d5e6f70',
          secret: 'c2VjcmV0LW9mLXRoZS1rZXktZm9yLXRoZS1zbmFwc2hvdA',
          name: 'Shop till',
          callback_url: 'https://shop.example.com/hooks/print',
          ip_allow: ['203.0.113.0/24'],
          rate_limit: null,
          created_by: 12,
        },
      ],
      results: [[{ id: 7 }]],
    },
  ],
  updateKey: [
    [3, 7, { name: 'Shop till 2' }],
    [3, 7, { name: 'Shop till 2', callback_url: '', ip_allow: [], rate_limit: 20 }],
  ],
  setKeyState: [[3, 7, 'disabled']],
  setSecret: [[3, 7, 'bmV3LXNlY3JldC1vZi10aGUta2V5LWZvci1zbmFwc2hvdA', new Date('2026-01-01T00:00:00Z')]],
  deleteKey: [[3, 7]],
  listRequests: [
    { args: [3, 7, 30, page], results: [[], [{ n: 0 }]] },
    {
      args: [3, 7, 30, { ...page, from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', result: 'error' }],
      results: [[], [{ n: 0 }]],
    },
  ],
  usageByDay: [[3, 7, { days: 7, tz: 'Asia/Shanghai' }]],
});
