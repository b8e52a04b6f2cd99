import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  DeliveryItem,
  DeliveryState,
  PushBody,
  PushItem,
  PushKind,
  PushPreview,
  PushState,
  PushTargets,
} from '@cpc/contracts/push';
import type { Paged } from '@cpc/contracts/envelope';
import { request } from '@/lib/request';

/** Query keys of the push feature: `all` is what a live `push` event makes stale. */
export const pushKeys = {
  all: ['push'] as const,
  list: (q: object) => ['push', 'list', q] as const,
  detail: (id: number) => ['push', 'detail', id] as const,
  deliveries: (id: number, q: object) => ['push', 'detail', id, 'deliveries', q] as const,
  preview: (q: object) => ['push', 'preview', q] as const,
};

export type PushListParams = {
  pageNo: number;
  pageSize: number;
  state?: PushState;
  kind?: PushKind;
  from?: string;
  to?: string;
  keyword?: string;
};

export const usePushes = (q: PushListParams) =>
  useQuery({
    queryKey: pushKeys.list(q),
    queryFn: () => request<Paged<PushItem>>({ url: '/push/list', method: 'get', params: q }),
    placeholderData: keepPreviousData,
  });

export const usePush = (id: number | null) =>
  useQuery({
    queryKey: pushKeys.detail(id ?? 0),
    queryFn: () => request<PushItem>({ url: '/push/detail', method: 'get', params: { id } }),
    enabled: id != null && id > 0,
  });

export const useDeliveries = (id: number | null, q: { pageNo: number; pageSize: number; state?: DeliveryState }) =>
  useQuery({
    queryKey: pushKeys.deliveries(id ?? 0, q),
    queryFn: () => request<Paged<DeliveryItem>>({ url: '/push/deliveries', method: 'get', params: { id, ...q } }),
    enabled: id != null && id > 0,
    placeholderData: keepPreviousData,
  });

/** How many devices the targets reach now, and how many of them are online (the compose form's live count). */
export const usePushPreview = (targets: PushTargets, enabled: boolean) =>
  useQuery({
    queryKey: pushKeys.preview(targets),
    queryFn: () => request<PushPreview>({ url: '/push/preview', data: { targets }, quiet: true }),
    enabled,
    placeholderData: keepPreviousData,
  });

export const useCreatePush = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: PushBody) =>
      request<{ id: number; state: PushState; devices: number }>({ url: '/push/create', data: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: pushKeys.all }),
  });
};

export const useRetryPush = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { id: number; expireAt?: string }) =>
      request<{ id: number; retried: number }>({ url: '/push/retry', data: body }),
    onSuccess: () => client.invalidateQueries({ queryKey: pushKeys.all }),
  });
};

export const useCancelPush = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => request<{ id: number; state: PushState }>({ url: '/push/cancel', data: { id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: pushKeys.all }),
  });
};
