import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MessageItem, MessageReadResult, NoticeItem, Paged, UnreadCountResult } from '@cpc/contracts';
import { get, post } from './request';

/**
 * The calls behind the header's notice popover (SPEC §2, §7): published notices, the user's messages
 * and their read state. In lib, not a feature, because the layout shows them on every page.
 */

/** How many of each the popover lists; the rest is on the notices page. */
export const POPOVER_PAGE_SIZE = 5;
/** The bell looks for news this often while the console is open. */
export const NOTICE_POLL_INTERVAL = 60_000;

// silent: a failing background poll must not toast on every page; the popover shows the failure itself
export const getNotices = (pageSize = POPOVER_PAGE_SIZE) =>
  get<Paged<NoticeItem>>('/notice/getList', { pageNo: 1, pageSize }, { silent: true });

export const getMessages = (pageSize = POPOVER_PAGE_SIZE) =>
  get<Paged<MessageItem>>('/message/getList', { pageNo: 1, pageSize }, { silent: true });

export const getUnreadCount = () => get<UnreadCountResult>('/message/unreadCount', undefined, { silent: true });

export const markMessagesRead = (ids: number[]) => post<MessageReadResult>('/message/read', { ids });

export const markAllMessagesRead = () => post<MessageReadResult>('/message/readAll', {});

const NOTICE_KEY = ['notice', 'popover'] as const;
const MESSAGE_KEY = ['message'] as const;

export const noticesQueryOptions = () =>
  queryOptions({ queryKey: NOTICE_KEY, queryFn: () => getNotices(), refetchInterval: NOTICE_POLL_INTERVAL });

export const messagesQueryOptions = () =>
  queryOptions({ queryKey: [...MESSAGE_KEY, 'list'], queryFn: () => getMessages() });

export const unreadCountQueryOptions = () =>
  // no polling: a `message` event reads it again (features/inbox use-inbox-live, hooked in the bell)
  queryOptions({ queryKey: [...MESSAGE_KEY, 'unread'], queryFn: getUnreadCount });

export const useNotices = () => useQuery(noticesQueryOptions());

export const useMessages = (enabled: boolean) => useQuery({ ...messagesQueryOptions(), enabled });

export const useUnreadCount = () => useQuery(unreadCountQueryOptions());

/** Marks messages read (some, or all when given none) and refreshes the list and the badge. */
export const useMarkMessagesRead = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids?: number[]) => (ids ? markMessagesRead(ids) : markAllMessagesRead()),
    onSettled: () => client.invalidateQueries({ queryKey: MESSAGE_KEY }),
  });
};
