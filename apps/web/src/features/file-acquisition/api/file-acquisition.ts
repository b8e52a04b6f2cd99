import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts/envelope';
import type { FileRequestBody, FileRequestItem, FileRequestListQuery } from '@cpc/contracts/file-acquisition';
import { get, post } from '@/lib/request';

export const fileKeys = {
  all: ['file-acquisition'] as const,
  list: (q: FileRequestListQuery) => ['file-acquisition', 'list', q] as const,
};

export const useFileRequests = (q: FileRequestListQuery) =>
  useQuery({
    queryKey: fileKeys.list(q),
    queryFn: () => get<Paged<FileRequestItem>>('/fileAcquisition/list', { ...q }),
    placeholderData: keepPreviousData,
  });

export const askForFiles = (body: FileRequestBody) => post<FileRequestItem[]>('/fileAcquisition/request', body);

export const deleteRequests = (ids: number[]) => post<{ deleted: number }>('/fileAcquisition/delete', { ids });

/** A signed link (one hour) to the acquired file; the browser downloads it as an attachment. */
export const downloadLink = (id: number) =>
  get<{ url: string; fileName: string; size: number }>('/fileAcquisition/download', { id });

/** The account's devices, to pick the ones asked (needs device:view). */
