import { sql, type Expression, type Insertable, type Selectable, type SqlBool, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Notices } from '../../db/generated.ts';
import { defineQueries } from '../../db/query-spec.ts';

export type NoticeRow = Selectable<Notices>;
export type NoticeState = NoticeRow['state'];

/** Who reads: the audience rules apply to customers; platform staff read every live notice. */
export interface Reader {
  id: number;
  tenantId: number;
  tenantKind: 'individual' | 'enterprise' | 'platform';
}

/** A page of notices. */
export interface Page {
  pageNo: number;
  pageSize: number;
}

/** A customer account as the audience picker shows it. */
export interface TenantRow {
  id: number;
  name: string;
  kind: 'individual' | 'enterprise' | 'platform';
}

/** The advisory lock key of the notice sweep (a constant of its own): one node announces at a time. */
const NOTICE_SWEEP_LOCK = 0x4e4f_5443; // "NOTC"

const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/** Live: published, its time come, not ended. */
const isLive = sql<SqlBool>`n.state = 'published' and n.published_at <= now() and (n.ends_at is null or n.ends_at > now())`;

/** The notices whose audience holds the reader's tenant (staff: all). */
const inAudience = (r: Reader): Expression<SqlBool> =>
  r.tenantKind === 'platform'
    ? sql<SqlBool>`true`
    : sql<SqlBool>`(n.audience = 'all' or n.audience = ${r.tenantKind}
        or (n.audience = 'tenants' and n.tenant_ids @> array[${r.tenantId}]::bigint[]))`;

/**
 * Every statement of the notice module: the `notices` and `notice_reads` tables, and the customer accounts
 * (`tenants`, `users`) an audience names.
 */
export class NoticeRepository {
  constructor(private db: Db) {}

  /** The live notices of the reader's audience, each joined to the reader's read mark (`nr`). */
  private readable(r: Reader) {
    return this.db
      .selectFrom('notices as n')
      .leftJoin('notice_reads as nr', (j) => j.onRef('nr.notice_id', '=', 'n.id').on('nr.user_id', '=', r.id))
      .where(isLive)
      .where(inAudience(r));
  }

  /** How many live notices of the reader's audience the reader has not opened. */
  async unreadCount(r: Reader): Promise<number> {
    const row = await this.readable(r)
      .where('nr.user_id', 'is', null)
      .select(sql<string>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The reader's newest unread live notices, pinned first: id, title and time. */
  latestUnread(r: Reader, limit: number) {
    return this.readable(r)
      .where('nr.user_id', 'is', null)
      .select(['n.id', 'n.title', 'n.published_at'])
      .orderBy('n.pinned', 'desc')
      .orderBy('n.published_at', 'desc')
      .orderBy('n.id', 'desc')
      .limit(limit)
      .execute();
  }

  /** A page of the live notices the reader may read (only unread ones when asked): pinned, unread, newest. */
  async listForReader(r: Reader, q: Page & { unread?: boolean }) {
    const base = this.readable(r).$if(!!q.unread, (b) => b.where('nr.user_id', 'is', null));
    const [rows, total] = await Promise.all([
      base
        .selectAll('n')
        .select(sql<boolean>`nr.user_id is not null`.as('read'))
        .orderBy('n.pinned', 'desc')
        .orderBy(sql`nr.user_id is null`, 'desc')
        .orderBy('n.published_at', 'desc')
        .orderBy('n.id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** One live notice of the reader's audience with whether the reader read it, or undefined. */
  findReadable(r: Reader, id: number) {
    return this.readable(r)
      .selectAll('n')
      .select(sql<boolean>`nr.user_id is not null`.as('read'))
      .where('n.id', '=', id)
      .executeTakeFirst();
  }

  /** Marks one notice read by the user (already read: nothing). */
  async markRead(userId: number, noticeId: number): Promise<void> {
    await this.db
      .insertInto('notice_reads')
      .values({ user_id: userId, notice_id: noticeId })
      .onConflict((c) => c.doNothing())
      .execute();
  }

  /** Marks every unread live notice of the reader's audience read; returns how many. */
  async markAllRead(r: Reader): Promise<number> {
    const res = await this.db
      .insertInto('notice_reads')
      .columns(['user_id', 'notice_id'])
      .expression(
        this.readable(r)
          .where('nr.user_id', 'is', null)
          .select([sql<number>`${r.id}::bigint`.as('user_id'), 'n.id']),
      )
      .onConflict((c) => c.doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0);
  }

  /** One notice in any state, or undefined. */
  findById(id: number): Promise<NoticeRow | undefined> {
    return this.db.selectFrom('notices').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** How many users read each of the notices (a notice nobody read is missing). */
  readCounts(ids: number[]) {
    return this.db
      .selectFrom('notice_reads')
      .select(['notice_id', sql<string>`count(*)`.as('n')])
      .where('notice_id', 'in', ids)
      .groupBy('notice_id')
      .execute();
  }

  /** A page of every notice (by state, by title), last edited first, and how many there are. */
  async listForStaff(q: Page & { state?: NoticeState; keyword?: string }) {
    let base = this.db.selectFrom('notices');
    if (q.state) base = base.where('state', '=', q.state);
    if (q.keyword) base = base.where('title', 'ilike', likeOf(q.keyword));
    const [rows, total] = await Promise.all([
      base
        .selectAll()
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.pageSize)
        .offset((q.pageNo - 1) * q.pageSize)
        .execute(),
      base.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** Customer accounts by name, attested name or main account (username, mobile), or by id. */
  async tenants(q: { keyword?: string; ids?: number[] }): Promise<TenantRow[]> {
    let b = this.db.selectFrom('tenants as t').select(['t.id', 't.name', 't.kind']).where('t.kind', '<>', 'platform');
    if (q.ids) b = b.where('t.id', 'in', q.ids.length ? q.ids : [0]);
    if (q.keyword) {
      const like = likeOf(q.keyword);
      b = b.where((eb) =>
        eb.or([
          eb('t.name', 'ilike', like),
          eb('t.attest_name', 'ilike', like),
          eb.exists(
            eb
              .selectFrom('users as u')
              .select('u.id')
              .whereRef('u.tenant_id', '=', 't.id')
              .where('u.is_super', '=', 1)
              .where((e) => e.or([e('u.username', 'ilike', like), e('u.mobile', 'ilike', like)])),
          ),
        ]),
      );
    }
    const rows = await b
      .orderBy('t.id', 'desc')
      .limit(q.ids ? 200 : 20)
      .execute();
    return rows.map((t) => ({ id: Number(t.id), name: t.name, kind: t.kind }));
  }

  insert(values: Insertable<Notices>): Promise<NoticeRow> {
    return this.db.insertInto('notices').values(values).returningAll().executeTakeFirstOrThrow();
  }

  /** Changes a notice that is still in `state`; undefined when it is gone or its state moved meanwhile. */
  updateInState(id: number, state: NoticeState, values: Updateable<Notices>): Promise<NoticeRow | undefined> {
    return this.db
      .updateTable('notices')
      .set(values)
      .where('id', '=', id)
      .where('state', '=', state)
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes a notice unless it is published; returns whether it did. */
  async deleteUnpublished(id: number): Promise<boolean> {
    const res = await this.db
      .deleteFrom('notices')
      .where('id', '=', id)
      .where('state', '<>', 'published')
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /**
   * Marks the published notices whose scheduled time came, or whose end passed, as announced: once across nodes
   * (a transaction-scoped advisory lock; another node holding it: nothing). Returns their ids.
   */
  markDueAnnounced(): Promise<number[]> {
    return this.db.transaction().execute(async (trx) => {
      const { rows: lock } = await sql<{
        ok: boolean;
      }>`select pg_try_advisory_xact_lock(${NOTICE_SWEEP_LOCK}) as ok`.execute(trx);
      if (!lock[0]?.ok) return [];
      const { rows } = await sql<{ id: string | number }>`
        with went_live as (
          update notices set announced_at = now()
          where state = 'published' and announced_at is null and published_at <= now()
          returning id
        ),
        ended as (
          update notices set end_announced_at = now()
          where state = 'published' and end_announced_at is null and ends_at <= now()
          returning id
        )
        select id from went_live union select id from ended`.execute(trx);
      return rows.map((r) => Number(r.id));
    });
  }
}

const customer: Reader = { id: 41, tenantId: 7, tenantKind: 'enterprise' };
const staff: Reader = { id: 1, tenantId: 1, tenantKind: 'platform' };
const fields = {
  title: 'Maintenance on Saturday',
  body_html: '<p>The console is read-only from 02:00 to 04:00.</p>',
  image: '',
  audience: 'tenants' as const,
  tenant_ids: [7, 9],
  published_at: new Date('2026-03-01T08:00:00Z'),
  ends_at: new Date('2026-03-08T08:00:00Z'),
  pinned: true,
};

export const noticeQueries = defineQueries(NoticeRepository, {
  unreadCount: [[customer], [staff]],
  latestUnread: [[customer, 5]],
  listForReader: [
    [customer, { pageNo: 2, pageSize: 20 }],
    [customer, { pageNo: 1, pageSize: 20, unread: true }],
  ],
  findReadable: [[customer, 12]],
  markRead: [[41, 12]],
  markAllRead: [[customer]],
  findById: [[12]],
  readCounts: [[[12, 13]]],
  listForStaff: [[{ pageNo: 1, pageSize: 20 }], [{ pageNo: 1, pageSize: 20, state: 'published', keyword: '50%_off' }]],
  tenants: [[{ keyword: 'acme' }], [{ ids: [7, 9] }]],
  insert: [[{ ...fields, state: 'draft', created_by: 1, updated_by: 1 }]],
  updateInState: [
    [12, 'published', { ...fields, updated_by: 1, updated_at: new Date('2026-02-27T10:00:00Z'), announced_at: null }],
    [12, 'published', { state: 'withdrawn', withdrawn_at: new Date('2026-03-02T10:00:00Z'), updated_by: 1 }],
  ],
  deleteUnpublished: [[12]],
  markDueAnnounced: [{ args: [], results: [[{ ok: true }], [{ id: 12 }]] }, []],
});
