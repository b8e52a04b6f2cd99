import { z } from 'zod';

/** The message centre (issue 14): every user's inbox. */
export const messageItem = z.object({
  id: z.number().int(),
  kind: z.string(),
  title: z.string(),
  body: z.string(),
  /** The console path it leads to, or ''. */
  link: z.string(),
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
