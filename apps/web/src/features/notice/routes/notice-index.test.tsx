import type { UserInfo } from '@cpc/contracts';
import type { NoticeItem, NoticeManageItem } from '@cpc/contracts/notice';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import NoticeIndexPage from './notice-index';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const item = (id: number, title: string, read: boolean, pinned = false): NoticeItem => ({
  id,
  title,
  notice: `<p>${title}</p>`,
  image: '',
  email: '',
  pinned,
  publishedAt: '2026-05-01T02:00:00Z',
  endsAt: null,
  read,
});
const managed: NoticeManageItem = {
  id: 9,
  title: '周日维护',
  bodyHtml: '<p>维护</p>',
  imageKey: '',
  image: '',
  audience: 'enterprise',
  tenants: [],
  state: 'draft',
  publishAt: null,
  endsAt: null,
  pinned: false,
  reads: 0,
  createdAt: '2026-05-01T02:00:00Z',
  updatedAt: '2026-05-01T02:00:00Z',
  withdrawnAt: null,
};
const user = (staff: boolean): UserInfo => ({
  id: 1,
  username: staff ? 'admin' : 'cust',
  mobile: null,
  avatar: '',
  is_super: 1,
  status: 1,
  is_authenticate: 1,
  attest_name: '',
  tenantKind: staff ? 'platform' : 'enterprise',
  dataScope: 'all',
  departmentId: null,
  admin: staff,
  roles: staff ? ['Admin'] : [],
  permissions: [],
});
const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

async function as(staff: boolean) {
  useSession.getState().reset();
  useSession.getState().setToken('tok');
  useSession.getState().setUserInfo(user(staff));
  await act(() => i18n.changeLanguage('zh'));
}

describe('NoticeIndexPage', { timeout: 20_000 }, () => {
  beforeEach(() => {
    mockedRequest.mockReset();
    mockedRequest.mockImplementation(async (config) => {
      switch (config.url) {
        case '/notice/getList':
          return {
            list: [item(1, '置顶公告', false, true), item(2, '新公告', false), item(3, '旧公告', true)],
            total: 3,
          } as never;
        case '/notice/manage/list':
          return { list: [managed], total: 1 } as never;
        case '/notice/manage/publish':
          return { ...managed, state: 'published', publishAt: new Date().toISOString() } as never;
        default:
          return null as never;
      }
    });
  });
  afterEach(cleanup);

  it('shows a customer the list in the server’s order, the unread ones emphasised, and no management', async () => {
    await as(false);
    renderPage(<NoticeIndexPage />, '/notice/noticeIndex');
    const rows = await screen.findAllByTestId('notice-row');
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringContaining('置顶公告'),
      expect.stringContaining('新公告'),
      expect.stringContaining('旧公告'),
    ]);
    expect(rows.map((r) => r.getAttribute('data-unread'))).toEqual(['true', 'true', 'false']);
    expect(within(rows[0]).getByText('置顶')).toBeTruthy();
    expect(within(rows[1]).getByText('未读')).toBeTruthy();
    expect(within(rows[2]).queryByText('未读')).toBeNull();
    expect(screen.queryByText('公告管理')).toBeNull();
    expect(calls('/notice/manage/list')).toHaveLength(0);
  });

  it('gives staff the management table; publishing a draft asks first, then calls the server', async () => {
    await as(true);
    renderPage(<NoticeIndexPage />, '/notice/noticeIndex');
    const table = await screen.findByTestId('notice-manage-table');
    await within(table).findByText('周日维护');
    expect(within(table).getByText('草稿')).toBeTruthy();
    expect(within(table).getByText('企业客户')).toBeTruthy();
    // a draft: edit, publish, delete; not withdraw
    // (text, not role, queries: role queries over an antd table take seconds in jsdom)
    expect(within(table).queryByText('撤回')).toBeNull();
    expect(within(table).getByText('删除')).toBeTruthy();
    fireEvent.click(within(table).getByText('发布').closest('button')!);
    const [confirm] = await screen.findAllByText('发布“周日维护”？');
    expect(calls('/notice/manage/publish')).toHaveLength(0);
    const dialog = confirm.closest('.ant-modal') as HTMLElement;
    // the confirm's OK (antd spaces a two-character Chinese label: "发 布")
    fireEvent.click(dialog.querySelector<HTMLButtonElement>('.ant-btn-primary')!);
    await waitFor(() => expect(calls('/notice/manage/publish')).toHaveLength(1));
    expect(calls('/notice/manage/publish')[0].data).toEqual({ id: 9 });
  });
});
