import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UserInfo } from '@cpc/contracts';
import type { OrderDetail, PackageView, SimOption } from '@cpc/contracts/order';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import MallGoodsPage from './mall-goods';

vi.mock('@/lib/request', () => ({
  request: vi.fn(),
  RequestError: class extends Error {},
}));
vi.mock('@/lib/live-events', () => ({ useLiveEvents: vi.fn() }));
const mockedRequest = vi.mocked(request);

const A = '89860012345678901234';
const B = '89860012345678901235';
const sim = (iccid: string): SimOption => ({
  iccid,
  deviceId: 1,
  deviceName: `前台${iccid.slice(-1)}`,
  deviceSn: `SN-${iccid.slice(-1)}`,
  carrier: 'cmcc',
  planMb: 100,
  usedMb: 20,
  leftMb: 80,
  expiresAt: null,
  state: 'active',
});
const pkg: PackageView = {
  id: 5,
  name: '月包 1GB',
  dataMb: 1024,
  validityDays: 30,
  priceFen: 1990,
  onShelf: true,
  perSimLimit: null,
  carriers: [],
  planMinMb: null,
  planMaxMb: null,
  sort: 0,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
};
const order: OrderDetail = {
  id: 9,
  orderNo: '20261126070000123456',
  tenantId: 3,
  tenantName: 'c',
  userName: 'c',
  state: 'pending',
  totalFen: 3980,
  lineCount: 2,
  packages: [pkg.name],
  provider: null,
  tradeNo: null,
  createdAt: '2026-11-26T07:00:00.000Z',
  expiresAt: '2099-11-26T07:15:00.000Z',
  paidAt: null,
  fulfilledAt: null,
  closedAt: null,
  refundedAt: null,
  refundReason: null,
  payFailedAt: null,
  refundedBy: null,
  lines: [],
};
const customer: UserInfo = {
  id: 1,
  username: 'c',
  mobile: null,
  avatar: '',
  is_super: 1,
  status: 1,
  is_authenticate: 1,
  attest_name: '',
  tenantKind: 'individual',
  dataScope: 'all',
  departmentId: null,
  admin: false,
  roles: [],
  permissions: ['flowRate:buy', 'flowRate:view'],
};

const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

describe('the traffic store', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.setState({ userInfo: customer });
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      const data = config.data as { lines?: unknown[] } | undefined;
      switch (config.url) {
        case '/order/sim/options':
          return [sim(A), sim(B)] as never;
        case '/order/package/list':
          return { list: [pkg], total: 1 } as never;
        case '/order/quote':
          return { lines: [], totalFen: 1990 * (data?.lines?.length ?? 0) } as never;
        case '/order/create':
          return order as never;
        case '/order/pay':
          return {
            provider: 'sandbox',
            cashierUrl: 'http://x/pay/sandbox/cashier?trade=t',
            qrContent: 'http://x/pay/sandbox/cashier?trade=t',
          } as never;
        case '/order/detail':
          return order as never;
      }
      throw new Error(`unexpected ${config.url}`);
    });
  });
  afterEach(cleanup);

  it("buys for the SIMs of the URL at the server's price, sending no price of its own", async () => {
    // not-an-iccid is no ICCID; the last one is no SIM of this account (the server does not list it)
    renderPage(<MallGoodsPage />, `/flowRate/mallGoods?iccids=${A},${B},not-an-iccid,89860012345678909999`);
    fireEvent.click(await screen.findByTestId('package-5'));
    const quote = await screen.findByTestId('quote');
    await within(quote).findByText('¥39.80');
    expect(within(quote).getByText('2 张卡 · 合计')).toBeTruthy();
    expect(calls('/order/quote').at(-1)?.data).toEqual({
      lines: [
        { iccid: A, packageId: 5 },
        { iccid: B, packageId: 5 },
      ],
    });

    fireEvent.click(screen.getByRole('button', { name: /立即购买/ }));
    await screen.findByTestId('cashier-link');
    const [create] = calls('/order/create');
    expect(Object.keys(create.data as object).sort()).toEqual(['clientRequestId', 'lines']);
    expect((create.data as { lines: unknown[] }).lines).toEqual([
      { iccid: A, packageId: 5 },
      { iccid: B, packageId: 5 },
    ]);
    expect(calls('/order/pay')[0].data).toEqual({ id: 9, lang: 'zh' });
    expect(screen.getByTestId('cashier-link').getAttribute('href')).toBe('http://x/pay/sandbox/cashier?trade=t');
    await waitFor(() => expect(screen.getAllByText('¥39.80').length).toBeGreaterThan(1));
  });
});
