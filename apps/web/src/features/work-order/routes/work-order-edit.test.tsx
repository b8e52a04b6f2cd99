import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import { detail, user } from '../utils/fixtures';
import WorkOrderEditPage from './work-order-edit';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);
const callsTo = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

let location = '';
function Where() {
  const l = useLocation();
  location = `${l.pathname}${l.search}`;
  return null;
}
const renderAt = (path: string) =>
  renderPage(
    <Routes>
      <Route path="/workOrder/edit" element={<WorkOrderEditPage />} />
      <Route path="*" element={<Where />} />
    </Routes>,
    path,
  );

describe('WorkOrderEditPage', { timeout: 20_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(user(['workOrder:view', 'workOrder:edit']));
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it('opens a work order: title required, then the body goes out and the detail opens', async () => {
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/workOrder/options')
        return { devices: [{ id: 11, sn: 'SN-11', name: '前台' }], orders: [] } as never;
      if (config.url === '/workOrder/create') return detail({ id: 9 }) as never;
      throw new Error(`unexpected call ${config.url}`);
    });
    renderAt('/workOrder/edit');
    fireEvent.click(await screen.findByTestId('work-order-submit'));
    await screen.findByText('请填写标题');
    expect(callsTo('/workOrder/create')).toHaveLength(0);

    fireEvent.click(screen.getByText('账单费用'));
    fireEvent.click(screen.getByText('紧急'));
    fireEvent.change(screen.getByTestId('work-order-title'), { target: { value: '  多扣了费  ' } });
    fireEvent.mouseDown(
      screen.getByTestId('work-order-devices').querySelector('.ant-select-selector') ??
        screen.getByTestId('work-order-devices'),
    );
    fireEvent.click(await screen.findByText('前台 (SN-11)'));
    fireEvent.click(screen.getByTestId('work-order-submit'));
    await waitFor(() =>
      expect(callsTo('/workOrder/create')[0]?.data).toEqual({
        clientRequestId: expect.stringMatching(/^[A-Za-z0-9_-]{8,64}$/),
        type: 'billing',
        priority: 'urgent',
        title: '多扣了费',
        descriptionHtml: '',
        deviceIds: [11],
        orderIds: [],
        attachments: [],
      }),
    );
    await waitFor(() => expect(location).toBe('/workOrder/detail?id=9'));
  });

  it('an order staff already took cannot be edited', async () => {
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/workOrder/options') return { devices: [], orders: [] } as never;
      if (config.url === '/workOrder/detail') return detail({ state: 'processing' }) as never;
      throw new Error(`unexpected call ${config.url}`);
    });
    renderAt('/workOrder/edit?id=7');
    await screen.findByText(/客服已开始处理/);
    expect(screen.queryByTestId('work-order-submit')).toBeNull();
  });

  it('edits an order still submitted, keeping its attachments by their keys', async () => {
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/workOrder/options') return { devices: [], orders: [] } as never;
      if (config.url === '/workOrder/detail')
        return detail({
          can: { edit: true },
          attachments: [
            { id: 1, name: 'a.log', size: 10, mime: 'text/plain', url: '/apiAdmin/objects/k/a.log?exp=1&sig=2' },
          ],
        }) as never;
      if (config.url === '/workOrder/update') return detail({}) as never;
      throw new Error(`unexpected call ${config.url}`);
    });
    renderAt('/workOrder/edit?id=7');
    await waitFor(() => expect((screen.getByTestId('work-order-title') as HTMLInputElement).value).toBe('打印机卡纸'));
    fireEvent.click(screen.getByTestId('work-order-submit'));
    await waitFor(() =>
      expect(callsTo('/workOrder/update')[0]?.data).toMatchObject({
        id: 7,
        title: '打印机卡纸',
        deviceIds: [11],
        attachments: ['k/a.log'],
      }),
    );
  });
});
