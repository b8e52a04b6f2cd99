import { z } from 'zod';

export const noticeItem = z.object({
  id: z.number().int(),
  title: z.string(),
  notice: z.string(),
  image: z.string(),
  email: z.string(),
  pinned: z.boolean(),
  publishedAt: z.string(),
});
export type NoticeItem = z.infer<typeof noticeItem>;

export const messageItem = z.object({
  id: z.number().int(),
  kind: z.string(),
  title: z.string(),
  body: z.string(),
  readAt: z.string().nullable(),
  createdAt: z.string(),
});
export type MessageItem = z.infer<typeof messageItem>;

/** Marks some of the caller's messages read (the popover's e-mail tab). */
export const messageReadBody = z.object({ ids: z.array(z.number().int().positive()).min(1).max(100) }).strict();
export type MessageReadBody = z.infer<typeof messageReadBody>;

/** How many messages a read call changed. */
export const messageReadResult = z.object({ updated: z.number().int() });
export type MessageReadResult = z.infer<typeof messageReadResult>;

/** The bell's badge: the caller's unread messages. */
export const unreadCountResult = z.object({ count: z.number().int() });
export type UnreadCountResult = z.infer<typeof unreadCountResult>;
