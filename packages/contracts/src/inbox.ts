import { z } from 'zod';
import { hasNoControl, NO_CONTROL_MSG } from './validators.ts';

/**
 * The message centre (issue 14): every user's inbox. Messages come from the system (identity reviewed, work order
 * replied, SIM alerts, order paid, device fault, …), each leading to its page; they are also mailed (SMTP_URL).
 * A user reads, marks and deletes only their own: anyone else's message does not exist (404). Paths under /apiAdmin.
 *
 * | call | access | request | data |
 * |---|---|---|---|
 * | GET /message/getList | signed in | messageListQuery | paged MessageItem |
 * | GET /message/detail | signed in | messageDetailQuery | MessageItem (marks it read) |
 * | GET /message/unreadCount | signed in | – | UnreadCountResult |
 * | POST /message/read | signed in | messageReadBody | MessageReadResult |
 * | POST /message/readAll | signed in | messageReadAllBody | MessageReadResult |
 * | POST /message/delete | signed in | messageDeleteBody | MessageDeleteResult (others' ids are ignored) |
 *
 * Every change publishes `{type:'message', data:{userId}}`: the user's other consoles read again.
 */

/** The groups of message kinds (a kind is `<group>.<what>`: 'sim.low', 'order.fulfilled'). */
export const MESSAGE_GROUPS = ['identity', 'workOrder', 'notice', 'order', 'sim', 'device'] as const;
export type MessageGroup = (typeof MESSAGE_GROUPS)[number];
/** The group of a message kind ('sim.low' → 'sim'), or null for a kind of no known group. */
export const messageGroupOf = (kind: string): MessageGroup | null => {
  const g = kind.split('.')[0];
  return (MESSAGE_GROUPS as readonly string[]).includes(g) ? (g as MessageGroup) : null;
};

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

/** An instant as ISO 8601 (`2026-11-26T03:00:00Z`) or epoch milliseconds. */
const instant = z
  .union([
    z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }),
    z.string().regex(/^\d{1,15}$/, 'rule.isoDateTime'),
  ])
  .transform((v) => (/^\d+$/.test(v) ? new Date(Number(v)).toISOString() : new Date(v).toISOString()))
  .optional();

/** The inbox's filters (all optional), newest first, server paging. */
export const messageFilter = z
  .object({
    /** One group of kinds. */
    group: z.enum(MESSAGE_GROUPS).optional(),
    /** Only read or only unread messages. */
    read: z.enum(['read', 'unread']).optional(),
    /** Sent at or after / before. */
    from: instant,
    to: instant,
    /** Words in the title (in either language) or the body, case-insensitive. */
    keyword: z.string().trim().max(50, 'rule.maxChars').refine(hasNoControl, NO_CONTROL_MSG).optional(),
  })
  .strict();
export type MessageFilter = z.input<typeof messageFilter>;

export const messageListQuery = messageFilter
  .extend({
    pageNo: z.coerce.number().int().min(1).max(100_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type MessageListQuery = z.input<typeof messageListQuery>;

export const messageDetailQuery = z
  .object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) })
  .strict();
export type MessageDetailQuery = z.input<typeof messageDetailQuery>;

/** Marks some of the caller's messages read (the popover's e-mail tab). */
export const messageReadBody = z.object({ ids: z.array(z.number().int().positive()).min(1).max(100) }).strict();
export type MessageReadBody = z.infer<typeof messageReadBody>;

/** Marks all the caller's messages read, or only those of one group. */
export const messageReadAllBody = z
  .object({ group: z.enum(MESSAGE_GROUPS).optional() })
  .strict()
  .nullish();
export type MessageReadAllBody = z.infer<typeof messageReadAllBody>;

/** How many messages a read call changed. */
export const messageReadResult = z.object({ updated: z.number().int() });
export type MessageReadResult = z.infer<typeof messageReadResult>;

/** Deletes some of the caller's messages; ids that are not theirs are ignored (`deleted` says how many went). */
export const messageDeleteBody = z.object({ ids: z.array(z.number().int().positive()).min(1).max(100) }).strict();
export type MessageDeleteBody = z.infer<typeof messageDeleteBody>;
export const messageDeleteResult = z.object({ deleted: z.number().int() });
export type MessageDeleteResult = z.infer<typeof messageDeleteResult>;

/** The bell's badge: the caller's unread messages. */
export const unreadCountResult = z.object({ count: z.number().int() });
export type UnreadCountResult = z.infer<typeof unreadCountResult>;
