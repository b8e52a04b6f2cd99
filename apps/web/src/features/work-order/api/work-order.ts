import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts/envelope';
import type {
  CannedReply,
  CannedReplyBody,
  CannedReplyEditBody,
  WorkOrderAssignBody,
  WorkOrderBody,
  WorkOrderDetail,
  WorkOrderEditBody,
  WorkOrderItem,
  WorkOrderRateBody,
  WorkOrderReplyBody,
  WorkOrderTarget,
} from '@cpc/contracts/work-order';
import { request, uploadFile } from '@/lib/request';
import { filterParams, type WorkOrderFilter } from '../utils/filter';

/** What a customer may name in a work order (`GET /workOrder/options`). */
export interface WorkOrderOptions {
  devices: Array<{ id: number; sn: string; name: string }>;
  orders: Array<{ id: number; orderNo: string }>;
}

export const workOrderKeys = {
  all: ['work-order'] as const,
  list: (f: WorkOrderFilter) => ['work-order', 'list', f] as const,
  detail: (id: number) => ['work-order', 'detail', id] as const,
  options: (keyword: string) => ['work-order', 'options', keyword] as const,
  assignees: ['work-order', 'assignees'] as const,
  targets: ['work-order', 'targets'] as const,
  canned: ['work-order', 'canned'] as const,
};

export const useWorkOrderList = (f: WorkOrderFilter) =>
  useQuery({
    queryKey: workOrderKeys.list(f),
    queryFn: () => request<Paged<WorkOrderItem>>({ url: '/workOrder/list', method: 'get', params: filterParams(f) }),
    placeholderData: keepPreviousData,
  });

export const useWorkOrder = (id: number) =>
  useQuery({
    queryKey: workOrderKeys.detail(id),
    queryFn: () => request<WorkOrderDetail>({ url: '/workOrder/detail', method: 'get', params: { id } }),
    enabled: id > 0,
  });

export const useWorkOrderOptions = (keyword: string, enabled = true) =>
  useQuery({
    queryKey: workOrderKeys.options(keyword),
    queryFn: () =>
      request<WorkOrderOptions>({
        url: '/workOrder/options',
        method: 'get',
        params: keyword ? { keyword } : undefined,
      }),
    placeholderData: keepPreviousData,
    enabled,
    staleTime: 30_000,
  });

export const useAssignees = (enabled: boolean) =>
  useQuery({
    queryKey: workOrderKeys.assignees,
    queryFn: () => request<Array<{ id: number; name: string }>>({ url: '/workOrder/assignees', method: 'get' }),
    enabled,
    staleTime: 60_000,
  });

export const useTargets = (enabled: boolean) =>
  useQuery({
    queryKey: workOrderKeys.targets,
    queryFn: () => request<WorkOrderTarget[]>({ url: '/workOrder/targets', method: 'get' }),
    enabled,
  });

export const useCannedReplies = (enabled: boolean) =>
  useQuery({
    queryKey: workOrderKeys.canned,
    queryFn: () => request<CannedReply[]>({ url: '/workOrder/canned/list', method: 'get' }),
    enabled,
    staleTime: 30_000,
  });

/** A call that answers the order as it is now: the detail in the cache is replaced, the lists read again. */
function useOrderCall<B>(url: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: B) => request<WorkOrderDetail>({ url, method: 'post', data: body }),
    onSuccess: (detail) => {
      if (detail && typeof detail === 'object' && 'id' in detail)
        client.setQueryData(workOrderKeys.detail(detail.id), detail);
      void client.invalidateQueries({ queryKey: ['work-order', 'list'] });
    },
  });
}

export const useCreateWorkOrder = () => useOrderCall<WorkOrderBody>('/workOrder/create');
export const useUpdateWorkOrder = () => useOrderCall<WorkOrderEditBody>('/workOrder/update');
export const useReply = () => useOrderCall<WorkOrderReplyBody>('/workOrder/reply');
export const useResolve = () => useOrderCall<WorkOrderReplyBody>('/workOrder/resolve');
export const useRate = () => useOrderCall<WorkOrderRateBody>('/workOrder/rate');
export const useAssign = () => useOrderCall<WorkOrderAssignBody>('/workOrder/assign');
export type SimpleAction = 'withdraw' | 'reopen' | 'close' | 'take';
export const useSimpleAction = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ action, id }: { action: SimpleAction; id: number }) =>
      request<WorkOrderDetail>({ url: `/workOrder/${action}`, method: 'post', data: { id } }),
    onSuccess: (detail) => {
      if (detail && typeof detail === 'object' && 'id' in detail)
        client.setQueryData(workOrderKeys.detail(detail.id), detail);
      void client.invalidateQueries({ queryKey: ['work-order', 'list'] });
    },
  });
};

/** Marks the caller's side read (no message on failure: reading still works). */
export const markRead = (id: number): Promise<unknown> =>
  request({ url: '/workOrder/read', method: 'post', data: { id }, silent: true });

export const useSaveTargets = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (targets: WorkOrderTarget[]) =>
      request<WorkOrderTarget[]>({ url: '/workOrder/targets', method: 'post', data: { targets } }),
    onSuccess: (data) =>
      Array.isArray(data)
        ? client.setQueryData(workOrderKeys.targets, data)
        : client.invalidateQueries({ queryKey: workOrderKeys.targets }),
  });
};

export const useCannedCall = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (
      call:
        | { kind: 'create'; body: CannedReplyBody }
        | { kind: 'update'; body: CannedReplyEditBody }
        | { kind: 'delete'; id: number },
    ) =>
      request<CannedReply | null>({
        url: `/workOrder/canned/${call.kind}`,
        method: 'post',
        data: call.kind === 'delete' ? { id: call.id } : call.body,
      }),
    onSettled: () => client.invalidateQueries({ queryKey: workOrderKeys.canned }),
  });
};

/** Uploads one attachment through the upload-token flow's `attachment` bucket; answers its object key. */
export const uploadAttachment = (file: File, onProgress?: (percent: number) => void) =>
  uploadFile(file, (p) => onProgress?.(p), file.name, 'attachment');
