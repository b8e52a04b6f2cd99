import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MessageDeleteResult, MessageGroup, MessageItem, MessageReadResult, Paged } from '@cpc/contracts';
import { request } from '@/lib/request';

/** The inbox page's filters (the server's messageFilter). */
export interface InboxFilter {
  group?: MessageGroup;
  read?: 'read' | 'unread';
  from?: string;
  to?: string;
  keyword?: string;
}

/** Every inbox query lives under this key, with the bell's: a `message` event refreshes them all. */
export const MESSAGE_KEY = ['message'] as const;

const params = (f: InboxFilter) =>
  Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== '')) as Record<string, string>;

export const getMessagePage = (filter: InboxFilter, pageNo: number, pageSize: number) =>
  request<Paged<MessageItem>>({
    url: '/message/getList',
    method: 'get',
    params: { ...params(filter), pageNo, pageSize },
  });

/** One message; the server marks it read. */
export const getMessage = (id: number) =>
  request<MessageItem>({ url: '/message/detail', method: 'get', params: { id } });

export const readMessages = (ids: number[]) =>
  request<MessageReadResult>({ url: '/message/read', method: 'post', data: { ids } });

export const readAllMessages = (group?: MessageGroup) =>
  request<MessageReadResult>({ url: '/message/readAll', method: 'post', data: group ? { group } : {} });

export const deleteMessages = (ids: number[]) =>
  request<MessageDeleteResult>({ url: '/message/delete', method: 'post', data: { ids } });

export const useMessagePage = (filter: InboxFilter, pageNo: number, pageSize: number) =>
  useQuery({
    queryKey: [...MESSAGE_KEY, 'page', filter, pageNo, pageSize],
    queryFn: () => getMessagePage(filter, pageNo, pageSize),
    placeholderData: keepPreviousData,
  });

/** One message, opened: the server marks it read, so the lists and the badge are read again. */
export const useMessage = (id: number | null) => {
  const client = useQueryClient();
  return useQuery({
    queryKey: [...MESSAGE_KEY, 'detail', id],
    queryFn: async () => {
      const m = await getMessage(id!);
      void client.invalidateQueries({ queryKey: MESSAGE_KEY, predicate: (q) => q.queryKey[1] !== 'detail' });
      return m;
    },
    enabled: id !== null,
  });
};

/** A change to the inbox: afterwards the page, the bell's list and its badge are read again. */
const useInboxMutation = <A, R>(fn: (arg: A) => Promise<R>) => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => client.invalidateQueries({ queryKey: MESSAGE_KEY }),
  });
};

export const useReadMessages = () => useInboxMutation(readMessages);
export const useReadAllMessages = () => useInboxMutation((group?: MessageGroup) => readAllMessages(group));
export const useDeleteMessages = () => useInboxMutation(deleteMessages);
