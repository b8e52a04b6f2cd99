import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts';
import type { DeviceListItem } from '@cpc/contracts/device';
import type { OcrJob, OcrPrintBody, OcrPrinted, OcrStatus } from '@cpc/contracts/ai-library';
import { get, post, uploadFile } from '@/lib/request';

export const AI_KEY = ['ai-library'] as const;
export const OCR_JOBS_KEY = [...AI_KEY, 'ocr', 'jobs'] as const;

export const getOcrJobs = (pageNo: number, pageSize: number) =>
  get<Paged<OcrJob>>('/aiLibrary/ocr/jobs', { pageNo, pageSize });
export const getOcrJob = (id: number) => get<OcrJob>(`/aiLibrary/ocr/jobs/${id}`);
export const getOcrStatus = () => get<OcrStatus>('/aiLibrary/ocr/status');
export const submitOcr = (objectKey: string) => post<OcrJob>('/aiLibrary/ocr/jobs', { objectKey });
export const printOcr = (id: number, body: Omit<OcrPrintBody, 'copies'> & { copies?: number }) =>
  post<OcrPrinted>(`/aiLibrary/ocr/jobs/${id}/print`, body);
/** The account's devices, to choose the printer of a receipt. */
export const getDeviceOptions = (keyword: string) =>
  get<Paged<DeviceListItem>>('/device/list', { pageNo: 1, pageSize: 100, keyword: keyword || undefined });

/** Jobs not finished yet are polled too (besides the live events), in case an event was missed. */
const POLL_MS = 5000;
const unfinished = (list: OcrJob[] | undefined) =>
  (list ?? []).some((j) => j.state === 'queued' || j.state === 'running');

export const useOcrJobs = (pageNo: number, pageSize: number) =>
  useQuery({
    queryKey: [...OCR_JOBS_KEY, pageNo, pageSize],
    queryFn: () => getOcrJobs(pageNo, pageSize),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (unfinished(q.state.data?.list) ? POLL_MS : false),
  });

export const useOcrJob = (id: number | null) =>
  useQuery({
    queryKey: [...OCR_JOBS_KEY, 'one', id],
    queryFn: () => getOcrJob(id!),
    enabled: id !== null,
    refetchInterval: (q) => (unfinished(q.state.data ? [q.state.data] : []) ? POLL_MS : false),
  });

export const useOcrStatus = () => useQuery({ queryKey: [...AI_KEY, 'ocr', 'status'], queryFn: getOcrStatus });

export const useDeviceOptions = (keyword: string) =>
  useQuery({
    queryKey: [...AI_KEY, 'devices', keyword],
    queryFn: () => getDeviceOptions(keyword),
    placeholderData: keepPreviousData,
  });

/** Uploads the image through the upload flow (the attachment bucket takes webp too), then makes the job. */
export const useSubmitOcr = () => {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ file, onProgress }: { file: File; onProgress?: (p: number) => void }) => {
      const { key } = await uploadFile(file, (p) => onProgress?.(p), file.name, 'attachment');
      return submitOcr(key);
    },
    onSettled: () => client.invalidateQueries({ queryKey: [...AI_KEY, 'ocr'] }),
  });
};

export const usePrintOcr = () =>
  useMutation({ mutationFn: ({ id, deviceId }: { id: number; deviceId: number }) => printOcr(id, { deviceId }) });
