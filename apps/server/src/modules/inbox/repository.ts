import { sql, type Insertable, type Selectable } from 'kysely';
import type { MessageFilter } from '@cpc/contracts';
import { PERMISSIONS } from '@cpc/contracts';
import { MESSAGES } from '@cpc/contracts/messages';
import type { Db } from '../../db/database.ts';
import type { Messages } from '../../db/generated.ts';
import { defineQueries, skip } from '../../db/query-spec.ts';
import { TenantScope } from '../../db/tenant-scope.ts';
import { readersOf } from '../../lib/data-scope.ts';

export type MessageRow = Selectable<Messages>;

/** Whose inbox: every statement of the message centre's calls is pinned to the reader's tenant and user id. */
export interface Owner {
  tenantId: number;
  userId: number;
}

/** A message waiting to be mailed, with its user's address. */
export interface PendingMail {
  id: number;
  title: string;
  body: string;
  link: string;
  email: string;
  mail_attempts: number;
}

/** The advisory lock of the mail job (a constant of its own): one node mails at a time. */
const MAIL_LOCK = 0x4d41_494c; // "MAIL"

const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/**
 * Every statement of the message centre: the `messages` table (its readers' calls, the messages other sections
 * put in, the device-fault messages, the mail job) and the `users` it mails to.
 */
export class InboxRepository {
  constructor(private db: Db) {}

  /**
   * Runs `work` on one connection of the pool with a repository bound to it (a session advisory lock holds
   * across its statements).
   */
  onConnection<T>(work: (repo: InboxRepository) => Promise<T>): Promise<T> {
    return this.db.connection().execute((conn) => work(new InboxRepository(conn)));
  }

  private scope(o: Owner) {
    return new TenantScope(this.db, o.tenantId);
  }

  /** The owner's messages that pass the filter (`titles`: the stored titles that say the keyword). */
  private mine(o: Owner, f: MessageFilter, titles: string[] = []) {
    let q = this.scope(o).selectFrom('messages').where('messages.user_id', '=', o.userId);
    if (f.group) q = q.where('messages.kind', 'like', `${escapeLike(f.group)}.%`);
    if (f.read === 'read') q = q.where('messages.read_at', 'is not', null);
    if (f.read === 'unread') q = q.where('messages.read_at', 'is', null);
    if (f.from) q = q.where('messages.created_at', '>=', new Date(f.from));
    if (f.to) q = q.where('messages.created_at', '<', new Date(f.to));
    if (f.keyword) {
      const like = `%${escapeLike(f.keyword)}%`;
      q = q.where((eb) =>
        eb.or([
          eb('messages.title', 'ilike', like),
          eb('messages.body', 'ilike', like),
          ...(titles.length ? [eb('messages.title', 'in', titles)] : []),
        ]),
      );
    }
    return q;
  }

  /** A page of the owner's messages that pass the filter, newest first, and how many pass in all. */
  async listPage(
    o: Owner,
    f: MessageFilter,
    titles: string[],
    page: { pageNo: number; pageSize: number },
  ): Promise<{ rows: MessageRow[]; total: number }> {
    const q = this.mine(o, f, titles);
    const [rows, total] = await Promise.all([
      q
        .selectAll()
        .orderBy('messages.created_at', 'desc')
        .orderBy('messages.id', 'desc')
        .limit(page.pageSize)
        .offset((page.pageNo - 1) * page.pageSize)
        .execute(),
      q.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** How many of the owner's messages are unread. */
  async unreadCount(o: Owner): Promise<number> {
    const row = await this.mine(o, { read: 'unread' })
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** One of the owner's messages. */
  findMine(o: Owner, id: number): Promise<MessageRow | undefined> {
    return this.scope(o)
      .selectFrom('messages')
      .selectAll()
      .where('messages.user_id', '=', o.userId)
      .where('messages.id', '=', id)
      .executeTakeFirst();
  }

  /** Marks one of the owner's messages read when it is unread; its read time, or undefined when it was read. */
  async markOneRead(o: Owner, id: number): Promise<Date | undefined> {
    const read = await this.scope(o)
      .updateTable('messages')
      .set({ read_at: new Date() })
      .where('messages.user_id', '=', o.userId)
      .where('messages.id', '=', id)
      .where('messages.read_at', 'is', null)
      .returning('read_at')
      .executeTakeFirst();
    return read?.read_at ?? undefined;
  }

  /** Marks the owner's unread messages among `ids` read; how many changed. */
  async markRead(o: Owner, ids: number[]): Promise<number> {
    const res = await this.scope(o)
      .updateTable('messages')
      .set({ read_at: new Date() })
      .where('messages.user_id', '=', o.userId)
      .where('messages.id', 'in', ids)
      .where('messages.read_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** Marks all the owner's unread messages read (or those of one group); how many changed. */
  async markAllRead(o: Owner, group?: string): Promise<number> {
    let q = this.scope(o)
      .updateTable('messages')
      .set({ read_at: new Date() })
      .where('messages.user_id', '=', o.userId)
      .where('messages.read_at', 'is', null);
    if (group) q = q.where('messages.kind', 'like', `${escapeLike(group)}.%`);
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** Deletes the owner's messages among `ids`: those that went. */
  deleteMine(o: Owner, ids: number[]) {
    return this.scope(o)
      .deleteFrom('messages')
      .where('messages.user_id', '=', o.userId)
      .where('messages.id', 'in', ids)
      .returning(['messages.id', 'messages.kind', 'messages.title'])
      .execute();
  }

  /** Puts messages into their users' inboxes. */
  async insert(rows: Insertable<Messages>[]): Promise<void> {
    await this.db.insertInto('messages').values(rows).execute();
  }

  /**
   * One message titled `title` about the device's fault to each active user of its account who can see it (the
   * main account, and those holding device:view whose data scope reaches it): who got one.
   */
  async insertDeviceFault(deviceId: number, title: string): Promise<{ tenant_id: number; user_id: number }[]> {
    const { rows } = await sql<{ tenant_id: number; user_id: number }>`
    with d as (
      select id, tenant_id, sn, name, department_id, owner_id from devices where id = ${deviceId} and tenant_id is not null
    )
    insert into messages (tenant_id, user_id, kind, title, body, link)
    select d.tenant_id, u.id, 'device.fault', ${title},
      d.sn || coalesce(' · ' || nullif(d.name, ''), ''), '/device/detail?id=' || d.id
    from d join lateral (${readersOf({
      tenantId: sql.ref('d.tenant_id'),
      departmentId: sql.ref('d.department_id'),
      ownerId: sql.ref('d.owner_id'),
      permission: PERMISSIONS.deviceView,
    })}) u on true
    returning tenant_id, user_id`.execute(this.db);
    return rows;
  }

  /** Takes the mail job's session advisory lock (call on one connection); false when another node holds it. */
  async tryLockMail(): Promise<boolean> {
    const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${MAIL_LOCK}) as ok`.execute(this.db);
    return !!rows[0]?.ok;
  }

  /** Lets the mail job's session advisory lock go. */
  async unlockMail(): Promise<void> {
    await sql`select pg_advisory_unlock(${MAIL_LOCK})`.execute(this.db);
  }

  /** Pending messages of users without an address, or disabled, are `skipped`; how many. */
  async skipUndeliverable(): Promise<number> {
    const res = await sql`
          update messages m set mail_state = 'skipped'
          from users u
          where m.mail_state = 'pending' and u.id = m.user_id and (u.email = '' or u.state <> 'active')`.execute(
      this.db,
    );
    return Number(res.numAffectedRows ?? 0);
  }

  /** The oldest `limit` pending messages of active users with an address. */
  async pendingMail(limit: number): Promise<PendingMail[]> {
    const { rows } = await sql<PendingMail>`
            select m.id, m.title, m.body, m.link, u.email, m.mail_attempts
            from messages m join users u on u.id = m.user_id
            where m.mail_state = 'pending' and u.email <> '' and u.state = 'active'
            order by m.id limit ${limit}`.execute(this.db);
    return rows;
  }

  /** A failed send: its attempts counted, `failed` when given up (else still `pending`). */
  async markMailFailed(id: number, attempts: number, givenUp: boolean): Promise<void> {
    await sql`
                update messages set mail_attempts = ${attempts},
                  mail_state = ${givenUp ? 'failed' : 'pending'}
                where id = ${id}`.execute(this.db);
  }

  /** The message went: `sent`, with its time. */
  async markMailSent(id: number): Promise<void> {
    await sql`
              update messages set mail_state = 'sent', mailed_at = now(), mail_attempts = mail_attempts + 1
              where id = ${id}`.execute(this.db);
  }
}

const reader: Owner = { tenantId: 7, userId: 41 };

export const inboxQueries = defineQueries(InboxRepository, {
  onConnection: skip('hands the callback a repository bound to one connection; its statements are those'),
  listPage: [
    { args: [reader, {}, [], { pageNo: 1, pageSize: 20 }], results: [[], [{ n: '0' }]] },
    {
      args: [
        reader,
        {
          group: 'workOrder',
          read: 'unread',
          from: '2026-03-01T00:00:00Z',
          to: '2026-04-01T00:00:00Z',
          keyword: '50%',
        },
        [MESSAGES['workOrder.repliedTitle'].en],
        { pageNo: 2, pageSize: 20 },
      ],
      results: [[], [{ n: '0' }]],
    },
    {
      args: [reader, { read: 'read', keyword: 'toner' }, [], { pageNo: 1, pageSize: 20 }],
      results: [[], [{ n: '0' }]],
    },
  ],
  unreadCount: [{ args: [reader], results: [[{ n: '3' }]] }],
  findMine: [[reader, 12]],
  markOneRead: [[reader, 12]],
  markRead: [[reader, [12, 13]]],
  markAllRead: [[reader], [reader, 'sim']],
  deleteMine: [[reader, [12, 13]]],
  insert: [
    [
      [
        {
          tenant_id: 7,
          user_id: 41,
          kind: 'order.paid',
          title: 'Order paid',
          body: 'Order 2026030100012',
          link: '/order/detail?id=12',
          read_at: null,
        },
      ],
    ],
  ],
  insertDeviceFault: [[12, 'Out of paper']],
  tryLockMail: [[]],
  unlockMail: [[]],
  skipUndeliverable: [[]],
  pendingMail: [[50]],
  markMailFailed: [
    [12, 2, false],
    [12, 5, true],
  ],
  markMailSent: [[12]],
});
