import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UserInfo } from '@cpc/contracts';
import type { OrderDetail } from '@cpc/contracts/order';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import FlowRateLogPage from './flow-rate-log';

vi.mock('@/lib/request', () => ({ request: vi.fn() }));
vi.mock('@/lib/live-events', () => ({ useLiveEvents: vi.fn() }));
const mockedRequest = vi.mocked(request);
const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

const order: OrderDetail = {
  id: 9,
  orderNo: '2026112607000012345678',
  tenantId: 3,
  tenantName: '张三的店',
  userName: 'zhang',
  state: 'fulfilled',
  totalFen: 5970,
  lineCount: 3,
  packages: ['月包 1GB'],
  provider: 'sandbox',
  tradeNo: 'SBX2026112607000012345678',
  createdAt: '2026-11-26T07:00:00.000Z',
  expiresAt: '2026-11-26T07:15:00.000Z',
  paidAt: '2026-11-26T07:01:00.000Z',
  fulfilledAt: '2026-11-26T07:01:00.000Z',
  closedAt: null,
  refundedAt: null,
  refundReason: null,
  payFailedAt: null,
  refundedBy: null,
  lines: [
    {
      id: 1,
      iccid: '89860012345678901234',
      packageId: 5,
      packageName: '月包 1GB',
      dataMb: 1024,
      validityDays: 30,
      priceFen: 1990,
      fulfilledAt: '2026-11-26T07:01:00.000Z',
      planBefore: 100,
      planAfter: 1124,
      expiresBefore: null,
      expiresAfter: '2026-12-26T07:01:00.000Z',
    },
  ],
};
const staff: UserInfo = {
  id: 1,
  username: 'admin',
  mobile: null,
  avatar: '',
  is_super: 1,
  status: 1,
  is_authenticate: 1,
  attest_name: '',
  tenantKind: 'platform',
  dataScope: 'all',
  departmentId: null,
  admin: true,
  roles: ['Admin'],
  permissions: [],
};

describe('top-up records', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/order/list') return { list: [order], total: 1 } as never;
      if (config.url === '/order/package/list') return { list: [], total: 0 } as never;
      if (config.url === '/order/detail') return order as never;
      if (config.url === '/order/refund') return { ...order, state: 'refunded' } as never;
      throw new Error(`unexpected ${config.url}`);
    });
  });
  afterEach(cleanup);

  it("shows staff every customer's orders, filters by state and customer, and refunds with a reason", async () => {
    useSession.setState({ userInfo: staff });
    renderPage(<FlowRateLogPage />);
    const row = (await screen.findByText('张三的店')).closest('tr')!;
    expect(within(row).getByText('¥59.70')).toBeTruthy();
    expect(within(row).getByText('已到账')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('客户 ID'), { target: { value: '3' } });
    fireEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(calls('/order/list').at(-1)?.params).toMatchObject({ tenantId: 3, pageNo: 1 }));

    fireEvent.click(within(row).getByRole('button', { name: /详\s*情/ }));
    const receipt = await screen.findByTestId('order-receipt');
    expect(within(receipt).getByText('100 MB → 1.1 GB')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /退\s*款/ }));
    fireEvent.click(await screen.findByRole('button', { name: /确认退款/ }));
    await screen.findByText('请填写此项');
    expect(calls('/order/refund')).toHaveLength(0);
    fireEvent.change(screen.getByLabelText('退款原因'), { target: { value: '  客户重复购买 ' } });
    fireEvent.click(screen.getByRole('button', { name: /确认退款/ }));
    await waitFor(() => expect(calls('/order/refund')[0]?.data).toEqual({ id: 9, reason: '客户重复购买' }));
  });

  it('takes the state and the order number a link asks for (the workbench: refunds to decide)', async () => {
    useSession.setState({ userInfo: staff });
    renderPage(<FlowRateLogPage />, `/flowRate/flowRateLog?state=paid&orderNo=${order.orderNo}`);
    await screen.findByText('张三的店');
    expect(calls('/order/list')[0]?.params).toMatchObject({ state: 'paid', orderNo: order.orderNo, pageNo: 1 });
    cleanup();
    mockedRequest.mockClear();
    renderPage(<FlowRateLogPage />, '/flowRate/flowRateLog?state=nonsense');
    await screen.findByText('张三的店');
    expect(calls('/order/list')[0]?.params?.state).toBeUndefined();
  });
});
