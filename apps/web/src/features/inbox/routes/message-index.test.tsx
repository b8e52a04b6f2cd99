import type { LiveMessageEvent, MessageItem, UserInfo } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { useLiveEvents } from '@/lib/live-events';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import MessageIndexPage from './message-index';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
vi.mock('@/lib/live-events', () => ({ useLiveEvents: vi.fn() }));
const mockedRequest = vi.mocked(request);
const mockedLive = vi.mocked(useLiveEvents);

const me: UserInfo = {
  id: 3,
  username: 'ann',
  mobile: null,
  avatar: '',
  is_super: 1,
  status: 1,
  is_authenticate: 1,
  attest_name: '',
  tenantKind: 'enterprise',
  dataScope: 'all',
  departmentId: null,
  admin: false,
  roles: [],
  permissions: [],
};
const msg = (over: Partial<MessageItem>): MessageItem => ({
  id: 1,
  kind: 'sim.low',
  title: '流量卡流量不足',
  body: 'ICCID 89860012345678901234',
  link: '/flowRate/flowRateSearch?keyword=89860012345678901234',
  readAt: null,
  createdAt: '2026-11-26T02:00:00Z',
  ...over,
});
const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

describe('MessageIndexPage', { timeout: 20_000 }, () => {
  let inbox: MessageItem[];
  beforeEach(async () => {
    mockedRequest.mockReset();
    mockedLive.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(me);
    await act(() => i18n.changeLanguage('zh'));
    inbox = [
      msg({ id: 3, kind: 'device.fault', title: '打印机缺纸', body: 'SN0001 · 前台', link: '/device/detail?id=7' }),
      msg({ id: 2 }),
      msg({
        id: 1,
        kind: 'identity.reviewed',
        title: '实名认证已通过',
        body: '',
        link: '/person/info',
        readAt: '2026-11-25T00:00:00Z',
      }),
    ];
    mockedRequest.mockImplementation(async (config) => {
      const data = config.data as { ids?: number[] } | undefined;
      switch (config.url) {
        case '/message/getList':
          return { list: inbox, total: inbox.length } as never;
        case '/message/detail': {
          const id = Number((config.params as { id: number }).id);
          const m = inbox.find((x) => x.id === id)!;
          m.readAt ??= '2026-11-26T03:00:00Z';
          return m as never;
        }
        case '/message/read':
          inbox.filter((m) => data!.ids!.includes(m.id)).forEach((m) => (m.readAt = '2026-11-26T03:00:00Z'));
          return { updated: data!.ids!.length } as never;
        case '/message/readAll': {
          const n = inbox.filter((m) => !m.readAt).length;
          inbox.forEach((m) => (m.readAt ??= '2026-11-26T03:00:00Z'));
          return { updated: n } as never;
        }
        case '/message/delete': {
          const before = inbox.length;
          inbox = inbox.filter((m) => !data!.ids!.includes(m.id));
          return { deleted: before - inbox.length } as never;
        }
      }
      throw new Error(`unexpected call ${config.url}`);
    });
  });
  afterEach(cleanup);

  const row = (text: string) => screen.getAllByTestId('inbox-row').find((r) => r.textContent?.includes(text))!;

  it('lists the messages, unread ones emphasised, with their type', async () => {
    renderPage(<MessageIndexPage />);
    await screen.findByText('打印机缺纸');
    expect(row('打印机缺纸').getAttribute('data-unread')).toBe('true');
    expect(row('实名认证已通过').getAttribute('data-unread')).toBe('false');
    expect(within(row('打印机缺纸')).getByText('设备')).toBeTruthy();
    expect(within(row('流量卡流量不足')).getByText('流量卡')).toBeTruthy();
    expect(screen.getByText('共 3 条')).toBeTruthy();
    expect(calls('/message/getList')[0].params).toEqual({ pageNo: 1, pageSize: 20 });
  });

  it('filters on the server, from the first page', async () => {
    renderPage(<MessageIndexPage />);
    await screen.findByText('打印机缺纸');
    fireEvent.change(screen.getByPlaceholderText('标题或内容'), { target: { value: ' 缺纸 ' } });
    fireEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() =>
      expect(calls('/message/getList').at(-1)!.params).toEqual({ keyword: '缺纸', pageNo: 1, pageSize: 20 }),
    );
  });

  it('opens a message (the server marks it read) and leads to its page', async () => {
    renderPage(<MessageIndexPage />);
    fireEvent.click(await screen.findByText('打印机缺纸'));
    const detail = await screen.findByTestId('message-detail');
    expect(within(detail).getByText('SN0001 · 前台')).toBeTruthy();
    expect(calls('/message/detail')[0].params).toEqual({ id: 3 });
    // the list is read again: the row is no longer unread
    await waitFor(() => expect(row('SN0001 · 前台').getAttribute('data-unread')).toBe('false'));
    expect(screen.getByTestId('message-open-link').textContent).toContain('前往查看');
  });

  it('marks the selected read, deletes the selected, marks all read', async () => {
    renderPage(<MessageIndexPage />);
    await screen.findByText('打印机缺纸');
    fireEvent.click(within(row('流量卡流量不足')).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('inbox-read-selected'));
    await waitFor(() => expect(calls('/message/read')[0].data).toEqual({ ids: [2] }));
    await waitFor(() => expect(row('流量卡流量不足').getAttribute('data-unread')).toBe('false'));

    fireEvent.click(within(row('实名认证已通过')).getByRole('checkbox'));
    fireEvent.click(screen.getByTestId('inbox-delete-selected'));
    fireEvent.click(await screen.findByTestId('inbox-delete-ok'));
    await waitFor(() => expect(calls('/message/delete')[0].data).toEqual({ ids: [1] }));
    await waitFor(() => expect(screen.queryByText('实名认证已通过')).toBeNull());

    fireEvent.click(screen.getByTestId('inbox-read-all'));
    await waitFor(() => expect(calls('/message/readAll')).toHaveLength(1));
    await waitFor(() => expect(row('打印机缺纸').getAttribute('data-unread')).toBe('false'));
  });

  it('reads again when a message event for this user arrives, not for another user', async () => {
    renderPage(<MessageIndexPage />);
    await screen.findByText('打印机缺纸');
    const handlers = mockedLive.mock.calls.at(-1)![0];
    const n = calls('/message/getList').length;
    inbox.unshift(msg({ id: 4, title: '工单有新回复', kind: 'workOrder.replied' }));
    act(() => handlers.message!({ userId: 99 } as LiveMessageEvent));
    await new Promise((r) => setTimeout(r, 50));
    expect(calls('/message/getList')).toHaveLength(n);
    act(() => handlers.message!({ userId: 3 } as LiveMessageEvent));
    expect(await screen.findByText('工单有新回复')).toBeTruthy();
  });

  it('speaks English', async () => {
    await act(() => i18n.changeLanguage('en'));
    renderPage(<MessageIndexPage />);
    await screen.findByText('打印机缺纸');
    expect(screen.getByText('Message centre')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Mark all read' })).toBeTruthy();
    expect(within(row('打印机缺纸')).getByText('Device')).toBeTruthy();
  });
});
