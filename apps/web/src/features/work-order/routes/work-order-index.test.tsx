import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import { item, user } from '../utils/fixtures';
import WorkOrderIndexPage from './work-order-index';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const callsTo = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);
const listParams = () => callsTo('/workOrder/list').map((c) => c.params as Record<string, unknown>);

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
        path="/workOrder/workOrderIndex"
        element={
          <>
            <WorkOrderIndexPage />
            <Where />
          </>
        }
      />
      <Route path="*" element={<Where />} />
    </Routes>,
    path,
  );

describe('WorkOrderIndexPage', { timeout: 20_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/workOrder/list')
        return {
          list: [
            item({ unread: true }),
            item({ id: 8, orderNo: 'WO202611260002', title: '流量用完', overdue: true, state: 'processing' }),
          ],
          total: 2,
        } as never;
      if (config.url === '/workOrder/assignees') return [{ id: 1, name: 'admin' }] as never;
      if (config.url === '/workOrder/take') return item({ assignee: { id: 1, name: 'admin' } }) as never;
      throw new Error(`unexpected call ${config.url}`);
    });
  });
  afterEach(cleanup);

  it('a customer: opens filtered by the link, marks unread, offers a new order and no staff columns', async () => {
    useSession.getState().setUserInfo(user(['workOrder:view', 'workOrder:edit']));
    renderAt('/workOrder/workOrderIndex?state=waiting,processing&type=device&overdue=true');
    await screen.findByText('打印机卡纸');
    // overdue is a staff filter, but the URL keeps it; the server ignores it for customers
    expect(listParams()[0]).toEqual({
      state: 'waiting,processing',
      type: 'device',
      overdue: 'true',
      pageNo: '1',
      pageSize: '20',
    });
    expect(screen.getAllByTestId('work-order-unread')).toHaveLength(1);
    expect(screen.getByTestId('work-order-new')).toBeTruthy();
    expect(screen.queryByText('账户')).toBeNull();
    expect(screen.queryByText('领取')).toBeNull();
    expect(screen.queryByTestId('work-order-settings')).toBeNull();
    expect(document.querySelector('[data-overdue]')).toBeNull();
    expect(callsTo('/workOrder/assignees')).toHaveLength(0);
  });

  it('a customer: the search goes to the URL and the server', async () => {
    useSession.getState().setUserInfo(user(['workOrder:view', 'workOrder:edit']));
    renderAt('/workOrder/workOrderIndex');
    await screen.findByText('打印机卡纸');
    fireEvent.change(screen.getByPlaceholderText('工单号 / 标题'), { target: { value: ' 卡纸 ' } });
    fireEvent.click(screen.getByText('只看未读'));
    fireEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() =>
      expect(location).toBe(`/workOrder/workOrderIndex?keyword=${encodeURIComponent('卡纸')}&unread=true`),
    );
    await waitFor(() =>
      expect(listParams().at(-1)).toEqual({ keyword: '卡纸', unread: 'true', pageNo: '1', pageSize: '20' }),
    );
  });

  it('a reader without workOrder:edit sees no "new" button', async () => {
    useSession.getState().setUserInfo(user(['workOrder:view']));
    renderAt('/workOrder/workOrderIndex');
    await screen.findByText('打印机卡纸');
    expect(screen.queryByTestId('work-order-new')).toBeNull();
  });

  it('staff: the queue with account, assignee, overdue rows highlighted, and take', async () => {
    useSession.getState().setUserInfo(user(['workOrder:handle'], 'platform'));
    renderAt('/workOrder/workOrderIndex?assignee=none');
    await screen.findByText('打印机卡纸');
    expect(screen.getByText('工单队列')).toBeTruthy();
    expect(listParams()[0]).toMatchObject({ assignee: 'none' });
    expect(screen.getAllByText('Acme').length).toBe(2);
    const overdue = document.querySelectorAll('tr[data-overdue]');
    expect(overdue).toHaveLength(1);
    expect(within(overdue[0] as HTMLElement).getByText('流量用完')).toBeTruthy();
    expect(screen.queryByTestId('work-order-new')).toBeNull();
    expect(screen.getByTestId('work-order-settings')).toBeTruthy();
    fireEvent.click(screen.getByTestId('work-order-take-7'));
    await waitFor(() => expect(callsTo('/workOrder/take')[0]?.data).toEqual({ id: 7 }));
  });
});
