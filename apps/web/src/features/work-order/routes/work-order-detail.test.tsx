import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WorkOrderDetail, WorkOrderEvent } from '@cpc/contracts/work-order';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import { detail, user } from '../utils/fixtures';
import WorkOrderDetailPage from './work-order-detail';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);
const callsTo = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

const event = (over: Partial<WorkOrderEvent>): WorkOrderEvent => ({
  id: 1,
  kind: 'reply',
  side: 'staff',
  author: { id: 1, name: 'admin' },
  bodyHtml: '<p>请问是哪台打印机？</p>',
  fromState: null,
  toState: null,
  data: {},
  attachments: [],
  createdAt: '2026-11-26T08:10:00.000Z',
  ...over,
});

let current: WorkOrderDetail;
const renderAt = (path = '/workOrder/detail?id=7') =>
  renderPage(
    <Routes>
      <Route path="/workOrder/detail" element={<WorkOrderDetailPage />} />
    </Routes>,
    path,
  );

describe('WorkOrderDetailPage', { timeout: 20_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/workOrder/detail') return current as never;
      if (config.url === '/workOrder/read') return null as never;
      if (config.url === '/workOrder/canned/list')
        return [{ id: 5, title: '需要序列号', bodyHtml: '<p>请提供设备序列号</p>', shared: true }] as never;
      if (config.url === '/workOrder/assignees') return [{ id: 1, name: 'admin' }] as never;
      if (config.url === '/workOrder/reply' || config.url === '/workOrder/withdraw') return current as never;
      throw new Error(`unexpected call ${config.url}`);
    });
  });
  afterEach(cleanup);

  it('a customer: shows the order, marks it read, and only the actions the server allows', async () => {
    useSession.getState().setUserInfo(user(['workOrder:view', 'workOrder:edit']));
    current = detail({
      can: { edit: true, withdraw: true, reply: true },
      events: [
        event({}),
        event({ id: 2, kind: 'state', side: 'system', author: null, fromState: 'submitted', toState: 'processing' }),
      ],
    });
    renderAt();
    expect(await screen.findByTestId('work-order-title-text')).toHaveProperty('textContent', '打印机卡纸');
    expect(screen.getByText('第二层纸盒卡纸')).toBeTruthy();
    expect(screen.getByRole('link', { name: '前台 (SN-11)' }).getAttribute('href')).toBe('/device/detail?id=11');
    expect(screen.getByText('请问是哪台打印机？')).toBeTruthy();
    expect(screen.getByText(/将状态从“已提交”改为“处理中”/)).toBeTruthy();
    await waitFor(() => expect(callsTo('/workOrder/read')[0]?.data).toEqual({ id: 7 }));
    expect(screen.getByTestId('work-order-edit')).toBeTruthy();
    expect(screen.getByTestId('work-order-withdraw')).toBeTruthy();
    for (const hidden of ['take', 'assign', 'reopen', 'close', 'rate'])
      expect(screen.queryByTestId(`work-order-${hidden}`)).toBeNull();
    // a customer only replies: no action choice, no canned replies
    expect(screen.queryByTestId('work-order-reply-action')).toBeNull();
    expect(callsTo('/workOrder/canned/list')).toHaveLength(0);
  });

  it('a customer: a closed order offers the rating and no reply box', async () => {
    useSession.getState().setUserInfo(user(['workOrder:view', 'workOrder:edit']));
    current = detail({ state: 'closed', can: { rate: true } });
    renderAt();
    await screen.findByTestId('work-order-rate');
    expect(screen.queryByTestId('work-order-reply-form')).toBeNull();
    expect(screen.queryByTestId('work-order-edit')).toBeNull();
  });

  it('a customer: an empty reply is refused before it is sent', async () => {
    useSession.getState().setUserInfo(user(['workOrder:view', 'workOrder:edit']));
    current = detail({ can: { reply: true } });
    renderAt();
    fireEvent.click(await screen.findByTestId('work-order-reply-send'));
    await screen.findByText('请填写回复内容');
    expect(callsTo('/workOrder/reply')).toHaveLength(0);
  });

  it('staff: see the internal note marked, take and assign, and send a canned question', async () => {
    useSession.getState().setUserInfo(user(['workOrder:handle'], 'platform'));
    current = detail({
      state: 'processing',
      assignee: { id: 1, name: 'admin' },
      can: { reply: true, assign: true, resolve: true, take: true },
      events: [event({ id: 3, kind: 'note', bodyHtml: '<p>先查日志</p>' })],
    });
    renderAt();
    await screen.findByText('先查日志');
    expect(screen.getByTestId('work-order-note-tag').textContent).toBe('内部备注');
    expect(screen.getByTestId('work-order-take')).toBeTruthy();
    expect(screen.getByTestId('work-order-assign')).toBeTruthy();
    expect(screen.getByText('Acme')).toBeTruthy();

    fireEvent.click(screen.getByText('追问客户'));
    fireEvent.mouseDown(
      screen.getByTestId('work-order-canned-picker').querySelector('.ant-select-selector') ??
        screen.getByTestId('work-order-canned-picker'),
    );
    fireEvent.click(await screen.findByText('需要序列号'));
    await waitFor(() => expect(screen.getByRole('textbox', { name: '回复内容' }).textContent).toBe('请提供设备序列号'));
    fireEvent.click(screen.getByTestId('work-order-reply-send'));
    await waitFor(() =>
      expect(callsTo('/workOrder/reply')[0]?.data).toEqual({
        id: 7,
        bodyHtml: '<p>请提供设备序列号</p>',
        attachments: [],
        action: 'ask',
      }),
    );
  });
});
