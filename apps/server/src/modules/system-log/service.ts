import {
  SYSTEM_LOG_COUNT_CAP,
  type SystemLogEntry,
  type SystemLogPage,
  type systemLogFilter,
  type systemLogQuery,
} from '@cpc/contracts';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { badRequest } from '../../plugins/errors.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import { SystemLogRepository, type LogFilter, type LogKey as Key, type LogRow as Row } from './repository.ts';

type Filter = z.output<typeof systemLogFilter>;
type Query = z.output<typeof systemLogQuery>;
/** The key of an entry in the list's order, as the cursor carries it: microseconds since the epoch and id. */
const encodeKey = (k: Key) => `${k.us}.${k.id}`;
function decodeKey(cursor: string): Key {
  const [us, id] = cursor.split('.').map(Number);
  if (!Number.isSafeInteger(us) || !Number.isSafeInteger(id)) throw badRequest('cursor', 'rule.logCursor');
  return { us, id };
}

/** The longest the first page's exact count may take; past it the planner's estimate is shown instead. */
const COUNT_BUDGET_MS = 25;
/** The distinct actions are re-read at most this often (for an action prefix, see `actionCondition`). */
const ACTIONS_TTL_MS = 60_000;

/** Reads the system log: one tenant's for a customer, every tenant's for staff (issue 12). */
export class SystemLogService {
  private actions: { at: number; list: string[] } | null = null;

  private repo: SystemLogRepository;

  constructor(db: Db) {
    this.repo = new SystemLogRepository(db);
  }

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
   * The filter with its names resolved, pinned to the caller's tenant for a customer; null when it can match
   * nothing (a user name no account has).
   */
  private async filtered(user: AuthUser, f: Filter): Promise<LogFilter | null> {
    const staff = user.tenantKind === 'platform';
    if (!staff && f.tenantId !== undefined && f.tenantId !== user.tenantId)
      throw badRequest('tenantId', 'systemLog.tenantStaffOnly');
    const q: LogFilter = { tenantId: staff ? f.tenantId : user.tenantId };
    // a customer narrower than its account (data scope own or department) reads the actions of the people within
    // its reach, filed like devices by their department and themselves: not the main account's actions on devices
    // it cannot see, nor the devices' own (no user)
    const access = dataAccessOf(user);
    if (!staff && access.scope !== 'all') q.narrowedTo = access;
    if (f.user) {
      // names to ids first: one id is then an ordered range of (user_id, at, id). The account of that very name
      // when there is one, else those the name begins (at most 20)
      const found = await this.repo.usersByName(f.user.toLowerCase(), staff ? undefined : user.tenantId);
      const ids = (found[0]?.exact ? found.slice(0, 1) : found).map((u) => u.id);
      if (!ids.length) return null;
      q.userIds = ids;
    }
    if (f.action) {
      const actions = await this.matchingActions(f.action);
      q.action = actions.length ? { in: actions } : { like: f.action };
    }
    if (f.resource) q.resource = f.resource;
    if (f.resourceId) q.resourceId = f.resourceId;
    if (f.result) q.result = f.result;
    if (f.from) q.from = new Date(f.from);
    if (f.to) q.to = new Date(f.to);
    return q;
  }

  /**
   * The actions an action filter means: the one named, or every one it is a prefix of. Known actions are read
   * with a skip scan of the action index (a probe per distinct action) and kept a minute; one action is then an
   * ordered range of the (action, at, id) index. An action newer than the list falls back to LIKE.
   */
  private async matchingActions(prefix: string): Promise<string[]> {
    if (!this.actions || Date.now() - this.actions.at > ACTIONS_TTL_MS) {
      this.actions = { at: Date.now(), list: await this.repo.distinctActions() };
    }
    const exact = this.actions.list.includes(prefix);
    const all = this.actions.list.filter((a) => a.startsWith(prefix));
    // a prefix that is itself an action ("login") and not a section ("device."): that action and its sub-actions
    return exact ? all.filter((a) => a === prefix || a.startsWith(`${prefix}.`)) : all;
  }

  private async rows(base: LogFilter, limit: number, after: Key | null): Promise<Array<SystemLogEntry & Key>> {
    return (await this.repo.entries(base, limit, after)).map(view);
  }

  private async page(base: LogFilter, size: number, after: Key | null) {
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
  private async total(base: LogFilter): Promise<{ total: number; kind: 'exact' | 'atLeast' | 'estimate' }> {
    const estimate = await this.repo.estimatedCount(base);
    if (estimate > SYSTEM_LOG_COUNT_CAP * 3) return { total: estimate, kind: 'estimate' };
    // a count the planner misjudges must not cost the page its time: past COUNT_BUDGET_MS the estimate stands
    const n = await this.repo.countUpTo(base, SYSTEM_LOG_COUNT_CAP, COUNT_BUDGET_MS);
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
