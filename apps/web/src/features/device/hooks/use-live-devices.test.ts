import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { Paged, TaskItem } from '@cpc/contracts';
import type { DeviceDetail, DeviceListItem, DeviceMapData } from '@cpc/contracts/device';
import { DETAIL_KEY, LIST_KEY, MAP_KEY } from '../api/devices';
import { TASKS_KEY } from '../api/tasks';
import { deviceDetail, deviceEvent, deviceRow, taskEvent, taskRow } from '../testing/fixtures';
import { applyDeviceEventToCache, applyTaskEventToCache } from './use-live-devices';

describe('live events on the cached device data', () => {
  it('updates every list page, the detail and the map holding the device, and says its status changed', () => {
    const client = new QueryClient();
    const online = { pageNo: 1, pageSize: 20, status: 'online' as const };
    client.setQueryData<Paged<DeviceListItem>>([...LIST_KEY, { pageNo: 1, pageSize: 20 }], {
      list: [deviceRow(), deviceRow({ id: 2 })],
      total: 2,
    });
    client.setQueryData<Paged<DeviceListItem>>([...LIST_KEY, online], { list: [deviceRow({ id: 2 })], total: 1 });
    client.setQueryData<DeviceDetail>([...DETAIL_KEY, 1], deviceDetail());
    client.setQueryData<DeviceMapData>([...MAP_KEY, {}], {
      list: [{ id: 1, sn: 'CP58-00001', name: '', status: 'offline', paper: 'ok', lat: 31.2, lng: 121.4 }],
      provinces: [{ province: '上海', total: 1, online: 0 }],
    });
    const untouched = client.getQueryData([...LIST_KEY, online]);

    expect(applyDeviceEventToCache(client, deviceEvent({ battery: 33 }))).toBe(true);
    expect(
      client.getQueryData<Paged<DeviceListItem>>([...LIST_KEY, { pageNo: 1, pageSize: 20 }])!.list[0],
    ).toMatchObject({ status: 'online', battery: 33 });
    expect(client.getQueryData([...LIST_KEY, online])).toBe(untouched);
    expect(client.getQueryData<DeviceDetail>([...DETAIL_KEY, 1])).toMatchObject({ status: 'online', battery: 33 });
    expect(client.getQueryData<DeviceMapData>([...MAP_KEY, {}])).toMatchObject({
      list: [{ status: 'online' }],
      provinces: [{ online: 1 }],
    });

    // the same state again is no change of status
    expect(applyDeviceEventToCache(client, deviceEvent({ battery: 30 }))).toBe(false);
  });

  it('moves the tasks on screen and reads again the first page of a device whose new task it lacks', async () => {
    const client = new QueryClient();
    const byDevice = [...TASKS_KEY, { deviceId: 1, pageNo: 1, pageSize: 10 }];
    const secondPage = [...TASKS_KEY, { deviceId: 1, pageNo: 2, pageSize: 10 }];
    client.setQueryData<Paged<TaskItem>>(byDevice, { list: [taskRow()], total: 1 });
    client.setQueryData<Paged<TaskItem>>(secondPage, { list: [], total: 11 });

    applyTaskEventToCache(client, taskEvent({ state: 'running', progress: 40 }));
    expect(client.getQueryData<Paged<TaskItem>>(byDevice)!.list[0]).toMatchObject({ state: 'running', progress: 40 });

    applyTaskEventToCache(client, taskEvent({ id: 'another', state: 'queued' }));
    expect(client.getQueryState(byDevice)!.isInvalidated).toBe(true);
    expect(client.getQueryState(secondPage)!.isInvalidated).toBe(false);
  });
});
