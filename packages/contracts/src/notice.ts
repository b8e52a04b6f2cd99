import { z } from 'zod';
import { id, keywordField, pageFields, queryId, textLine } from './device.ts';

/**
 * System announcements (issue 14; `/notice`): platform staff write and publish them, customers read them.
 *
 * | call | permission | request | data |
 * |---|---|---|---|
 * | GET /notice/getList | signed in: what the caller's tenant is in the audience of and is live (staff: all live) | noticeListQuery | { list: NoticeItem[], total } pinned, then unread, then newest |
 * | GET /notice/detail | signed in, same rule (404 outside it); marks it read for the caller | { id } | NoticeItem |
 * | GET /notice/unreadCount | signed in | – | { count } |
 * | POST /notice/readAll | signed in | {} | { updated } |
 * | GET /notice/manage/list | notice:edit (staff) | noticeManageQuery | { list: NoticeManageItem[], total } |
 * | GET /notice/manage/detail | notice:edit | { id } | NoticeManageItem |
 * | POST /notice/manage/create | notice:edit | noticeBody | NoticeManageItem (a draft) |
 * | POST /notice/manage/update | notice:edit, draft or published | noticeEditBody | NoticeManageItem |
 * | POST /notice/manage/publish | notice:edit, draft | { id } | NoticeManageItem (scheduled when its publish time is ahead) |
 * | POST /notice/manage/withdraw | notice:edit, published | { id } | NoticeManageItem |
 * | POST /notice/manage/delete | notice:edit, draft or withdrawn | { id } | null |
 * | GET /notice/tenantOptions | notice:edit | { keyword, ids } | { id, name, kind }[] customer accounts |
 *
 * Live: `{ type: 'notice', data: { id } }` to every console when one goes live (now, or when its scheduled time
 * comes), is edited, withdrawn, ends or is read (so the reader's other tabs follow).
 */

/** draft → published (scheduled while its publish time is ahead; ended after its end time) → withdrawn. */
export const NOTICE_STATES = ['draft', 'published', 'withdrawn'] as const;
export type NoticeState = (typeof NOTICE_STATES)[number];
/** Who reads it: everyone, individual customers, enterprise customers, or the chosen tenants. Staff read all. */
export const NOTICE_AUDIENCES = ['all', 'individual', 'enterprise', 'tenants'] as const;
export type NoticeAudience = (typeof NOTICE_AUDIENCES)[number];
/** The longest body, in characters of sanitised HTML, and the most tenants one notice may name. */
export const NOTICE_HTML_MAX = 100_000;
export const NOTICE_TENANTS_MAX = 200;

export const noticeState = z.enum(NOTICE_STATES);
export const noticeAudience = z.enum(NOTICE_AUDIENCES);

/** An announcement as a reader gets it. `notice` is its HTML (images signed), `image` the cover's URL or ''. */
export const noticeItem = z.object({
  id: z.number().int(),
  title: z.string(),
  notice: z.string(),
  image: z.string(),
  email: z.string(),
  pinned: z.boolean(),
  publishedAt: z.string(),
  endsAt: z.string().nullable(),
  read: z.boolean(),
});
export type NoticeItem = z.infer<typeof noticeItem>;

export const noticeListQuery = z.object({ ...pageFields, unread: z.enum(['true', 'false']).optional() }).strict();
export type NoticeListQuery = z.input<typeof noticeListQuery>;

export const noticeUnreadCount = z.object({ count: z.number().int() });
export type NoticeUnreadCount = z.infer<typeof noticeUnreadCount>;
export const noticeReadResult = z.object({ updated: z.number().int() });

const dateTime = z.iso.datetime({ offset: true, message: 'rule.isoDateTime' });

export const noticeFields = {
  title: textLine(100).min(1, 'rule.titleRequired'),
  bodyHtml: z.string().max(NOTICE_HTML_MAX, 'rule.maxChars'),
  /** The cover image: an uploaded object's key, or '' for none. */
  imageKey: z.string().max(300, 'rule.maxChars').default(''),
  audience: noticeAudience.default('all'),
  /** The chosen tenants (audience `tenants` only; ignored otherwise). */
  tenantIds: z.array(id).max(NOTICE_TENANTS_MAX).default([]),
  /** When it goes live; null: when it is published. */
  publishAt: dateTime.nullable().default(null),
  /** When it stops being shown; null: never. After publishAt. */
  endsAt: dateTime.nullable().default(null),
  pinned: z.boolean().default(false),
};
export const noticeBody = z.object(noticeFields).strict();
export type NoticeBody = z.input<typeof noticeBody>;
export const noticeEditBody = z.object({ id, ...noticeFields }).strict();
export type NoticeEditBody = z.input<typeof noticeEditBody>;

export const noticeManageQuery = z
  .object({
    ...pageFields,
    state: noticeState.optional(),
    keyword: keywordField,
  })
  .strict();
export type NoticeManageQuery = z.input<typeof noticeManageQuery>;

export const noticeTenant = z.object({
  id: z.number().int(),
  name: z.string(),
  kind: z.enum(['individual', 'enterprise', 'platform']),
});
export type NoticeTenant = z.infer<typeof noticeTenant>;

/** An announcement as staff manage it. `bodyHtml` has its images signed (and keeps their keys). */
export const noticeManageItem = z.object({
  id: z.number().int(),
  title: z.string(),
  bodyHtml: z.string(),
  imageKey: z.string(),
  image: z.string(),
  audience: noticeAudience,
  tenants: z.array(noticeTenant),
  state: noticeState,
  publishAt: z.string().nullable(),
  endsAt: z.string().nullable(),
  pinned: z.boolean(),
  /** How many users have read it. */
  reads: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  withdrawnAt: z.string().nullable(),
});
export type NoticeManageItem = z.infer<typeof noticeManageItem>;

export const noticeIdQuery = z.object({ id: queryId }).strict();
export const noticeTenantQuery = z
  .object({
    keyword: keywordField,
    /** Comma-separated ids to name (the tenants a notice already chose). */
    ids: z
      .string()
      .regex(/^\d{1,15}(,\d{1,15}){0,199}$/, 'notice.tenantIds')
      .optional(),
  })
  .strict();
