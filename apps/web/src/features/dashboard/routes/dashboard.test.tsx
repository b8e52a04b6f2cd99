import type { DashboardOverview } from '@cpc/contracts/dashboard';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import HomePage from './dashboard';

vi.mock('@/lib/request', () => ({ request: vi.fn() }));
// jsdom draws no charts: a stand-in shows which option each chart was given
type StubOption = {
  series: Array<{ data: unknown[]; emphasis?: { label?: { formatter?: (p: { name: string }) => string } } }>;
};
vi.mock('@/lib/charts/echart', () => ({
  // a map also says the label it shows over the South China Sea islands inset (hovered; ECharts names it 南海诸岛)
  default: ({ option, map }: { option: StubOption; map?: boolean }) => (
    <div
      data-testid={map ? 'stub-map' : 'stub-chart'}
      data-points={JSON.stringify(option.series.map((s) => s.data))}
      data-inset={map ? option.series[0].emphasis?.label?.formatter?.({ name: '南海诸岛' }) : undefined}
    />
  ),
}));
const mockedRequest = vi.mocked(request);

const device = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  sn: `SN-${id}`,
  name: `前台${id}`,
  status: 'offline' as const,
  paper: 'ok' as const,
  lastSeenAt: null,
  simDataLeftMb: null,
  ...extra,
});

const overview: DashboardOverview = {
  cards: { devices: 4, online: 3, tasksToday: 1, dataUsedMonthMb: 512.5 },
  provinces: [
    { province: '广东', total: 3, online: 3 },
    { province: '北京', total: 1, online: 0 },
  ],
  trend: { unit: 'day', points: [{ at: '2024-05-01T00:00:00.000Z', online: 3, tasks: 1 }] },
  deviceRanking: { byTasks: [{ id: 4, sn: 'SN-4', name: '', value: 1 }], byData: [] },
  groupRanking: [{ id: null, name: '', devices: 4, online: 3 }],
  installs: [{ date: '2024-05-01', count: 4 }],
  remind: {
    paper: { count: 1, devices: [device(2, { status: 'online', paper: 'out' })] },
    offline: { count: 1, devices: [device(4)] },
    simLow: { count: 0, devices: [] },
  },
  versions: [
    { firmware: '1.4.2', count: 3, online: 3 },
    { firmware: '', count: 1, online: 0 },
  ],
  orders: {
    recent: [
      {
        id: 7,
        orderNo: '20261126070000123456',
        state: 'fulfilled',
        totalFen: 5970,
        createdAt: '2024-05-01T08:00:00.000Z',
        lineCount: 3,
      },
    ],
    monthSpendFen: 5970,
    monthOrders: 1,
  },
  plan: {
    total: 4,
    byState: { active: 2, low: 1, exhausted: 0, expired: 1, suspended: 0 },
    expiring: {
      count: 1,
      sims: [
        {
          iccid: '89860000000000000017',
          deviceId: 2,
          deviceSn: 'SN-2',
          deviceName: '前台2',
          expiresAt: '2024-05-03T00:00:00.000Z',
          leftMb: 120,
        },
      ],
    },
  },
  target: { month: '2024-05', jobs: 150, printed: 140, target: 200, canEdit: true },
  projects: [
    { id: 11, name: '华东门店', devices: 3, online: 2, jobsMonth: 120 },
    { id: 12, name: '华南门店', devices: 1, online: 1, jobsMonth: 30 },
  ],
};
const empty: DashboardOverview = {
  ...overview,
  cards: { devices: 0, online: 0, tasksToday: 0, dataUsedMonthMb: 0 },
  provinces: [],
  deviceRanking: { byTasks: [], byData: [] },
  groupRanking: [],
  installs: [],
  remind: { paper: { count: 0, devices: [] }, offline: { count: 0, devices: [] }, simLow: { count: 0, devices: [] } },
  versions: [],
};

const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);
const card = (key: string) => screen.getByTestId(`card-${key}`);

function serve(data: DashboardOverview) {
  mockedRequest.mockImplementation(async (config) => {
    if (config.url === '/dashboard/overview') return data as never;
    if (config.url === '/dashboard/trend')
      return { unit: 'hour', points: [{ at: '2024-05-01T08:00:00.000Z', online: 2, tasks: 5 }] } as never;
    throw new Error(`unexpected call ${config.url}`);
  });
}

describe('HomePage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it("shows the fleet's figures, provinces and reminders", async () => {
    serve(overview);
    renderPage(<HomePage />);
    await waitFor(() => expect(within(card('devices')).getByText('4')).toBeTruthy());
    expect(within(card('devices')).getByText('在线 3 · 离线 1')).toBeTruthy();
    expect(within(card('online')).getByText('在线率 75%')).toBeTruthy();
    expect(within(card('tasksToday')).getByText('1')).toBeTruthy();
    expect(within(card('dataMonth')).getByText('512.5 MB')).toBeTruthy();
    expect(calls('/dashboard/overview')[0]).toMatchObject({ method: 'get', params: { unit: 'day' } });

    const provinces = screen.getByTestId('province-list');
    expect(within(provinces).getByText('广东')).toBeTruthy();
    expect(within(provinces).getByText('3 台 · 在线 3')).toBeTruthy();
    expect(await screen.findByTestId('stub-map')).toBeTruthy();

    expect(screen.getByTestId('remind-offline').getAttribute('href')).toBe('/device/index?status=offline');
    expect(screen.getByTestId('remind-paper').getAttribute('href')).toBe('/device/index?paper=out');
    expect(within(screen.getByTestId('widget-remind')).getByText('前台4 · 从未上线')).toBeTruthy();
    expect(within(screen.getByTestId('widget-group-rank')).getByText('未分组')).toBeTruthy();
    expect(screen.getByTestId('remind-simLow').getAttribute('href')).toBe(
      '/flowRate/flowRateSearch?state=low,exhausted',
    );
    // the plan widget: the SIMs counted, the plan expiring soon, links to the traffic query
    const plan = screen.getByTestId('widget-plan');
    expect(within(plan).getByText('共 4 张')).toBeTruthy();
    expect(within(plan).getByText('7 天内到期（1）')).toBeTruthy();
    expect(within(plan).getByText('前台2')).toBeTruthy();
    expect(screen.getByTestId('plan-expiring').getAttribute('href')).toBe(
      '/flowRate/flowRateSearch?expiringDays=7&sort=expiry',
    );
    expect(screen.queryByTestId('dashboard-empty')).toBeNull();
    const orders = screen.getByTestId('widget-order');
    expect(within(orders).getAllByText('¥59.70')).toHaveLength(2);
    expect(within(orders).getByText('已到账')).toBeTruthy();
  });

  it('names the South China Sea islands inset of the map in the language the user switches to', async () => {
    serve(overview);
    renderPage(<HomePage />);
    expect((await screen.findByTestId('stub-map')).getAttribute('data-inset')).toBe('南海诸岛');
    await act(() => i18n.changeLanguage('en'));
    await waitFor(() =>
      expect(screen.getByTestId('stub-map').getAttribute('data-inset')).toBe('South China Sea Islands'),
    );
  });

  it('asks for the hourly trend only when the user switches to it', async () => {
    serve(overview);
    renderPage(<HomePage />);
    const trend = await screen.findByTestId('widget-trend');
    await waitFor(() => expect(within(trend).getByTestId('stub-chart').getAttribute('data-points')).toBe('[[3],[1]]'));
    expect(calls('/dashboard/trend')).toHaveLength(0);
    fireEvent.click(within(trend).getByText('按小时'));
    await waitFor(() => expect(within(trend).getByTestId('stub-chart').getAttribute('data-points')).toBe('[[2],[5]]'));
    expect(calls('/dashboard/trend')[0]).toMatchObject({ method: 'get', params: { unit: 'hour' } });
  });

  it('invites a new customer to bind a device instead of drawing empty charts', async () => {
    serve(empty);
    renderPage(<HomePage />);
    const invite = await screen.findByTestId('dashboard-empty');
    expect(within(invite).getByText('还没有绑定设备')).toBeTruthy();
    expect(within(invite).getByRole('button', { name: /去绑定设备/ })).toBeTruthy();
    expect(within(card('devices')).getByText('0')).toBeTruthy();
    expect(within(card('dataMonth')).getByText('0 MB')).toBeTruthy();
    expect(screen.queryByTestId('widget-map')).toBeNull();
  });

  it('names the empty widgets of a fleet that has devices but no activity', async () => {
    serve({
      ...overview,
      deviceRanking: { byTasks: [], byData: [] },
      installs: [{ date: '2024-05-01', count: 0 }],
      remind: empty.remind,
    });
    renderPage(<HomePage />);
    expect(await screen.findByText('本月还没有给设备下发任务。')).toBeTruthy();
    expect(screen.getByText('近 30 天没有绑定新设备。')).toBeTruthy();
    expect(screen.getByText('一切正常，没有需要处理的设备。')).toBeTruthy();
  });
});
