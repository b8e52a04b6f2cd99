import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DeviceListItem, DeviceMapData, GroupTree } from '@cpc/contracts/device';
import type { Paged } from '@cpc/contracts/envelope';
import { get } from '@/lib/request';

/** The device feature's lists, read for the editor's target pickers (the fence feature keeps its own calls). */
export const useDeviceOptions = (keyword: string) =>
  useQuery({
    queryKey: ['fence', 'targets', 'devices', keyword],
    queryFn: () =>
      get<Paged<DeviceListItem>>('/device/list', { pageNo: 1, pageSize: 50, keyword: keyword || undefined }),
    placeholderData: keepPreviousData,
  });

export const useGroupOptions = () =>
  useQuery({ queryKey: ['fence', 'targets', 'groups'], queryFn: () => get<GroupTree>('/device/group/tree') });

/** Every located device of the account (the device map's call): the editor shows the chosen targets on the map. */
export const useDevicePositions = () =>
  useQuery({ queryKey: ['fence', 'targets', 'positions'], queryFn: () => get<DeviceMapData>('/device/map') });
