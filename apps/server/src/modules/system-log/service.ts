import { sql, type Expression, type SqlBool, type SelectQueryBuilder } from 'kysely';
import {
  SYSTEM_LOG_COUNT_CAP,
  type SystemLogEntry,
  type SystemLogPage,
  type systemLogFilter,
  type systemLogQuery,
} from '@cpc/contracts';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { badRequest } from '../../plugins/errors.ts';
import { dataAccessOf, inDataScope } from '../../lib/data-scope.ts';

type Filter = z.output<typeof systemLogFilter>;
type Query = z.output<typeof systemLogQuery>;
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- Kysely's own type of a query that selects nothing yet
type LogQuery = SelectQueryBuilder<Database, 'audit_log', {}>;

/** The key of an entry in the list's order, as the cursor carries it: microseconds since the epoch and id. */
interface Key {
  us: number;
  id: number;
}
const encodeKey = (k: Key) => `${k.us}.${k.id}`;
function decodeKey(cursor: string): Key {
  const [us, id] = cursor.split('.').map(Number);
  if (!Number.isSafeInteger(us) || !Number.isSafeInteger(id)) throw badRequest('cursor', 'rule.logCursor');
  return { us, id };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
/** The longest the first page's exact count may take; past it the planner's estimate is shown instead. */
const COUNT_BUDGET_MS = 25;
/** The distinct actions are re-read at most this often (for an action prefix, see `actionCondition`). */
const ACTIONS_TTL_MS = 60_000;

interface Row {
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

/** Reads the system log: one tenant's for a customer, every tenant's for staff (issue 12). */
export class SystemLogService {
  private actions: { at: number; list: string[] } | null = null;

  constructor(private db: Db) {}

  /** A page, newest first; the first page also says how many entries match (exactly when that is cheap). */
  async list(user: AuthUser, q: Query): Promise<SystemLogPage> {
    const key = q.cursor ? decodeKey(q.cursor) : null;
    // a cursor inside the time range replaces its end: the index scan then starts at the cursor, not at `to`
    // (PostgreSQL takes one of the two as the start of the range and filters the rest)
    if (key && q.from && key.us / 1000 < Date.parse(q.from))
      return { list: [], next: null, total: null, totalKind: null };
    const base = await this.filtered(
      user,
      key && q.to && key.us / 1000 <= Date.parse(q.to) ? { ...q, to: undefined } : q,
    );
    if (!base) return { list: [], next: null, total: q.cursor ? null : 0, totalKind: q.cursor ? null : 'exact' };
    // a cursor newer than the range's end says nothing more (every entry of the range is older than it): left
    // with it, PostgreSQL may start its scan at the cursor and filter everything down to `to`
    const after = key && q.to && key.us / 1000 > Date.parse(q.to) ? null : key;
    const [page, total] = await Promise.all([
      this.page(base, q.pageSize, after),
      q.cursor ? Promise.resolve(null) : this.total(base),
    ]);
    return { ...page, total: total?.total ?? null, totalKind: total?.kind ?? null };
  }

  /** Every entry of the filter, newest first, in batches (for the CSV export: never the whole result in memory). */
  async *all(user: AuthUser, filter: Filter, max: number, batch = 1000): AsyncGenerator<SystemLogEntry> {
    const base = await this.filtered(user, filter);
    if (!base) return;
    let key: Key | null = null;
    let left = max;
    while (left > 0) {
      const n = Math.min(batch, left);
      const list = await this.rows(base, n, key);
      for (const { us, ...entry } of list) {
        void us;
        yield entry;
      }
      left -= list.length;
      const end = list.at(-1);
      if (list.length < n || !end) return;
      key = { us: end.us, id: end.id };
    }
  }

  /**
   * The filter as conditions on audit_log, through the caller's tenant scope for a customer; null when it
   * can match nothing (a user name no account has).
   */
  private async filtered(user: AuthUser, f: Filter): Promise<LogQuery | null> {
    const staff = user.tenantKind === 'platform';
    if (!staff && f.tenantId !== undefined && f.tenantId !== user.tenantId)
      throw badRequest('tenantId', 'systemLog.tenantStaffOnly');
    let q: LogQuery = staff ? this.db.selectFrom('audit_log') : user.scope.selectFrom('audit_log');
    if (staff && f.tenantId !== undefined) q = q.where('audit_log.tenant_id', '=', f.tenantId);
    // a customer narrower than its account (data scope own or department) reads the actions of the people within
    // its reach, filed like devices by their department and themselves: not the main account's actions on devices
    // it cannot see, nor the devices' own (no user)
    const access = dataAccessOf(user);
    if (!staff && access.scope !== 'all')
      q = q.where(
        sql<boolean>`audit_log.user_id in (select users.id from users
          where users.tenant_id = ${user.tenantId} and ${inDataScope(access, 'users', 'id')})`,
      );
    if (f.user) {
      // names to ids first: one id is then an ordered range of (user_id, at, id). The account of that very name
      // when there is one, else those the name begins (at most 20)
      const name = f.user.toLowerCase();
      let users = this.db
        .selectFrom('users')
        .select(['id', sql<boolean>`lower(username) = ${name}`.as('exact')])
        .where(sql<string>`lower(username)`, 'like', `${escapeLike(name)}%`)
        .orderBy(sql`lower(username) = ${name}`, 'desc')
        .orderBy('id')
        .limit(20);
      if (!staff) users = users.where('tenant_id', '=', user.tenantId);
      const found = await users.execute();
      const ids = (found[0]?.exact ? found.slice(0, 1) : found).map((u) => u.id);
      if (!ids.length) return null;
      q = q.where('audit_log.user_id', 'in', ids);
    }
    if (f.action) {
      const actions = await this.matchingActions(f.action);
      q =
        actions.length === 1
          ? q.where('audit_log.action', '=', actions[0])
          : actions.length
            ? q.where('audit_log.action', 'in', actions)
            : q.where('audit_log.action', 'like', `${escapeLike(f.action)}%`);
    }
    if (f.resource) q = q.where('audit_log.resource', '=', f.resource);
    if (f.resourceId) q = q.where('audit_log.resource_id', '=', f.resourceId);
    if (f.result) q = q.where('audit_log.result', '=', f.result);
    // names the partial indexes' predicate, so the planner can use them for fail and denied
    if (f.result && f.result !== 'ok') q = q.where('audit_log.result', '<>', 'ok');
    if (f.from) q = q.where('audit_log.at', '>=', new Date(f.from));
    if (f.to) q = q.where('audit_log.at', '<=', new Date(f.to));
    return q;
  }

  /**
   * The actions an action filter means: the one named, or every one it is a prefix of. Known actions are read
   * with a skip scan of the action index (a probe per distinct action) and kept a minute; one action is then an
   * ordered range of the (action, at, id) index. An action newer than the list falls back to LIKE.
   */
  private async matchingActions(prefix: string): Promise<string[]> {
    if (!this.actions || Date.now() - this.actions.at > ACTIONS_TTL_MS) {
      const { rows } = await sql<{ action: string }>`
        WITH RECURSIVE a AS (
          (SELECT action FROM audit_log ORDER BY action LIMIT 1)
          UNION ALL
          SELECT (SELECT action FROM audit_log WHERE action > a.action ORDER BY action LIMIT 1) FROM a WHERE a.action IS NOT NULL
        )
        SELECT action FROM a WHERE action IS NOT NULL LIMIT 1000`.execute(this.db);
      this.actions = { at: Date.now(), list: rows.map((r) => r.action) };
    }
    const exact = this.actions.list.includes(prefix);
    const all = this.actions.list.filter((a) => a.startsWith(prefix));
    // a prefix that is itself an action ("login") and not a section ("device."): that action and its sub-actions
    return exact ? all.filter((a) => a === prefix || a.startsWith(`${prefix}.`)) : all;
  }

  private async rows(base: LogQuery, limit: number, after: Key | null): Promise<Array<SystemLogEntry & Key>> {
    let q = base;
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
    const rows = (await this.db
      .selectFrom(page.as('a'))
      .leftJoin('users as u', 'u.id', 'a.user_id')
      .leftJoin('tenants as t', 't.id', 'a.tenant_id')
      .selectAll('a')
      .select(['u.username as user_name', 't.name as tenant_name'])
      .orderBy('a.at', 'desc')
      .orderBy('a.id', 'desc')
      .execute()) as Row[];
    return rows.map(view);
  }

  private async page(base: LogQuery, size: number, after: Key | null) {
    const rows = await this.rows(base, size + 1, after);
    const list = rows.slice(0, size).map(({ us, ...entry }) => (void us, entry));
    const end = rows[size - 1];
    return { list, next: rows.length > size && end ? encodeKey(end) : null };
  }

  /**
   * How many entries match: the planner's estimate first (no rows read); a small one is counted, stopping past
   * SYSTEM_LOG_COUNT_CAP ("10,000+"); a large one is shown as the estimate, since counting millions would cost
   * more than the page.
   */
  private async total(base: LogQuery): Promise<{ total: number; kind: 'exact' | 'atLeast' | 'estimate' }> {
    const probe = base.select(sql`1`.as('one'));
    const { rows } = await sql<{
      'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }>;
    }>`EXPLAIN (FORMAT JSON) ${probe}`.execute(this.db);
    const estimate = Math.round(rows[0]['QUERY PLAN'][0].Plan['Plan Rows']);
    if (estimate > SYSTEM_LOG_COUNT_CAP * 3) return { total: estimate, kind: 'estimate' };
    // a count the planner misjudges must not cost the page its time: past COUNT_BUDGET_MS the estimate stands
    const n = await this.db
      .transaction()
      .execute(async (trx) => {
        await sql`SET LOCAL statement_timeout = ${sql.lit(COUNT_BUDGET_MS)}`.execute(trx);
        const row = await trx
          .selectFrom(probe.limit(SYSTEM_LOG_COUNT_CAP + 1).as('c'))
          .select(sql<number>`count(*)::int`.as('n'))
          .executeTakeFirstOrThrow();
        return row.n;
      })
      .catch((e: { code?: string }) => {
        if (e.code === '57014') return null; // query_canceled: the statement timeout
        throw e;
      });
    if (n === null) return { total: Math.max(estimate, 1), kind: 'estimate' };
    return n > SYSTEM_LOG_COUNT_CAP ? { total: SYSTEM_LOG_COUNT_CAP, kind: 'atLeast' } : { total: n, kind: 'exact' };
  }
}

const asRecord = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function view(r: Row): SystemLogEntry & Key {
  const { changes, device, ...details } = asRecord(r.details);
  return {
    id: r.id,
    us: Number(r.us),
    at: r.at.toISOString(),
    tenantId: r.tenant_id,
    tenantName: r.tenant_name ?? '',
    userId: r.user_id,
    userName: r.user_name ?? r.subject,
    ip: r.ip,
    device: typeof device === 'string' ? device : '',
    action: r.action,
    resource: r.resource,
    resourceId: r.resource_id,
    result: r.result,
    changes: Object.fromEntries(
      Object.entries(asRecord(changes)).map(([k, c]) => {
        const change = asRecord(c);
        return [k, 'before' in change || 'after' in change ? change : { before: null, after: c }];
      }),
    ) as SystemLogEntry['changes'],
    details,
  };
}
