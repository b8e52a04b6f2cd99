import type { LiveDeviceEvent, LiveTaskEvent, Paged, TaskItem } from '@cpc/contracts';
import type { DeviceDetail, DeviceListItem, DeviceMapData } from '@cpc/contracts/device';

/**
 * Live events applied to what the console already holds, so rows change in place instead of the page being
 * fetched again. Each function returns its input itself when the event changes nothing in it, which lets
 * React and TanStack Query skip the re-render.
 */

/** The fields a device event carries that a list row shows. */
export function applyDeviceEvent<T extends DeviceListItem>(item: T, e: LiveDeviceEvent): T {
  if (item.id !== e.id) return item;
  const connectedAt = e.status === 'online' ? e.connectedAt : null;
  const same =
    item.status === e.status &&
    item.paper === e.paper &&
    item.battery === e.battery &&
    item.signal === e.signal &&
    item.firmware === e.firmware &&
    item.lastSeenAt === e.lastSeenAt &&
    item.connectedAt === connectedAt &&
    (e.province === '' || item.province === e.province);
  if (same) return item;
  return {
    ...item,
    status: e.status,
    paper: e.paper,
    battery: e.battery,
    signal: e.signal,
    firmware: e.firmware,
    lastSeenAt: e.lastSeenAt,
    connectedAt,
    province: e.province || item.province,
  };
}

export function mergeDeviceIntoPage(
  page: Paged<DeviceListItem> | undefined,
  e: LiveDeviceEvent,
): Paged<DeviceListItem> | undefined {
  if (!page) return page;
  let changed = false;
  const list = page.list.map((item) => {
    const next = applyDeviceEvent(item, e);
    if (next !== item) changed = true;
    return next;
  });
  return changed ? { ...page, list } : page;
}

export function mergeDeviceIntoDetail(detail: DeviceDetail | undefined, e: LiveDeviceEvent): DeviceDetail | undefined {
  if (!detail || detail.id !== e.id) return detail;
  let next = applyDeviceEvent(detail, e);
  if (e.lat !== null && e.lng !== null && (detail.location?.lat !== e.lat || detail.location?.lng !== e.lng)) {
    next = { ...next, location: { lat: e.lat, lng: e.lng, at: e.lastSeenAt ?? detail.location?.at ?? null } };
  }
  return next;
}

/** The map's markers follow the device; the per-province online counts follow a change of status. */
export function mergeDeviceIntoMap(data: DeviceMapData | undefined, e: LiveDeviceEvent): DeviceMapData | undefined {
  if (!data) return data;
  const i = data.list.findIndex((d) => d.id === e.id);
  if (i < 0) return data;
  const old = data.list[i];
  const lat = e.lat ?? old.lat;
  const lng = e.lng ?? old.lng;
  if (old.status === e.status && old.paper === e.paper && old.lat === lat && old.lng === lng) return data;
  const list = data.list.slice();
  list[i] = { ...old, status: e.status, paper: e.paper, lat, lng };
  let provinces = data.provinces;
  if (old.status !== e.status && e.province) {
    const delta = e.status === 'online' ? 1 : -1;
    provinces = provinces.map((p) =>
      p.province === e.province ? { ...p, online: Math.min(p.total, Math.max(0, p.online + delta)) } : p,
    );
  }
  return { list, provinces };
}

/** Whether an event moves a device between online and offline compared with what is on screen. */
export const changesStatus = (item: Pick<DeviceListItem, 'id' | 'status'> | undefined, e: LiveDeviceEvent): boolean =>
  !!item && item.id === e.id && item.status !== e.status;

export function applyTaskEvent(task: TaskItem, e: LiveTaskEvent): TaskItem {
  if (task.id !== e.id) return task;
  if (task.state === e.state && task.progress === e.progress && task.error === e.error) return task;
  return { ...task, state: e.state, progress: e.progress, error: e.error };
}

/**
 * A task event on a page of tasks. `missing` says the event is about a task this page does not hold but
 * should (a new task of the device or batch it lists): the page has to be read again.
 */
export function mergeTaskIntoPage(
  page: Paged<TaskItem> | undefined,
  e: LiveTaskEvent,
  scope: { deviceId?: number; batchId?: number },
): { page: Paged<TaskItem> | undefined; missing: boolean } {
  if (!page) return { page, missing: false };
  const i = page.list.findIndex((t) => t.id === e.id);
  if (i < 0) {
    const belongs =
      (scope.deviceId !== undefined && e.deviceId === scope.deviceId) ||
      (scope.batchId !== undefined && e.batchId === scope.batchId);
    return { page, missing: belongs };
  }
  const next = applyTaskEvent(page.list[i], e);
  if (next === page.list[i]) return { page, missing: false };
  const list = page.list.slice();
  list[i] = next;
  return { page: { ...page, list }, missing: false };
}
