import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  FenceCreateBody,
  FenceCreated,
  FenceDetail,
  FenceDeviceRow,
  FenceEventItem,
  FenceEventsQuery,
  FenceItem,
  FenceMapSettings,
  FenceSide,
  FenceUpdateBody,
} from '@cpc/contracts/fence';
import type { Paged } from '@cpc/contracts/envelope';
import { get, post } from '@/lib/request';

/** Query keys of the fence feature: `all` is what a live `fence` event makes stale. */
export const fenceKeys = {
  all: ['fence'] as const,
  map: ['fence', 'map'] as const,
  list: (q: object) => ['fence', 'list', q] as const,
  detail: (id: number) => ['fence', 'detail', id] as const,
  devices: (id: number, q: object) => ['fence', 'devices', id, q] as const,
  events: (q: object) => ['fence', 'events', q] as const,
};

export interface FenceListParams {
  pageNo: number;
  pageSize: number;
  keyword?: string;
  enabled?: 'true' | 'false';
}

/** The base map: the operator's tiles or none (the offline map), and the editor's limits. */
export const useMapSettings = () =>
  useQuery({
    queryKey: fenceKeys.map,
    queryFn: () => get<FenceMapSettings>('/fence/map'),
    staleTime: 10 * 60_000,
  });

export const useFences = (q: FenceListParams) =>
  useQuery({
    queryKey: fenceKeys.list(q),
    queryFn: () => get<Paged<FenceItem>>('/fence/list', { ...q }),
    placeholderData: keepPreviousData,
  });

export const useFence = (id: number) =>
  useQuery({
    queryKey: fenceKeys.detail(id),
    queryFn: () => get<FenceDetail>('/fence/detail', { id }, { silent: true }),
    enabled: id > 0,
  });

/** The fence's devices with their side now and last position (up to 500 at once: they are drawn on the map). */
export const useFenceDevices = (id: number, q: { pageNo: number; pageSize: number; side?: FenceSide }) =>
  useQuery({
    queryKey: fenceKeys.devices(id, q),
    queryFn: () => get<Paged<FenceDeviceRow>>('/fence/devices', { id, ...q }),
    enabled: id > 0,
    placeholderData: keepPreviousData,
  });

export const useFenceEvents = (q: FenceEventsQuery & { pageNo: number; pageSize: number }) =>
  useQuery({
    queryKey: fenceKeys.events(q),
    queryFn: () => get<Paged<FenceEventItem>>('/fence/events', { ...q }),
    placeholderData: keepPreviousData,
  });

/** The editor shows field errors next to the fields: no global message. */
export const createFence = (body: FenceCreateBody) => post<FenceCreated>('/fence/create', body, { silent: true });
export const updateFence = (body: FenceUpdateBody) => post<unknown>('/fence/update', body, { silent: true });
export const deleteFence = (id: number) => post<unknown>('/fence/delete', { id });

function useFenceMutation<A, R>(mutationFn: (arg: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => client.invalidateQueries({ queryKey: fenceKeys.all }) });
}

export const useCreateFence = () => useFenceMutation(createFence);
export const useUpdateFence = () => useFenceMutation(updateFence);
export const useDeleteFence = () => useFenceMutation(deleteFence);
