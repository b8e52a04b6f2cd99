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
import type { TenantScope } from '../../db/tenant-scope.ts';
import { assertOwnObjects, presentRichHtml, sanitizeRichHtml } from '../../lib/rich-html.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import { NoticeRepository, type NoticeRow, type Reader } from './repository.ts';

export type { Reader } from './repository.ts';

type Row = NoticeRow;
type Fields = z.output<typeof noticeBody>;

/** Who writes (staff with notice:edit). */
export interface Writer {
  id: number;
  scope: TenantScope;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** How many live notices of the reader's audience the reader has not opened (the bell, the workbench). */
export function unreadNoticeCount(db: Db, r: Reader): Promise<number> {
  return new NoticeRepository(db).unreadCount(r);
}

/** The reader's newest unread live notices, pinned first: id, title and time (the workbench's items). */
export function latestUnreadNotices(db: Db, r: Reader, limit: number) {
  return new NoticeRepository(db).latestUnread(r, limit);
}

export class NoticeService {
  private repo: NoticeRepository;

  constructor(
    db: Db,
    private storage: Pick<ObjectStorage, 'signedUrl'>,
  ) {
    this.repo = new NoticeRepository(db);
  }

  private imageUrl(key: string): string {
    if (!key) return '';
    // the rows of 0001 hold a URL; the editor's hold an object key
    return /^(https?:)?\//.test(key) ? key : this.storage.signedUrl(key);
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
    const { rows, total } = await this.repo.listForReader(r, {
      pageNo: q.pageNo,
      pageSize: q.pageSize,
      unread: q.unread === 'true',
    });
    return { list: rows.map((row) => this.item(row)), total };
  }

  /** One live notice of the reader's audience (404 otherwise), marked read for the reader. */
  async read(r: Reader, id: number): Promise<NoticeItem> {
    const row = await this.repo.findReadable(r, id);
    if (!row) throw notFound('notice');
    if (!row.read) await this.repo.markRead(r.id, id);
    return this.item({ ...row, read: true });
  }

  unreadCount(r: Reader): Promise<number> {
    return this.repo.unreadCount(r);
  }

  readAll(r: Reader): Promise<number> {
    return this.repo.markAllRead(r);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Staff

  private async rowOf(id: number): Promise<Row> {
    const row = await this.repo.findById(id);
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
      this.repo.readCounts(ids),
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
    const { rows, total } = await this.repo.listForStaff(q);
    return { list: await this.manageItems(rows), total };
  }

  async manageDetail(id: number): Promise<NoticeManageItem> {
    return (await this.manageItems([await this.rowOf(id)]))[0];
  }

  /** Customer accounts by name or main account, or by id. */
  tenants(q: { keyword?: string; ids?: number[] }): Promise<NoticeTenant[]> {
    return this.repo.tenants(q);
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
    const row = await this.repo.insert({ ...values, state: 'draft', created_by: w.id, updated_by: w.id });
    return { before: null, row };
  }

  /** Edits a draft or a published notice (a withdrawn one is done). */
  async update(w: Writer, id: number, f: Fields): Promise<{ before: Row; row: Row }> {
    const before = await this.rowOf(id);
    if (before.state === 'withdrawn') throw new AppError(409, 'notice.notEditable');
    // a published notice keeps its publish time unless another is given
    const values = await this.clean(w, f, before.state === 'published' ? before.published_at : null);
    const now = new Date();
    const row = await this.repo.updateInState(id, before.state, {
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
    });
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
    const row = await this.repo.updateInState(id, 'draft', {
      state: 'published',
      published_at: at,
      announced_at: at > now ? null : now,
      end_announced_at: null,
      withdrawn_at: null,
      updated_by: w.id,
      updated_at: now,
    });
    if (!row) throw new AppError(409, 'notice.notDraft');
    return { before, row };
  }

  async withdraw(w: Writer, id: number): Promise<{ before: Row; row: Row }> {
    const before = await this.rowOf(id);
    if (before.state !== 'published') throw new AppError(409, 'notice.notPublished');
    const now = new Date();
    const row = await this.repo.updateInState(id, 'published', {
      state: 'withdrawn',
      withdrawn_at: now,
      updated_by: w.id,
      updated_at: now,
    });
    if (!row) throw new AppError(409, 'notice.notPublished');
    return { before, row };
  }

  async remove(id: number): Promise<Row> {
    const before = await this.rowOf(id);
    if (before.state === 'published') throw new AppError(409, 'notice.notDeletable');
    if (!(await this.repo.deleteUnpublished(id))) throw new AppError(409, 'notice.notDeletable');
    return before;
  }

  toManage(row: Row): Promise<NoticeManageItem> {
    return this.manageItems([row]).then((l) => l[0]);
  }
}
