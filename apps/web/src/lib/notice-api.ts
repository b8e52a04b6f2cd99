import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MessageItem, MessageReadResult, NoticeItem, Paged, UnreadCountResult } from '@cpc/contracts';
import { useLiveEvents } from './live-events';
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
/** The latest unread announcements (the server says read/unread per user), for the popover's notice tab. */
export const getNotices = (pageSize = POPOVER_PAGE_SIZE) =>
  get<Paged<NoticeItem>>('/notice/getList', { pageNo: 1, pageSize, unread: 'true' }, { silent: true });

export const getNoticeUnreadCount = () => get<UnreadCountResult>('/notice/unreadCount', undefined, { silent: true });

export const getMessages = (pageSize = POPOVER_PAGE_SIZE) =>
  get<Paged<MessageItem>>('/message/getList', { pageNo: 1, pageSize }, { silent: true });

export const getUnreadCount = () => get<UnreadCountResult>('/message/unreadCount', undefined, { silent: true });

export const markMessagesRead = (ids: number[]) => post<MessageReadResult>('/message/read', { ids });

export const markAllMessagesRead = () => post<MessageReadResult>('/message/readAll', {});

/** The root of every announcement query (the notices page's too): invalidating it refreshes them all. */
export const NOTICE_QUERY_ROOT = ['notice'] as const;
const NOTICE_KEY = [...NOTICE_QUERY_ROOT, 'popover'] as const;
const MESSAGE_KEY = ['message'] as const;

export const noticesQueryOptions = () =>
  queryOptions({ queryKey: NOTICE_KEY, queryFn: () => getNotices(), refetchInterval: NOTICE_POLL_INTERVAL });

export const messagesQueryOptions = () =>
  queryOptions({ queryKey: [...MESSAGE_KEY, 'list'], queryFn: () => getMessages() });

export const unreadCountQueryOptions = () =>
  // no polling: a `message` event reads it again (features/inbox use-inbox-live, hooked in the bell)
  queryOptions({ queryKey: [...MESSAGE_KEY, 'unread'], queryFn: getUnreadCount });

export const useNotices = () => useQuery(noticesQueryOptions());

export const noticeUnreadCountQueryOptions = () =>
  queryOptions({
    queryKey: [...NOTICE_QUERY_ROOT, 'unread'],
    queryFn: getNoticeUnreadCount,
    refetchInterval: NOTICE_POLL_INTERVAL,
  });
export const useNoticeUnreadCount = () => useQuery(noticeUnreadCountQueryOptions());

/**
 * An announcement goes to every console at once: each reads its count again after a random delay up to this, so
 * 100,000 consoles do not ask in the same instant (bench/notice.ts).
 */
export const NOTICE_REFETCH_SPREAD_MS = 2_000;

/** While the bell is shown: an announcement published, edited, withdrawn or ended reads the notice tab again. */
export function useLiveNoticeCount(): void {
  const client = useQueryClient();
  const refresh = () => void client.invalidateQueries({ queryKey: NOTICE_QUERY_ROOT });
  useLiveEvents({
    notice: () => setTimeout(refresh, Math.random() * NOTICE_REFETCH_SPREAD_MS),
    onGap: refresh,
  });
}

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
