import type { UserInfo } from '@cpc/contracts';
import type { SimItem, SimSummary } from '@cpc/contracts/flow-rate';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route, Routes, useLocation } from 'react-router';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import FlowRateSearchPage from './flow-rate-search';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const sim = (over: Partial<SimItem>): SimItem => ({
  iccid: '89860000000000000001',
  msisdn: '',
  carrier: 'cmcc',
  deviceId: 1,
  deviceSn: 'SN-1',
  deviceName: '前台',
  groupName: null,
  planMb: 1024,
  usedMb: 1000,
  leftMb: 24,
  leftPercent: 2.3,
  usedMonthMb: 300,
  expiresAt: '2026-12-20T00:00:00.000Z',
  state: 'low',
  reportedAt: null,
  ...over,
});
const summary: SimSummary = {
  total: 2,
  byState: { active: 1, low: 1, exhausted: 0, expired: 0, suspended: 0 },
  usedMonthMb: 300,
  projectedMonthMb: 2048,
  expiringSoon: 0,
};
const user = (permissions: string[]): UserInfo => ({
  id: 3,
  username: 'ann',
  mobile: null,
  avatar: '',
  is_super: 2,
  status: 1,
  is_authenticate: 1,
  attest_name: '',
  tenantKind: 'enterprise',
  dataScope: 'all',
  departmentId: null,
  admin: false,
  roles: [],
  permissions,
});
const listCalls = () =>
  mockedRequest.mock.calls
    .filter(([c]) => c.url === '/flowRate/sim/list')
    .map(([c]) => c.params as Record<string, unknown>);

let location = '';
function Where() {
  const l = useLocation();
  location = `${l.pathname}${l.search}`;
  return null;
}
const renderAt = (path: string) =>
  renderPage(
    <Routes>
      <Route
        path="/flowRate/flowRateSearch"
        element={
          <>
            <FlowRateSearchPage />
            <Where />
          </>
        }
      />
      <Route path="*" element={<Where />} />
    </Routes>,
    path,
  );

describe('FlowRateSearchPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(user(['flowRate:view', 'flowRate:buy']));
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/flowRate/sim/summary') return summary as never;
      if (config.url === '/flowRate/sim/list')
        return {
          list: [sim({}), sim({ iccid: '89860000000000000002', state: 'active', leftMb: 900 })],
          total: 2,
        } as never;
      throw new Error(`unexpected call ${config.url}`);
    });
  });
  afterEach(cleanup);

  it('opens filtered by the link, shows the totals and the states', async () => {
    renderAt('/flowRate/flowRateSearch?state=low,exhausted');
    await screen.findByText('89860000000000000001');
    expect(listCalls()[0]).toEqual({ state: 'low,exhausted', pageNo: '1', pageSize: '20' });
    expect(within(screen.getByTestId('sim-summary-total')).getByText('2')).toBeTruthy();
    expect(within(screen.getByTestId('sim-summary-projected')).getByText('2 GB')).toBeTruthy();
    expect(screen.getAllByText('流量不足').length).toBeGreaterThan(0);
  });

  it('sends a search to the URL and the server, and the buy button carries the selected SIMs', async () => {
    renderAt('/flowRate/flowRateSearch');
    await screen.findByText('89860000000000000001');
    fireEvent.change(screen.getByPlaceholderText('ICCID / SN / 设备名称'), { target: { value: ' 0001 ' } });
    fireEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(location).toBe('/flowRate/flowRateSearch?keyword=0001'));
    await waitFor(() => expect(listCalls().at(-1)).toMatchObject({ keyword: '0001' }));
    const buy = screen.getByTestId('sim-buy');
    expect((buy as HTMLButtonElement).disabled).toBe(true);
    const row = screen.getByText('89860000000000000001').closest('tr')!;
    fireEvent.click(within(row).getByRole('checkbox'));
    await waitFor(() => expect((buy as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(buy);
    await waitFor(() => expect(location).toBe('/flowRate/mallGoods?iccids=89860000000000000001'));
  });

  it('hides the buy button without flowRate:buy', async () => {
    useSession.getState().setUserInfo(user(['flowRate:view']));
    renderAt('/flowRate/flowRateSearch');
    await screen.findByText('89860000000000000001');
    expect(screen.queryByTestId('sim-buy')).toBeNull();
  });
});
