import { describe, expect, it } from 'vitest';
import { deviceDetail, deviceEvent, deviceRow, taskEvent, taskRow } from '../testing/fixtures';
import {
  applyDeviceEvent,
  changesStatus,
  mergeDeviceIntoDetail,
  mergeDeviceIntoMap,
  mergeDeviceIntoPage,
  mergeTaskIntoPage,
} from './live-merge';

describe('live device events on what is on screen', () => {
  it('updates status, paper, battery, signal, firmware and last seen of the row it names', () => {
    const row = deviceRow({ name: 'Kitchen', groupName: 'Shop 1' });
    const next = applyDeviceEvent(row, deviceEvent({ paper: 'out', battery: 41, signal: 12, firmware: '1.5.0' }));
    expect(next).toEqual({
      ...row,
      status: 'online',
      paper: 'out',
      battery: 41,
      signal: 12,
      firmware: '1.5.0',
      lastSeenAt: '2026-01-01T09:00:00.000Z',
      connectedAt: '2026-01-01T09:00:00.000Z',
    });
  });

  it('drops the connection time of a device that went offline', () => {
    const row = deviceRow({ status: 'online', connectedAt: '2026-01-01T08:00:00.000Z' });
    expect(
      applyDeviceEvent(row, deviceEvent({ status: 'offline', connectedAt: '2026-01-01T08:00:00.000Z' })).connectedAt,
    ).toBeNull();
  });

  it('keeps the very same objects when nothing shown changes or the event is about another device', () => {
    const row = deviceRow({
      status: 'online',
      lastSeenAt: '2026-01-01T09:00:00.000Z',
      connectedAt: '2026-01-01T09:00:00.000Z',
    });
    expect(applyDeviceEvent(row, deviceEvent())).toBe(row);
    const page = { list: [deviceRow({ id: 2 }), deviceRow({ id: 3 })], total: 2 };
    expect(mergeDeviceIntoPage(page, deviceEvent({ id: 9 }))).toBe(page);
    expect(mergeDeviceIntoPage(undefined, deviceEvent())).toBeUndefined();
  });

  it('changes only the row the event names on a page', () => {
    const page = { list: [deviceRow({ id: 1 }), deviceRow({ id: 2 })], total: 40 };
    const next = mergeDeviceIntoPage(page, deviceEvent({ id: 2 }))!;
    expect(next.total).toBe(40);
    expect(next.list[0]).toBe(page.list[0]);
    expect(next.list[1].status).toBe('online');
  });

  it('moves the location of the detail with the device', () => {
    const detail = deviceDetail();
    const moved = mergeDeviceIntoDetail(detail, deviceEvent({ lat: 30.1, lng: 120.2 }))!;
    expect(moved.location).toEqual({ lat: 30.1, lng: 120.2, at: '2026-01-01T09:00:00.000Z' });
    expect(moved.status).toBe('online');
    // a device event without a position keeps the last known one
    expect(mergeDeviceIntoDetail(detail, deviceEvent({ lat: null, lng: null }))!.location).toEqual(detail.location);
    expect(mergeDeviceIntoDetail(detail, deviceEvent({ id: 5 }))).toBe(detail);
  });

  it('moves and recolours a marker and keeps the online count per province right', () => {
    const data = {
      list: [{ id: 1, sn: 'A', name: '', status: 'offline' as const, paper: 'ok' as const, lat: 31.2, lng: 121.4 }],
      provinces: [
        { province: '上海', total: 3, online: 1 },
        { province: '北京', total: 1, online: 0 },
      ],
    };
    const next = mergeDeviceIntoMap(data, deviceEvent({ lat: 31.3, lng: 121.5 }))!;
    expect(next.list[0]).toMatchObject({ status: 'online', lat: 31.3, lng: 121.5 });
    expect(next.provinces).toEqual([
      { province: '上海', total: 3, online: 2 },
      { province: '北京', total: 1, online: 0 },
    ]);
    const back = mergeDeviceIntoMap(next, deviceEvent({ status: 'offline', lat: 31.3, lng: 121.5 }))!;
    expect(back.provinces[0].online).toBe(1);
    expect(mergeDeviceIntoMap(next, deviceEvent({ lat: 31.3, lng: 121.5 }))).toBe(next);
    expect(mergeDeviceIntoMap(data, deviceEvent({ id: 2 }))).toBe(data);
  });

  it('tells whether the device changed between online and offline', () => {
    expect(changesStatus(deviceRow({ status: 'offline' }), deviceEvent({ status: 'online' }))).toBe(true);
    expect(changesStatus(deviceRow({ status: 'online' }), deviceEvent({ status: 'online' }))).toBe(false);
    expect(changesStatus(undefined, deviceEvent())).toBe(false);
  });
});

describe('live task events on a list of tasks', () => {
  it('moves a listed task through its states with progress and error', () => {
    const page = { list: [taskRow(), taskRow({ id: 'other' })], total: 2 };
    const running = mergeTaskIntoPage(page, taskEvent({ state: 'running', progress: 50 }), { deviceId: 1 });
    expect(running.missing).toBe(false);
    expect(running.page!.list[0]).toMatchObject({ state: 'running', progress: 50 });
    expect(running.page!.list[1]).toBe(page.list[1]);
    const failed = mergeTaskIntoPage(running.page, taskEvent({ state: 'failed', progress: 50, error: 'paper jam' }), {
      deviceId: 1,
    });
    expect(failed.page!.list[0]).toMatchObject({ state: 'failed', error: 'paper jam' });
  });

  it('asks for the list again when a task of its device or batch is not on it yet', () => {
    const page = { list: [taskRow()], total: 1 };
    expect(mergeTaskIntoPage(page, taskEvent({ id: 'new', deviceId: 1 }), { deviceId: 1 })).toEqual({
      page,
      missing: true,
    });
    expect(mergeTaskIntoPage(page, taskEvent({ id: 'new', deviceId: 2 }), { deviceId: 1 })).toEqual({
      page,
      missing: false,
    });
    expect(mergeTaskIntoPage(page, taskEvent({ id: 'new', deviceId: 2, batchId: 7 }), { batchId: 7 })).toEqual({
      page,
      missing: true,
    });
  });

  it('keeps the same page when the event repeats what it shows', () => {
    const page = { list: [taskRow({ state: 'sent' })], total: 1 };
    expect(mergeTaskIntoPage(page, taskEvent({ state: 'sent' }), {}).page).toBe(page);
  });
});
