import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { defineQueries } from '../../db/query-spec.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import { inDataScope, type DataAccess } from '../../lib/data-scope.ts';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Kysely's own type of a query that selects nothing yet
type LogQuery = SelectQueryBuilder<Database, 'audit_log', {}>;

/** The advisory lock key of the pruning (any constant of its own): one node prunes at a time. */
const PRUNE_LOCK = 0x5359_534c; // "SYSL"

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Which entries a reading means, every name and prefix already resolved (by the service). */
export interface LogFilter {
  /** One tenant's entries (a customer's own, or the tenant staff asked for). */
  tenantId?: number;
  /** A customer narrower than its account: only the actions of the users within its reach. */
  narrowedTo?: DataAccess;
  /** The users the name filter found. */
  userIds?: number[];
  /** Known actions the action filter means, or the prefix itself when it means none known yet. */
  action?: { in: string[] } | { like: string };
  resource?: string;
  resourceId?: string;
  result?: 'ok' | 'fail' | 'denied';
  from?: Date;
  to?: Date;
}

/** A position in the list's order (newest first): microseconds since the epoch and id. */
export interface LogKey {
  us: number;
  id: number;
}

/** An entry with its user's and tenant's names, and its time in microseconds (`us`, for the next cursor). */
export interface LogRow {
  id: number;
  at: Date;
  us: number;
  tenant_id: number | null;
  user_id: number | null;
  ip: string;
  action: string;
  resource: string;
  resource_id: string;
  result: string;
  subject: string;
  details: unknown;
  user_name: string | null;
  tenant_name: string | null;
}

/** Every statement of the system log: reading and pruning `audit_log`, and finding users by name for its filter. */
export class SystemLogRepository {
  constructor(private db: Db) {}

  /** The filter as conditions on audit_log (in the order the indexes are chosen by). */
  private filtered(f: LogFilter): LogQuery {
    let q: LogQuery =
      f.tenantId !== undefined
        ? new TenantScope(this.db, f.tenantId).selectFrom('audit_log')
        : this.db.selectFrom('audit_log');
    const access = f.narrowedTo;
    if (access)
      q = q.where(
        sql<boolean>`audit_log.user_id in (select users.id from users
          where users.tenant_id = ${access.tenantId} and ${inDataScope(access, 'users', 'id')})`,
      );
    if (f.userIds) q = q.where('audit_log.user_id', 'in', f.userIds);
    if (f.action) {
      const a = f.action;
      q =
        'like' in a
          ? q.where('audit_log.action', 'like', `${escapeLike(a.like)}%`)
          : a.in.length === 1
            ? q.where('audit_log.action', '=', a.in[0])
            : q.where('audit_log.action', 'in', a.in);
    }
    if (f.resource) q = q.where('audit_log.resource', '=', f.resource);
    if (f.resourceId) q = q.where('audit_log.resource_id', '=', f.resourceId);
    if (f.result) q = q.where('audit_log.result', '=', f.result);
    // names the partial indexes' predicate, so the planner can use them for fail and denied
    if (f.result && f.result !== 'ok') q = q.where('audit_log.result', '<>', 'ok');
    if (f.from) q = q.where('audit_log.at', '>=', f.from);
    if (f.to) q = q.where('audit_log.at', '<=', f.to);
    return q;
  }

  /**
   * The accounts a user-name filter means (of one tenant, or all): the one of that very name first (`exact`),
   * then those the name begins, at most 20.
   */
  usersByName(name: string, tenantId?: number) {
    let users = this.db
      .selectFrom('users')
      .select(['id', sql<boolean>`lower(username) = ${name}`.as('exact')])
      .where(sql<string>`lower(username)`, 'like', `${escapeLike(name)}%`)
      .orderBy(sql`lower(username) = ${name}`, 'desc')
      .orderBy('id')
      .limit(20);
    if (tenantId !== undefined) users = users.where('tenant_id', '=', tenantId);
    return users.execute();
  }

  /** The distinct actions of the log (at most 1000), by a skip scan of the action index: a probe per action. */
  async distinctActions(): Promise<string[]> {
    const { rows } = await sql<{ action: string }>`
      WITH RECURSIVE a AS (
        (SELECT action FROM audit_log ORDER BY action LIMIT 1)
        UNION ALL
        SELECT (SELECT action FROM audit_log WHERE action > a.action ORDER BY action LIMIT 1) FROM a WHERE a.action IS NOT NULL
      )
      SELECT action FROM a WHERE action IS NOT NULL LIMIT 1000`.execute(this.db);
    return rows.map((r) => r.action);
  }

  /** Up to `limit` entries of the filter older than `after` (all when null), newest first, with the names. */
  async entries(f: LogFilter, limit: number, after: LogKey | null): Promise<LogRow[]> {
    let q = this.filtered(f);
    if (after)
      q = q.where(
        (eb) =>
          sql<SqlBool>`(${eb.ref('audit_log.at')}, ${eb.ref('audit_log.id')}) < (timestamptz 'epoch' + ${after.us} * interval '1 microsecond', ${after.id})` as Expression<SqlBool>,
      );
    const page = q
      .selectAll('audit_log')
      .select(sql<number>`(extract(epoch from audit_log.at) * 1000000)::bigint`.as('us'))
      .orderBy('audit_log.at', 'desc')
      .orderBy('audit_log.id', 'desc')
      .limit(limit);
    return (await this.db
      .selectFrom(page.as('a'))
      .leftJoin('users as u', 'u.id', 'a.user_id')
      .leftJoin('tenants as t', 't.id', 'a.tenant_id')
      .selectAll('a')
      .select(['u.username as user_name', 't.name as tenant_name'])
      .orderBy('a.at', 'desc')
      .orderBy('a.id', 'desc')
      .execute()) as LogRow[];
  }

  /** How many entries the planner expects the filter to match (no rows read). */
  async estimatedCount(f: LogFilter): Promise<number> {
    const probe = this.filtered(f).select(sql`1`.as('one'));
    const { rows } = await sql<{
      'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }>;
    }>`EXPLAIN (FORMAT JSON) ${probe}`.execute(this.db);
    return Math.round(rows[0]['QUERY PLAN'][0].Plan['Plan Rows']);
  }

  /**
   * How many entries match, counting no further than `cap` + 1 and for at most `budgetMs` (a statement timeout
   * local to its transaction): null when the time ran out.
   */
  countUpTo(f: LogFilter, cap: number, budgetMs: number): Promise<number | null> {
    const probe = this.filtered(f).select(sql`1`.as('one'));
    return this.db
      .transaction()
      .execute(async (trx) => {
        await sql`SET LOCAL statement_timeout = ${sql.lit(budgetMs)}`.execute(trx);
        const row = await trx
          .selectFrom(probe.limit(cap + 1).as('c'))
          .select(sql<number>`count(*)::int`.as('n'))
          .executeTakeFirstOrThrow();
        return row.n;
      })
      .catch((e: { code?: string }) => {
        if (e.code === '57014') return null; // query_canceled: the statement timeout
        throw e;
      });
  }

  /**
   * Deletes entries older than `retentionDays`, `batch` at a time (each its own statement, so no long lock and
   * no huge transaction), while holding a session advisory lock: when several nodes run it at once, one prunes
   * and the others skip. Returns how many were deleted (0 when another node holds the lock).
   */
  prune(retentionDays: number, batch: number): Promise<number> {
    return this.db.connection().execute(async (conn) => {
      const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(${PRUNE_LOCK}) AS locked`.execute(
        conn,
      );
      if (!rows[0]?.locked) return 0;
      try {
        let total = 0;
        for (;;) {
          const res = await sql`
            DELETE FROM audit_log WHERE id IN (
              SELECT id FROM audit_log WHERE at < now() - make_interval(days => ${retentionDays})
              ORDER BY at LIMIT ${batch})`.execute(conn);
          const n = Number(res.numAffectedRows ?? 0);
          total += n;
          if (n < batch) return total;
        }
      } finally {
        await sql`SELECT pg_advisory_unlock(${PRUNE_LOCK})`.execute(conn);
      }
    });
  }
}

const narrowed: DataAccess = { scope: 'department', tenantId: 7, userId: 41, departmentId: 5, departmentPath: '1/5/' };
const everything: LogFilter = {
  tenantId: 7,
  narrowedTo: narrowed,
  userIds: [41, 42],
  action: { in: ['device.bind', 'device.unbind'] },
  resource: 'device',
  resourceId: '1203',
  result: 'denied',
  from: new Date('2026-03-01T00:00:00Z'),
  to: new Date('2026-03-31T23:59:59Z'),
};

export const systemLogQueries = defineQueries(SystemLogRepository, {
  usersByName: [['li_wei', 7], ['li_wei']],
  distinctActions: [[]],
  entries: [
    [{}, 21, null],
    [everything, 21, { us: 1772323200000000, id: 90812 }],
    [{ tenantId: 7, action: { in: ['login'] }, result: 'ok' }, 1000, null],
    [{ action: { like: 'order.' } }, 1000, null],
  ],
  estimatedCount: [{ args: [{ tenantId: 7 }], results: [[{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': 120 } }] }]] }],
  countUpTo: [{ args: [{ tenantId: 7 }, 10_000, 25], results: [[], [{ n: 120 }]] }],
  prune: [
    { args: [180, 5000], results: [[{ locked: true }], []] },
    { args: [180, 5000], results: [[{ locked: false }]] },
  ],
});
