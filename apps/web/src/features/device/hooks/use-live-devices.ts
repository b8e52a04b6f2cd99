import { useEffect, useRef } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { LiveDeviceEvent, LiveTaskEvent, Paged, TaskItem } from '@cpc/contracts';
import type { DeviceDetail, DeviceListItem, DeviceMapData } from '@cpc/contracts/device';
import { useLiveEvents } from '@/lib/live-events';
import { DETAIL_KEY, LIST_KEY, MAP_KEY, invalidateDevices } from '../api/devices';
import { GROUP_TREE_KEY } from '../api/groups';
import { BATCHES_KEY, TASKS_KEY } from '../api/tasks';
import {
  changesStatus,
  mergeDeviceIntoDetail,
  mergeDeviceIntoMap,
  mergeDeviceIntoPage,
  mergeTaskIntoPage,
} from '../utils/live-merge';

/** Group counts and status histories are re-read at most this often while devices come and go. */
const RECOUNT_DELAY_MS = 1500;
/** The batch list's counts are re-read at most this often while its tasks move. */
const BATCHES_DELAY_MS = 1000;

/** Applies a device event to every cached list page, detail and map; answers whether a device changed status. */
export function applyDeviceEventToCache(client: QueryClient, e: LiveDeviceEvent): boolean {
  let statusChanged = false;
  client.setQueriesData<Paged<DeviceListItem>>({ queryKey: LIST_KEY }, (old) => {
    if (old?.list.some((item) => changesStatus(item, e))) statusChanged = true;
    return mergeDeviceIntoPage(old, e);
  });
  client.setQueriesData<DeviceDetail>({ queryKey: DETAIL_KEY }, (old) => {
    if (changesStatus(old, e)) statusChanged = true;
    return mergeDeviceIntoDetail(old, e);
  });
  client.setQueriesData<DeviceMapData>({ queryKey: MAP_KEY }, (old) => {
    if (old?.list.some((d) => changesStatus(d, e))) statusChanged = true;
    return mergeDeviceIntoMap(old, e);
  });
  return statusChanged;
}

/** Applies a task event to every cached task page; a page that should now show a new task is read again. */
export function applyTaskEventToCache(client: QueryClient, e: LiveTaskEvent): void {
  for (const query of client.getQueryCache().findAll({ queryKey: TASKS_KEY })) {
    const params = (query.queryKey[TASKS_KEY.length] ?? {}) as { deviceId?: number; batchId?: number; pageNo?: number };
    const { page, missing } = mergeTaskIntoPage(query.state.data as Paged<TaskItem> | undefined, e, {
      deviceId: params.deviceId,
      batchId: params.batchId,
    });
    if (missing && Number(params.pageNo ?? 1) === 1)
      void client.invalidateQueries({ queryKey: query.queryKey, exact: true });
    else if (page !== query.state.data) client.setQueryData(query.queryKey, page);
  }
}

/**
 * Keeps the device section's cached data live while the page using it is on screen: rows, details, map markers
 * and tasks change in place as events arrive. When the stream comes back after a drop, when events were lost on
 * the way, or the page comes back on screen after being hidden in its tab, everything it shows is read again.
 */
export function useLiveDevices(): void {
  const client = useQueryClient();
  const opens = useRef(0);
  const recount = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const rebatch = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(
    () => () => {
      clearTimeout(recount.current);
      clearTimeout(rebatch.current);
      recount.current = undefined;
      rebatch.current = undefined;
    },
    [],
  );

  useLiveEvents({
    device: (e) => {
      if (!applyDeviceEventToCache(client, e) || recount.current) return;
      // the tree's online counts and the detail's status history only the server can tell
      recount.current = setTimeout(() => {
        recount.current = undefined;
        void client.invalidateQueries({ queryKey: GROUP_TREE_KEY });
        void client.invalidateQueries({ queryKey: DETAIL_KEY });
      }, RECOUNT_DELAY_MS);
    },
    task: (e) => {
      applyTaskEventToCache(client, e);
      // a batch's counts are the server's to tell: the open batch list is read again, a moment later
      if (e.batchId === null || rebatch.current) return;
      rebatch.current = setTimeout(() => {
        rebatch.current = undefined;
        void client.invalidateQueries({ queryKey: BATCHES_KEY });
      }, BATCHES_DELAY_MS);
    },
    onOpen: () => {
      // the first opening comes with the page's first fetch
      if (opens.current++ > 0) void invalidateDevices(client);
    },
    // events lost on the way (the server said resync, or skipped a number): lists, details, map and tasks again
    onGap: () => void invalidateDevices(client),
  });
}
