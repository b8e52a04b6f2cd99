import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts';
import type {
  OrderDetail,
  OrderQuote,
  OrderState,
  OrderView,
  PackageBody,
  PackageEditBody,
  PackageView,
  PayStart,
  SimOption,
} from '@cpc/contracts/order';
import { request } from '@/lib/request';

export type PackageListParams = {
  pageNo?: number;
  pageSize?: number;
  keyword?: string;
  iccid?: string;
};
export interface OrderListParams {
  pageNo: number;
  pageSize: number;
  state?: OrderState;
  from?: string;
  to?: string;
  iccid?: string;
  packageId?: number;
  orderNo?: string;
  /** Staff: one tenant's orders. */
  tenantId?: number;
}
export interface OrderLine {
  iccid: string;
  packageId: number;
}

export const getPackages = (params: PackageListParams) =>
  request<Paged<PackageView>>({ url: '/order/package/list', method: 'get', params });
export const createPackage = (body: PackageBody) =>
  request<PackageView>({ url: '/order/package/create', method: 'post', data: body });
export const updatePackage = (body: PackageEditBody) =>
  request<PackageView>({ url: '/order/package/update', method: 'post', data: body });
export const shelfPackage = (body: { id: number; onShelf: boolean }) =>
  request<PackageView>({ url: '/order/package/shelf', method: 'post', data: body });
export const deletePackage = (id: number) =>
  request<null>({ url: '/order/package/delete', method: 'post', data: { id } });

export const getSimOptions = (params: { keyword?: string; iccids?: string }) =>
  request<SimOption[]>({ url: '/order/sim/options', method: 'get', params });
/** Silent: the page says why a selection cannot be bought (a package that does not fit, a limit). */
export const quoteOrder = (lines: OrderLine[]) =>
  request<OrderQuote>({ url: '/order/quote', method: 'post', data: { lines }, silent: true });
export const createOrder = (body: { clientRequestId: string; lines: OrderLine[] }) =>
  request<OrderDetail>({ url: '/order/create', method: 'post', data: body });
export const payOrder = (body: { id: number; lang: 'zh' | 'en' }) =>
  request<PayStart>({ url: '/order/pay', method: 'post', data: body });
export const cancelOrder = (id: number) => request<OrderDetail>({ url: '/order/cancel', method: 'post', data: { id } });
export const getOrders = (params: OrderListParams) =>
  request<Paged<OrderView>>({
    url: '/order/list',
    method: 'get',
    params: { ...params, iccid: params.iccid?.trim() || undefined, orderNo: params.orderNo?.trim() || undefined },
  });
export const getOrder = (id: number) => request<OrderDetail>({ url: '/order/detail', method: 'get', params: { id } });
export const refundOrder = (body: { id: number; reason: string }) =>
  request<OrderDetail>({ url: '/order/refund', method: 'post', data: body });

export const ORDER_KEY = ['order'] as const;
const PACKAGE_KEY = [...ORDER_KEY, 'packages'] as const;
export const SIM_KEY = [...ORDER_KEY, 'sims'] as const;
const LIST_KEY = [...ORDER_KEY, 'list'] as const;
const DETAIL_KEY = [...ORDER_KEY, 'detail'] as const;

export const packagesQueryOptions = (params: PackageListParams) =>
  queryOptions({
    queryKey: [...PACKAGE_KEY, params],
    queryFn: () => getPackages(params),
    placeholderData: keepPreviousData,
  });
export const usePackages = (params: PackageListParams) => useQuery(packagesQueryOptions(params));

export const useSimOptions = (params: { keyword?: string; iccids?: string }, enabled = true) =>
  useQuery({
    queryKey: [...SIM_KEY, params],
    queryFn: () => getSimOptions(params),
    placeholderData: keepPreviousData,
    enabled,
  });

export const useQuote = (lines: OrderLine[]) =>
  useQuery({
    queryKey: [...ORDER_KEY, 'quote', lines],
    queryFn: () => quoteOrder(lines),
    enabled: lines.length > 0,
    retry: false,
  });

export const ordersQueryOptions = (params: OrderListParams) =>
  queryOptions({
    queryKey: [...LIST_KEY, params],
    queryFn: () => getOrders(params),
    placeholderData: keepPreviousData,
  });
export const useOrders = (params: OrderListParams) => useQuery(ordersQueryOptions(params));

/** One order; `poll` re-reads it every 2 s while a payment is awaited (live events make it quicker). */
export const useOrder = (id: number | null, poll = false) =>
  useQuery({
    queryKey: [...DETAIL_KEY, id],
    queryFn: () => getOrder(id!),
    enabled: id != null,
    refetchInterval: poll ? 2000 : false,
  });

const useInvalidating = <A, R>(fn: (arg: A) => Promise<R>, key: readonly string[] = ORDER_KEY) => {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => client.invalidateQueries({ queryKey: key }) });
};
export const useCreatePackage = () => useInvalidating(createPackage, PACKAGE_KEY);
export const useUpdatePackage = () => useInvalidating(updatePackage, PACKAGE_KEY);
export const useShelfPackage = () => useInvalidating(shelfPackage, PACKAGE_KEY);
export const useDeletePackage = () => useInvalidating(deletePackage, PACKAGE_KEY);
export const useCreateOrder = () => useInvalidating(createOrder, LIST_KEY);
export const usePayOrder = () => useMutation({ mutationFn: payOrder });
export const useCancelOrder = () => useInvalidating(cancelOrder);
export const useRefundOrder = () => useInvalidating(refundOrder);
