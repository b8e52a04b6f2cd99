import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts';
import type { DeviceListItem } from '@cpc/contracts/device';
import type {
  AppKeyCreateBody,
  AppKeyListQuery,
  AppKeyStateBody,
  AppKeyUpdateBody,
  AppKeyView,
  AppKeyWithSecret,
  MarkupPreview,
  MarkupPreviewBody,
  PrintJobDetail,
  PrintJobItem,
  PrintJobListQuery,
  RequestLogItem,
  RequestLogQuery,
  TestPrintBody,
  UsageQuery,
  UsageView,
  WebhookDeliveryDetail,
  WebhookDeliveryItem,
  WebhookListQuery,
} from '@cpc/contracts/integration';
import { FINAL_PRINT_JOB_STATES, type PrintJobState } from '@cpc/contracts/integration-constants';
import { get, post } from '@/lib/request';

/** System integration (contracts/integration.ts): app keys, their request log and usage, print jobs, webhooks, test prints. */

const enc = encodeURIComponent;

// App keys. The forms answer field refusals themselves: those calls are silent.
export const getKeys = (q: AppKeyListQuery) => get<Paged<AppKeyView>>('/integration/key/list', { ...q });
export const createKey = (body: AppKeyCreateBody) =>
  post<AppKeyWithSecret>('/integration/key/create', body, { silent: true });
export const updateKey = (body: AppKeyUpdateBody) =>
  post<AppKeyView>('/integration/key/update', body, { silent: true });
export const setKeyState = (body: AppKeyStateBody) => post<AppKeyView>('/integration/key/state', body);
export const rotateKey = (id: number) => post<AppKeyWithSecret>('/integration/key/rotate', { id });
export const deleteKey = (id: number) => post<null>('/integration/key/delete', { id });
export const getRequests = (id: number, q: RequestLogQuery) =>
  get<Paged<RequestLogItem>>(`/integration/key/${id}/requests`, { ...q });
export const getUsage = (id: number, q: UsageQuery) => get<UsageView>(`/integration/key/${id}/usage`, { ...q });

// Print jobs
export const getJobs = (q: PrintJobListQuery) => get<Paged<PrintJobItem>>('/integration/job/list', { ...q });
export const getJob = (id: string) => get<PrintJobDetail>(`/integration/job/${enc(id)}`);
export const cancelJob = (id: string) => post<PrintJobItem>(`/integration/job/${enc(id)}/cancel`);
/** Silent: the form shows a refused markup beside the editor. */
export const testPrint = (body: TestPrintBody) => post<PrintJobItem>('/integration/testPrint', body, { silent: true });
export const previewMarkup = (body: MarkupPreviewBody) =>
  post<MarkupPreview>('/integration/markup/preview', body, { silent: true });

// Webhook deliveries
export const getDeliveries = (q: WebhookListQuery) =>
  get<Paged<WebhookDeliveryItem>>('/integration/webhook/list', { ...q });
export const getDelivery = (id: string) => get<WebhookDeliveryDetail>(`/integration/webhook/${enc(id)}`);
export const resendDelivery = (id: string) => post<WebhookDeliveryDetail>(`/integration/webhook/${enc(id)}/resend`);

/** The account's devices, to pick one for a test print or a job filter. */
export const getDeviceOptions = (keyword: string) =>
  get<Paged<DeviceListItem>>('/device/list', { pageNo: 1, pageSize: 100, keyword: keyword || undefined });

export const INTEGRATION_KEY = ['integration'] as const;
export const KEYS_KEY = [...INTEGRATION_KEY, 'keys'] as const;
export const JOBS_KEY = [...INTEGRATION_KEY, 'jobs'] as const;
export const WEBHOOKS_KEY = [...INTEGRATION_KEY, 'webhooks'] as const;

/** Lists the page shows live: polled while their tab is on screen. */
const LIVE_MS = 4000;
const isFinal = (state: PrintJobState) => (FINAL_PRINT_JOB_STATES as readonly string[]).includes(state);

export const useKeys = (q: AppKeyListQuery, enabled = true) =>
  useQuery({
    queryKey: [...KEYS_KEY, 'list', q],
    queryFn: () => getKeys(q),
    enabled,
    placeholderData: keepPreviousData,
  });

export const useRequests = (id: number | null, q: RequestLogQuery, live: boolean) =>
  useQuery({
    queryKey: [...KEYS_KEY, 'requests', id, q],
    queryFn: () => getRequests(id!, q),
    enabled: id !== null,
    placeholderData: keepPreviousData,
    refetchInterval: live ? LIVE_MS : false,
  });

export const useUsage = (id: number | null, q: UsageQuery) =>
  useQuery({
    queryKey: [...KEYS_KEY, 'usage', id, q],
    queryFn: () => getUsage(id!, q),
    enabled: id !== null,
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });

export const useJobs = (q: PrintJobListQuery, live: boolean) =>
  useQuery({
    queryKey: [...JOBS_KEY, 'list', q],
    queryFn: () => getJobs(q),
    placeholderData: keepPreviousData,
    refetchInterval: live ? LIVE_MS : false,
  });

/** A job's detail, polled until it reaches a final state. */
export const useJob = (id: string | null) =>
  useQuery({
    queryKey: [...JOBS_KEY, 'detail', id],
    queryFn: () => getJob(id!),
    enabled: id !== null,
    refetchInterval: (query) => (query.state.data && isFinal(query.state.data.state) ? false : 2000),
  });

export const useDeliveries = (q: WebhookListQuery, live: boolean) =>
  useQuery({
    queryKey: [...WEBHOOKS_KEY, 'list', q],
    queryFn: () => getDeliveries(q),
    placeholderData: keepPreviousData,
    refetchInterval: live ? LIVE_MS : false,
  });

export const useDelivery = (id: string | null) =>
  useQuery({ queryKey: [...WEBHOOKS_KEY, 'detail', id], queryFn: () => getDelivery(id!), enabled: id !== null });

export const useDeviceOptions = (keyword: string, enabled = true) =>
  useQuery({
    queryKey: [...INTEGRATION_KEY, 'devices', keyword],
    queryFn: () => getDeviceOptions(keyword),
    enabled,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });

function useInvalidating<A, R>(mutationFn: (arg: A) => Promise<R>, key: readonly string[]) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSettled: () => client.invalidateQueries({ queryKey: key }) });
}

export const useCreateKey = () => useInvalidating(createKey, KEYS_KEY);
export const useUpdateKey = () => useInvalidating(updateKey, KEYS_KEY);
export const useSetKeyState = () => useInvalidating(setKeyState, KEYS_KEY);
export const useRotateKey = () => useInvalidating(rotateKey, KEYS_KEY);
export const useDeleteKey = () => useInvalidating(deleteKey, INTEGRATION_KEY);
export const useCancelJob = () => useInvalidating(cancelJob, JOBS_KEY);
export const useTestPrint = () => useInvalidating(testPrint, INTEGRATION_KEY);
export const useResendDelivery = () => useInvalidating(resendDelivery, WEBHOOKS_KEY);
