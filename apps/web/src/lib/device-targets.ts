import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { DeviceListItem, GroupTree } from '@cpc/contracts/device';
import type { Paged } from '@cpc/contracts/envelope';
import { get } from './request';

/**
 * The devices and groups a task, a release, a fence or a push can be aimed at (both read with device:view). In lib,
 * not a feature: every section that sends something to devices picks its targets with these.
 */
export const DEVICE_TARGETS_KEY = ['device-targets'] as const;

/** The tenant's group tree with device counts. */
export const useGroupTreeOptions = (enabled = true) =>
  useQuery({
    queryKey: [...DEVICE_TARGETS_KEY, 'groups'],
    queryFn: () => get<GroupTree>('/device/group/tree'),
    enabled,
    staleTime: 60_000,
  });

/** The first 50 devices matching a keyword (sn, name), searched on the server as the user types. */
export const useDeviceSearch = (keyword: string, enabled = true) =>
  useQuery({
    queryKey: [...DEVICE_TARGETS_KEY, 'devices', keyword],
    queryFn: () =>
      get<Paged<DeviceListItem>>('/device/list', { pageNo: 1, pageSize: 50, keyword: keyword || undefined }),
    enabled,
    placeholderData: keepPreviousData,
  });
