import type { WorkbenchSummary } from '@cpc/contracts/workbench';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { useLiveEvents } from '@/lib/live-events';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import WorkbenchPage from './workbench';

vi.mock('@/lib/request', () => ({ request: vi.fn() }));
vi.mock('@/lib/live-events', () => ({ useLiveEvents: vi.fn() }));
const mockedRequest = vi.mocked(request);
const mockedLive = vi.mocked(useLiveEvents);

const customer: WorkbenchSummary = {
  role: 'customer',
  sections: [
    { key: 'notices', count: 0, link: '/notice/noticeIndex', items: [] },
    {
      key: 'deviceOffline',
      count: 7,
      link: '/device/index?status=offline',
      items: [
        {
          id: '4',
          title: '前台打印机',
          subtitle: 'SN-4',
          tag: '',
          at: '2024-05-01T08:00:00.000Z',
          link: '/device/detail?id=4',
        },
        { id: '5', title: 'SN-5', subtitle: '', tag: '', at: null, link: '/device/detail?id=5' },
      ],
    },
    {
      key: 'simLow',
      count: 1,
      link: '/flowRate/flowRateSearch?state=low,exhausted,suspended',
      items: [
        {
          id: '8986001',
          title: '8986001',
          subtitle: '前台打印机',
          tag: 'suspended',
          at: null,
          link: '/flowRate/flowRateSearch?keyword=8986001',
        },
      ],
    },
  ],
};

const serve = (data: WorkbenchSummary) =>
  mockedRequest.mockImplementation(async (config) => {
    if (config.url === '/workbench/summary') return data as never;
    throw new Error(`unexpected call ${config.url}`);
  });

describe('WorkbenchPage', { timeout: 20_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    mockedLive.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it('shows each section with its count, items linking to their pages, the busiest first', async () => {
    serve(customer);
    renderPage(<WorkbenchPage />);
    const offline = await screen.findByTestId('wb-section-deviceOffline');
    expect(screen.getByTestId('wb-pending').textContent).toBe('有 8 项需要您处理');
    expect(within(offline).getByText('离线设备')).toBeTruthy();
    expect(within(offline).getByText('7')).toBeTruthy();
    expect(screen.getByTestId('wb-link-deviceOffline').getAttribute('href')).toBe('/device/index?status=offline');
    const [item] = within(offline).getAllByTestId('wb-item-deviceOffline');
    expect(item.getAttribute('href')).toBe('/device/detail?id=4');
    expect(within(item).getByText('前台打印机')).toBeTruthy();
    expect(within(offline).getByText('还有 5 项，查看全部')).toBeTruthy();
    expect(within(offline).getAllByTestId('wb-item-deviceOffline')[1].textContent).toContain('从未上线');
    // the SIM's state is said in the reader's language
    expect(within(screen.getByTestId('wb-section-simLow')).getByText('已停机')).toBeTruthy();
    // an empty section says so, and comes after those with work
    expect(within(screen.getByTestId('wb-section-notices')).getByText('没有未读的公告')).toBeTruthy();
    const order = screen.getAllByTestId(/^wb-section-/).map((e) => e.dataset.testid);
    expect(order).toEqual(['wb-section-deviceOffline', 'wb-section-simLow', 'wb-section-notices']);
  });

  it('says when nothing needs the user, in English too', async () => {
    serve({
      role: 'customer',
      sections: [{ key: 'deviceOffline', count: 0, link: '/device/index?status=offline', items: [] }],
    });
    await act(() => i18n.changeLanguage('en'));
    renderPage(<WorkbenchPage />);
    expect((await screen.findByTestId('wb-all-clear')).textContent).toBe('Nothing needs you now');
    expect(screen.getByText('Every device is online')).toBeTruthy();
  });

  it("shows staff the platform's queues", async () => {
    serve({
      role: 'staff',
      sections: [
        {
          key: 'workOrderOverdue',
          count: 2,
          link: '/workOrder/workOrderIndex?overdue=true',
          items: [
            {
              id: '3',
              title: 'Printer on fire',
              subtitle: 'WO1 · Acme',
              tag: 'urgent',
              at: '2024-05-01T08:00:00.000Z',
              link: '/workOrder/detail?id=3',
            },
          ],
        },
      ],
    });
    renderPage(<WorkbenchPage />);
    const card = await screen.findByTestId('wb-section-workOrderOverdue');
    expect(screen.getByTestId('wb-pending').textContent).toBe('队列中有 2 项待处理');
    expect(within(card).getByText('紧急')).toBeTruthy();
    expect(within(card).getByTestId('wb-item-workOrderOverdue').getAttribute('href')).toBe('/workOrder/detail?id=3');
  });

  it('reads again on a live event, throttled, and on the refresh button', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      serve(customer);
      renderPage(<WorkbenchPage />);
      await screen.findByTestId('wb-section-deviceOffline');
      const calls = () => mockedRequest.mock.calls.filter(([c]) => c.url === '/workbench/summary').length;
      expect(calls()).toBe(1);
      const handlers = mockedLive.mock.calls.at(-1)![0];
      expect(Object.keys(handlers)).toEqual(
        expect.arrayContaining(['device', 'sim', 'identity', 'order', 'workOrder', 'notice', 'message']),
      );
      act(() => {
        for (let i = 0; i < 10; i++) handlers.device!({} as never);
      });
      await waitFor(() => expect(calls()).toBe(2));
      act(() => handlers.sim!({} as never));
      await act(() => vi.advanceTimersByTimeAsync(3000));
      await waitFor(() => expect(calls()).toBe(3));
      fireEvent.click(screen.getByRole('button', { name: '刷新' }));
      await waitFor(() => expect(calls()).toBe(4));
    } finally {
      vi.useRealTimers();
    }
  });
});
