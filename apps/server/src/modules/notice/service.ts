import { sql, type Expression, type Selectable, type SqlBool } from 'kysely';
import type {
  NoticeItem,
  NoticeManageItem,
  NoticeTenant,
  noticeBody,
  noticeListQuery,
  noticeManageQuery,
} from '@cpc/contracts/notice';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { Notices } from '../../db/generated.ts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { assertOwnObjects, presentRichHtml, sanitizeRichHtml } from '../../lib/rich-html.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';

type Row = Selectable<Notices>;
type Fields = z.output<typeof noticeBody>;

/** Who reads: the audience rules apply to customers; platform staff read every live notice. */
export interface Reader {
  id: number;
  tenantId: number;
  tenantKind: 'individual' | 'enterprise' | 'platform';
}
/** Who writes (staff with notice:edit). */
export interface Writer {
  id: number;
  scope: TenantScope;
}

const likeOf = (keyword: string) => `%${keyword.replace(/[\\%_]/g, '\\$&')}%`;

/** Live: published, its time come, not ended. */
const isLive = sql<SqlBool>`n.state = 'published' and n.published_at <= now() and (n.ends_at is null or n.ends_at > now())`;

/** The notices whose audience holds the reader's tenant (staff: all). */
const inAudience = (r: Reader): Expression<SqlBool> =>
  r.tenantKind === 'platform'
    ? sql<SqlBool>`true`
    : sql<SqlBool>`(n.audience = 'all' or n.audience = ${r.tenantKind}
        or (n.audience = 'tenants' and n.tenant_ids @> array[${r.tenantId}]::bigint[]))`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** The live notices of the reader's audience, each joined to the reader's read mark (`nr`). */
const readableNotices = (db: Db, r: Reader) =>
  db
    .selectFrom('notices as n')
    .leftJoin('notice_reads as nr', (j) => j.onRef('nr.notice_id', '=', 'n.id').on('nr.user_id', '=', r.id))
    .where(isLive)
    .where(inAudience(r));

/** How many live notices of the reader's audience the reader has not opened (the bell, the workbench). */
export async function unreadNoticeCount(db: Db, r: Reader): Promise<number> {
  const row = await readableNotices(db, r)
    .where('nr.user_id', 'is', null)
    .select(sql<string>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The reader's newest unread live notices, pinned first: id, title and time (the workbench's items). */
export function latestUnreadNotices(db: Db, r: Reader, limit: number) {
  return readableNotices(db, r)
    .where('nr.user_id', 'is', null)
    .select(['n.id', 'n.title', 'n.published_at'])
    .orderBy('n.pinned', 'desc')
    .orderBy('n.published_at', 'desc')
    .orderBy('n.id', 'desc')
    .limit(limit)
    .execute();
}

export class NoticeService {
  constructor(
    private db: Db,
    private storage: Pick<ObjectStorage, 'signedUrl'>,
  ) {}

  private imageUrl(key: string): string {
    if (!key) return '';
    // the rows of 0001 hold a URL; the editor's hold an object key
    return /^(https?:)?\//.test(key) ? key : this.storage.signedUrl(key);
  }

  private readable(r: Reader) {
    return readableNotices(this.db, r);
  }

  private item(row: Row & { read: boolean }): NoticeItem {
    return {
      id: row.id,
      title: row.title,
      notice: presentRichHtml(row.body_html, this.storage),
      image: this.imageUrl(row.image),
      email: '',
      pinned: row.pinned,
      publishedAt: row.published_at!.toISOString(),
      endsAt: iso(row.ends_at),
      read: row.read,
    };
  }

  /** The live notices the reader may read: pinned first, then unread, then newest. */
  async list(r: Reader, q: z.output<typeof noticeListQuery>) {
    const base = this.readable(r).$if(q.unread === 'true', (b) => b.where('nr.user_id', 'is', null));
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
    return { list: rows.map((row) => this.item(row)), total: Number(total.n) };
  }

  /** One live notice of the reader's audience (404 otherwise), marked read for the reader. */
  async read(r: Reader, id: number): Promise<NoticeItem> {
    const row = await this.readable(r)
      .selectAll('n')
      .select(sql<boolean>`nr.user_id is not null`.as('read'))
      .where('n.id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound('notice');
    if (!row.read) {
      await this.db
        .insertInto('notice_reads')
        .values({ user_id: r.id, notice_id: id })
        .onConflict((c) => c.doNothing())
        .execute();
    }
    return this.item({ ...row, read: true });
  }

  unreadCount(r: Reader): Promise<number> {
    return unreadNoticeCount(this.db, r);
  }

  async readAll(r: Reader): Promise<number> {
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

  // ---------------------------------------------------------------------------------------------------------
  // Staff

  private async rowOf(id: number): Promise<Row> {
    const row = await this.db.selectFrom('notices').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('notice');
    return row;
  }

  /** The fields as the system log shows them before → after. */
  static logged(row: Row): Record<string, unknown> {
    return {
      title: row.title,
      bodyHtml: row.body_html,
      imageKey: row.image,
      audience: row.audience,
      tenantIds: row.tenant_ids.map(Number),
      publishAt: iso(row.published_at),
      endsAt: iso(row.ends_at),
      pinned: row.pinned,
      state: row.state,
    };
  }

  private async manageItems(rows: Row[]): Promise<NoticeManageItem[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const tenantIds = [...new Set(rows.flatMap((r) => r.tenant_ids.map(Number)))];
    const [reads, tenants] = await Promise.all([
      this.db
        .selectFrom('notice_reads')
        .select(['notice_id', sql<string>`count(*)`.as('n')])
        .where('notice_id', 'in', ids)
        .groupBy('notice_id')
        .execute(),
      tenantIds.length ? this.tenants({ ids: tenantIds }) : Promise.resolve([]),
    ]);
    const readsOf = new Map(reads.map((r) => [Number(r.notice_id), Number(r.n)]));
    const tenantOf = new Map(tenants.map((t) => [t.id, t]));
    return rows.map((row) => ({
      id: row.id,
      title: row.title,
      bodyHtml: presentRichHtml(row.body_html, this.storage),
      imageKey: row.image,
      image: this.imageUrl(row.image),
      audience: row.audience,
      tenants: row.tenant_ids.map(Number).map((id) => tenantOf.get(id) ?? { id, name: `#${id}`, kind: 'enterprise' }),
      state: row.state,
      publishAt: iso(row.published_at),
      endsAt: iso(row.ends_at),
      pinned: row.pinned,
      reads: readsOf.get(row.id) ?? 0,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
      withdrawnAt: iso(row.withdrawn_at),
    }));
  }

  async manageList(q: z.output<typeof noticeManageQuery>) {
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
    return { list: await this.manageItems(rows), total: Number(total.n) };
  }

  async manageDetail(id: number): Promise<NoticeManageItem> {
    return (await this.manageItems([await this.rowOf(id)]))[0];
  }

  /** Customer accounts by name or main account, or by id. */
  async tenants(q: { keyword?: string; ids?: number[] }): Promise<NoticeTenant[]> {
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

  /** Checks and sanitises what staff wrote: 400 naming the field, nothing stored. */
  private async clean(w: Writer, f: Fields, keepPublishAt: Date | null) {
    const body = sanitizeRichHtml(f.bodyHtml);
    if (!body.hasContent) throw badRequest('bodyHtml', 'notice.bodyRequired');
    await assertOwnObjects(w.scope, body.objectKeys, 'bodyHtml');
    if (f.imageKey) await assertOwnObjects(w.scope, [f.imageKey], 'imageKey');
    const publishAt = f.publishAt ? new Date(f.publishAt) : keepPublishAt;
    const endsAt = f.endsAt ? new Date(f.endsAt) : null;
    if (endsAt && publishAt && endsAt <= publishAt) throw badRequest('endsAt', 'notice.endsBeforePublish');
    const tenantIds = f.audience === 'tenants' ? [...new Set(f.tenantIds)] : [];
    if (f.audience === 'tenants') {
      if (!tenantIds.length) throw badRequest('tenantIds', 'notice.tenantsRequired');
      const found = new Set((await this.tenants({ ids: tenantIds })).map((t) => t.id));
      const missing = tenantIds.findIndex((id) => !found.has(id));
      if (missing >= 0) throw badRequest(`tenantIds.${missing}`, 'notice.tenantMissing', { id: tenantIds[missing] });
    }
    return {
      title: f.title,
      body_html: body.html,
      image: f.imageKey,
      audience: f.audience,
      tenant_ids: tenantIds,
      published_at: publishAt,
      ends_at: endsAt,
      pinned: f.pinned,
    };
  }

  async create(w: Writer, f: Fields): Promise<{ before: Row | null; row: Row }> {
    const values = await this.clean(w, f, null);
    const row = await this.db
      .insertInto('notices')
      .values({ ...values, state: 'draft', created_by: w.id, updated_by: w.id })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { before: null, row };
  }

  /** Edits a draft or a published notice (a withdrawn one is done). */
  async update(w: Writer, id: number, f: Fields): Promise<{ before: Row; row: Row }> {
    const before = await this.rowOf(id);
    if (before.state === 'withdrawn') throw new AppError(409, 'notice.notEditable');
    // a published notice keeps its publish time unless another is given
    const values = await this.clean(w, f, before.state === 'published' ? before.published_at : null);
    const now = new Date();
    const row = await this.db
      .updateTable('notices')
      .set({
        ...values,
        updated_by: w.id,
        updated_at: now,
        ...(before.state === 'published'
          ? {
              // moved ahead: announced again when the time comes; an end moved: told again when it comes
              announced_at: values.published_at! > now ? null : (before.announced_at ?? now),
              end_announced_at: values.ends_at && values.ends_at <= now ? (before.end_announced_at ?? now) : null,
            }
          : {}),
      })
      .where('id', '=', id)
      .where('state', '=', before.state)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new AppError(409, 'http.409');
    return { before, row };
  }

  /** draft → published: live now, or scheduled when its publish time is ahead. */
  async publish(w: Writer, id: number): Promise<{ before: Row; row: Row }> {
    const before = await this.rowOf(id);
    if (before.state !== 'draft') throw new AppError(409, 'notice.notDraft');
    const now = new Date();
    if (before.ends_at && before.ends_at <= now) throw badRequest('endsAt', 'notice.endsPast');
    const at = before.published_at && before.published_at > now ? before.published_at : now;
    const row = await this.db
      .updateTable('notices')
      .set({
        state: 'published',
        published_at: at,
        announced_at: at > now ? null : now,
        end_announced_at: null,
        withdrawn_at: null,
        updated_by: w.id,
        updated_at: now,
      })
      .where('id', '=', id)
      .where('state', '=', 'draft')
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new AppError(409, 'notice.notDraft');
    return { before, row };
  }

  async withdraw(w: Writer, id: number): Promise<{ before: Row; row: Row }> {
    const before = await this.rowOf(id);
    if (before.state !== 'published') throw new AppError(409, 'notice.notPublished');
    const now = new Date();
    const row = await this.db
      .updateTable('notices')
      .set({ state: 'withdrawn', withdrawn_at: now, updated_by: w.id, updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'published')
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new AppError(409, 'notice.notPublished');
    return { before, row };
  }

  async remove(id: number): Promise<Row> {
    const before = await this.rowOf(id);
    if (before.state === 'published') throw new AppError(409, 'notice.notDeletable');
    const res = await this.db
      .deleteFrom('notices')
      .where('id', '=', id)
      .where('state', '<>', 'published')
      .executeTakeFirst();
    if (!Number(res.numDeletedRows)) throw new AppError(409, 'notice.notDeletable');
    return before;
  }

  toManage(row: Row): Promise<NoticeManageItem> {
    return this.manageItems([row]).then((l) => l[0]);
  }
}
