import { describe, expect, it } from 'vitest';
import type { DashboardOverview } from '@cpc/contracts/dashboard';
import {
  MAX_VERSION_SLICES,
  OTHER_VERSIONS,
  escapeHtml,
  formatMb,
  groupOnlinePercent,
  installSeries,
  isEmptyFleet,
  onlineRate,
  provinceMapData,
  rankRows,
  remindLink,
  trendSeries,
  versionSlices,
} from './dashboard-data';

const remindDevice = (id: number, paper: 'ok' | 'out' | 'cover-open' | 'overheat') => ({
  id,
  sn: `SN${id}`,
  name: '',
  status: 'online' as const,
  paper,
  lastSeenAt: null,
  simDataLeftMb: null,
});
const emptyList = { count: 0, devices: [] };

describe('dashboard data shaping', () => {
  it('treats an account without devices as a new customer', () => {
    const cards = { devices: 0, online: 0, tasksToday: 0, dataUsedMonthMb: 0 };
    expect(isEmptyFleet({ cards } as DashboardOverview)).toBe(true);
    expect(isEmptyFleet({ cards: { ...cards, devices: 1 } } as DashboardOverview)).toBe(false);
  });

  it.each([
    [{ devices: 0, online: 0 }, 0],
    [{ devices: 4, online: 3 }, 75],
    [{ devices: 3, online: 1 }, 33],
    [{ devices: 3, online: 3 }, 100],
  ])('online rate of %o is %i %%', (cards, rate) => {
    expect(onlineRate(cards)).toBe(rate);
  });

  it.each([
    [0, '0 MB'],
    [-3, '0 MB'],
    [Number.NaN, '0 MB'],
    [0.5, '512 KB'],
    [512.5, '512.5 MB'],
    [1536, '1.5 GB'],
    [2 * 1024 * 1024, '2 TB'],
  ])('shows %d MB as %s', (mb, text) => {
    expect(formatMb(mb)).toBe(text);
  });

  it('builds the trend series and labels by unit', () => {
    const hourly = trendSeries({
      unit: 'hour',
      points: [
        { at: '2024-05-01T01:00:00.000Z', online: 2, tasks: 0 },
        { at: '2024-05-01T02:00:00.000Z', online: 3, tasks: 4 },
      ],
    });
    expect(hourly.online).toEqual([2, 3]);
    expect(hourly.tasks).toEqual([0, 4]);
    expect(hourly.labels).toHaveLength(2);
    expect(hourly.labels[0]).toMatch(/^\d\d-\d\d \d\d:00$/);
    expect(hourly.empty).toBe(false);

    const daily = trendSeries({ unit: 'day', points: [{ at: '2024-05-01T12:00:00.000Z', online: 0, tasks: 0 }] });
    expect(daily.labels).toEqual(['05-01']);
    expect(daily.empty).toBe(true);
    expect(trendSeries({ unit: 'day', points: [] }).empty).toBe(true);
  });

  it('counts installs over the window and labels days without the year', () => {
    const s = installSeries([
      { date: '2024-04-30', count: 0 },
      { date: '2024-05-01', count: 3 },
      { date: '2024-05-02', count: 1 },
    ]);
    expect(s).toEqual({ labels: ['04-30', '05-01', '05-02'], counts: [0, 3, 1], total: 4, empty: false });
    expect(installSeries([{ date: '2024-05-01', count: 0 }]).empty).toBe(true);
  });

  it('orders firmware versions, unreported last among equals, and folds the tail', () => {
    expect(
      versionSlices([
        { firmware: '', count: 2, online: 0 },
        { firmware: '1.10.0', count: 2, online: 1 },
        { firmware: '1.9.0', count: 5, online: 5 },
        { firmware: '2.0.0', count: 0, online: 0 },
      ]).map((v) => v.firmware),
    ).toEqual(['1.9.0', '1.10.0', '']);

    const many = Array.from({ length: 12 }, (_, i) => ({ firmware: `1.${i}`, count: 20 - i, online: 1 }));
    const folded = versionSlices(many);
    expect(folded).toHaveLength(MAX_VERSION_SLICES);
    expect(folded.at(-1)).toEqual({
      firmware: OTHER_VERSIONS,
      count: [13, 12, 11, 10, 9].reduce((a, b) => a + b),
      online: 5,
    });
    expect(folded.reduce((s, v) => s + v.count, 0)).toBe(many.reduce((s, v) => s + v.count, 0));
  });

  it('scales the map to the busiest province and never to zero', () => {
    expect(provinceMapData([])).toEqual({ data: [], max: 1, located: 0 });
    expect(
      provinceMapData([
        { province: '广东', total: 7, online: 5 },
        { province: '北京', total: 2, online: 0 },
      ]),
    ).toEqual({
      data: [
        { name: '广东', value: 7, online: 5 },
        { name: '北京', value: 2, online: 0 },
      ],
      max: 7,
      located: 9,
    });
  });

  it('draws ranking bars relative to the leader', () => {
    expect(rankRows([10, 5, 0], (v) => v).map((r) => r.percent)).toEqual([100, 50, 0]);
    expect(rankRows([0, 0], (v) => v).map((r) => r.percent)).toEqual([0, 0]);
    expect(groupOnlinePercent({ id: 1, name: 'A', devices: 4, online: 1 })).toBe(25);
    expect(groupOnlinePercent({ id: null, name: '', devices: 0, online: 0 })).toBe(0);
  });

  it('links each reminder to the device list filtered to what it counts', () => {
    const remind = {
      paper: {
        count: 3,
        devices: [remindDevice(1, 'cover-open'), remindDevice(2, 'cover-open'), remindDevice(3, 'out')],
      },
      offline: emptyList,
      simLow: emptyList,
    };
    expect(remindLink('offline', remind)).toBe('/device/index?status=offline');
    expect(remindLink('paper', remind)).toBe('/device/index?paper=cover-open');
    // a tie goes to paper out, the commonest problem of a printer
    expect(
      remindLink('paper', {
        ...remind,
        paper: { count: 2, devices: [remindDevice(1, 'overheat'), remindDevice(2, 'out')] },
      }),
    ).toBe('/device/index?paper=out');
    expect(remindLink('paper')).toBe('/device/index?paper=out');
    expect(remindLink('simLow', remind)).toBe('/flowRate/flowRateSearch?state=low,exhausted');
  });

  it('escapes device-reported text for the HTML tooltips', () => {
    expect(escapeHtml('<img src=x onerror="a">&\'')).toBe('&#60;img src=x onerror=&#34;a&#34;&#62;&#38;&#39;');
  });
});
