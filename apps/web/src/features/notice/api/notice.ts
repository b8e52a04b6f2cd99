import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts';
import type {
  NoticeBody,
  NoticeEditBody,
  NoticeItem,
  NoticeManageItem,
  NoticeState,
  NoticeTenant,
} from '@cpc/contracts/notice';
import { NOTICE_QUERY_ROOT } from '@/lib/notice-api';
export { useLiveNoticeCount as useLiveNotices } from '@/lib/notice-api';
import { request } from '@/lib/request';

/** Every notice query lives under the bell's root key: one invalidation refreshes the page, the bell and its count. */
const LIST_KEY = [...NOTICE_QUERY_ROOT, 'list'] as const;
const DETAIL_KEY = [...NOTICE_QUERY_ROOT, 'detail'] as const;
const MANAGE_KEY = [...NOTICE_QUERY_ROOT, 'manage'] as const;

export interface NoticeListParams {
  pageNo: number;
  pageSize: number;
}
export interface ManageListParams {
  pageNo: number;
  pageSize: number;
  state?: NoticeState;
  keyword?: string;
}

export const getNoticeList = (p: NoticeListParams) =>
  request<Paged<NoticeItem>>({ url: '/notice/getList', method: 'get', params: { ...p } });
/** Silent: a notice that is gone (withdrawn, ended, not for this account) is explained by the page. */
export const getNoticeDetail = (id: number) =>
  request<NoticeItem>({ url: '/notice/detail', method: 'get', params: { id }, silent: true });
export const readAllNotices = () => request<{ updated: number }>({ url: '/notice/readAll', method: 'post', data: {} });

export const getManageList = (p: ManageListParams) =>
  request<Paged<NoticeManageItem>>({
    url: '/notice/manage/list',
    method: 'get',
    params: { ...p, keyword: p.keyword?.trim() || undefined },
  });
export const getTenantOptions = (keyword: string) =>
  request<NoticeTenant[]>({
    url: '/notice/tenantOptions',
    method: 'get',
    params: { keyword: keyword.trim() || undefined },
    silent: true,
  });
/** Silent: a refusal names its field, shown on the form in the user's language. */
export const createNotice = (body: NoticeBody) =>
  request<NoticeManageItem>({ url: '/notice/manage/create', method: 'post', data: body, silent: true });
export const updateNotice = (body: NoticeEditBody) =>
  request<NoticeManageItem>({ url: '/notice/manage/update', method: 'post', data: body, silent: true });
const byId = (action: 'publish' | 'withdraw' | 'delete') => (id: number) =>
  request<NoticeManageItem>({ url: `/notice/manage/${action}`, method: 'post', data: { id } });
export const publishNotice = byId('publish');
export const withdrawNotice = byId('withdraw');
export const deleteNotice = byId('delete');

export const noticeListQueryOptions = (p: NoticeListParams) =>
  queryOptions({ queryKey: [...LIST_KEY, p], queryFn: () => getNoticeList(p), placeholderData: keepPreviousData });
export const useNoticeList = (p: NoticeListParams) => useQuery(noticeListQueryOptions(p));

export const noticeDetailQueryOptions = (id: number) =>
  queryOptions({ queryKey: [...DETAIL_KEY, id], queryFn: () => getNoticeDetail(id), retry: false });
export const useNoticeDetail = (id: number) => useQuery({ ...noticeDetailQueryOptions(id), enabled: id > 0 });

export const useManageList = (p: ManageListParams, enabled: boolean) =>
  useQuery({
    queryKey: [...MANAGE_KEY, p],
    queryFn: () => getManageList(p),
    placeholderData: keepPreviousData,
    enabled,
  });

export const useTenantOptions = (keyword: string, enabled: boolean) =>
  useQuery({ queryKey: [...MANAGE_KEY, 'tenants', keyword], queryFn: () => getTenantOptions(keyword), enabled });

/** A change of any notice refreshes every notice query (lists, counts, the bell). */
const useNoticeMutation = <A, R>(fn: (arg: A) => Promise<R>) => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => client.invalidateQueries({ queryKey: NOTICE_QUERY_ROOT }),
  });
};
export const useCreateNotice = () => useNoticeMutation(createNotice);
export const useUpdateNotice = () => useNoticeMutation(updateNotice);
export const usePublishNotice = () => useNoticeMutation(publishNotice);
export const useWithdrawNotice = () => useNoticeMutation(withdrawNotice);
export const useDeleteNotice = () => useNoticeMutation(deleteNotice);
export const useReadAllNotices = () => useNoticeMutation(readAllNotices);

/** After a notice is opened (and so read): the counts and lists say it at once. */
export function useAfterRead(): () => void {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: LIST_KEY });
    void client.invalidateQueries({ queryKey: [...NOTICE_QUERY_ROOT, 'popover'] });
    void client.invalidateQueries({ queryKey: [...NOTICE_QUERY_ROOT, 'unread'] });
  };
}
