import {
  keepPreviousData,
  queryOptions,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type { Paged } from '@cpc/contracts';
import type {
  DeviceBindBody,
  DeviceDetail,
  DeviceEditBody,
  DeviceListItem,
  DeviceListQuery,
  DeviceMapData,
  DeviceMapQuery,
  DeviceUnbindResult,
  TelemetrySeries,
} from '@cpc/contracts/device';
import type { DeviceModelOption } from '@cpc/contracts/device-model';
import { get, post } from '@/lib/request';

/** A customer's devices (contracts/device.ts): the fleet list, one device, its telemetry, the map, binding and editing. */

export const getDevices = (q: DeviceListQuery) => get<Paged<DeviceListItem>>('/device/list', { ...q });
/** The detail page says itself that a device is gone (unbound, or another account's). */
export const getDevice = (id: number) => get<DeviceDetail>(`/device/${id}`, undefined, { silent: true });
export const getTelemetry = (id: number, range: { from: string; to: string }) =>
  get<TelemetrySeries>(`/device/${id}/telemetry`, range);
export const getDeviceMap = (q: DeviceMapQuery) => get<DeviceMapData>('/device/map', { ...q });
export const getModelOptions = () => get<DeviceModelOption[]>('/device/model/options');

/** The form answers a refused bind itself (wrong key, bound elsewhere, too many tries): no global message. */
export const bindDevice = (body: DeviceBindBody) => post<DeviceListItem>('/device/bind', body, { silent: true });
/** Answers the device's new bind key: the one that bound it stops working (shown to the user this once). */
export const unbindDevice = (id: number) => post<DeviceUnbindResult>('/device/unbind', { id });
export const editDevice = (body: DeviceEditBody) => post<DeviceListItem>('/device/edit', body, { silent: true });
export const moveDevices = (body: { ids: number[]; groupId: number | null }) =>
  post<{ moved: number }>('/device/move', body);

export const DEVICE_KEY = ['device'] as const;
export const LIST_KEY = [...DEVICE_KEY, 'list'] as const;
export const DETAIL_KEY = [...DEVICE_KEY, 'detail'] as const;
export const MAP_KEY = [...DEVICE_KEY, 'map'] as const;
export const TELEMETRY_KEY = [...DEVICE_KEY, 'telemetry'] as const;

export const deviceListQueryOptions = (q: DeviceListQuery) =>
  queryOptions({
    queryKey: [...LIST_KEY, q],
    queryFn: () => getDevices(q),
    // keep the current page on screen while the next one loads
    placeholderData: keepPreviousData,
  });

export const useDevices = (q: DeviceListQuery) => useQuery(deviceListQueryOptions(q));

export const deviceQueryOptions = (id: number) =>
  queryOptions({ queryKey: [...DETAIL_KEY, id], queryFn: () => getDevice(id), enabled: id > 0 });
export const useDevice = (id: number) => useQuery(deviceQueryOptions(id));

export const useTelemetry = (id: number, hours: number) =>
  useQuery({
    queryKey: [...TELEMETRY_KEY, id, hours],
    queryFn: () => {
      const to = new Date();
      return getTelemetry(id, { from: new Date(to.getTime() - hours * 3600_000).toISOString(), to: to.toISOString() });
    },
    enabled: id > 0,
    placeholderData: keepPreviousData,
    // samples land at most once a minute per device
    refetchInterval: 60_000,
  });

export const useDeviceMap = (q: DeviceMapQuery) =>
  useQuery({ queryKey: [...MAP_KEY, q], queryFn: () => getDeviceMap(q), placeholderData: keepPreviousData });

export const useModelOptions = () =>
  useQuery({ queryKey: [...DEVICE_KEY, 'models'], queryFn: getModelOptions, staleTime: 5 * 60_000 });

/** What a change to devices makes stale: lists, the map, details, and the group counts. */
export const invalidateDevices = (client: QueryClient) =>
  client.invalidateQueries({ queryKey: DEVICE_KEY, predicate: (q) => q.queryKey[1] !== 'models' });

function useDeviceMutation<A, R>(mutationFn: (arg: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => invalidateDevices(client) });
}

export const useBindDevice = () => useDeviceMutation(bindDevice);
export const useUnbindDevice = () => useDeviceMutation(unbindDevice);
export const useEditDevice = () => useDeviceMutation(editDevice);
export const useMoveDevices = () => useDeviceMutation(moveDevices);
