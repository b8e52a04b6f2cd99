import type { SystemLogEntry, SystemLogPage, UserInfo } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import SystemLogPageScreen from './system-log';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const entry = (over: Partial<SystemLogEntry>): SystemLogEntry => ({
  id: 1,
  at: '2026-11-20T02:00:00Z',
  tenantId: 7,
  tenantName: 'acme',
  userId: 3,
  userName: 'ann',
  ip: '10.0.0.9',
  device: 'Chrome 120 · Windows',
  action: 'profile.update',
  resource: 'user',
  resourceId: '3',
  result: 'ok',
  changes: { nickname: { before: 'Ann', after: 'Bea' } },
  details: {},
  ...over,
});
const customer: UserInfo = {
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
  permissions: ['system:log:view'],
};
const calls = () =>
  mockedRequest.mock.calls
    .filter(([c]) => c.url === '/system/log/list')
    .map(([c]) => c.params as Record<string, unknown>);

describe('SystemLogPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(customer);
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      const params = config.params as Record<string, unknown>;
      if (config.url !== '/system/log/list') throw new Error(`unexpected call ${config.url}`);
      const page: SystemLogPage = params.cursor
        ? { list: [entry({ id: 1, action: 'billing.refund', changes: {} })], next: null, total: null, totalKind: null }
        : {
            list: [
              entry({ id: 3, action: 'login', result: 'fail', resource: '', resourceId: '', changes: {} }),
              entry({ id: 2 }),
            ],
            next: '1795000000000000.2',
            total: 12345,
            totalKind: 'estimate',
          };
      return page as never;
    });
  });
  afterEach(cleanup);

  it('lists entries with translated actions and results, the raw action when unknown, and pages by cursor', async () => {
    renderPage(<SystemLogPageScreen />);
    const failed = (await screen.findByText('登录')).closest('tr') as HTMLElement;
    expect(within(failed).getByText('失败')).toBeTruthy();
    expect(within(failed).getByText('10.0.0.9')).toBeTruthy();
    const edit = screen.getByText('修改个人资料').closest('tr') as HTMLElement;
    expect(within(edit).getByText('nickname: Ann → Bea')).toBeTruthy();
    expect(screen.getByTestId('log-total').textContent).toContain('约 12,345 条');
    // a customer sees no tenant column
    expect(screen.queryByRole('columnheader', { name: '租户' })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: /较早/ }));
    expect(await screen.findByText('billing.refund')).toBeTruthy();
    expect(calls().at(-1)).toMatchObject({ cursor: '1795000000000000.2', pageSize: 20 });
    // the total of the first page stays
    expect(screen.getByTestId('log-total').textContent).toContain('约 12,345 条');
    fireEvent.click(screen.getByRole('button', { name: /较新/ }));
    expect(await screen.findByText('修改个人资料')).toBeTruthy();
  });

  it('opens an entry with its changes before → after', async () => {
    renderPage(<SystemLogPageScreen />);
    const edit = (await screen.findByText('修改个人资料')).closest('tr') as HTMLElement;
    fireEvent.click(within(edit).getByRole('button', { name: /详情/ }));
    const table = await screen.findByTestId('log-changes');
    expect(within(table).getAllByText('修改前').length).toBeGreaterThan(0);
    const row = within(table).getByText('nickname').closest('tr') as HTMLElement;
    expect(within(row).getByText('Ann')).toBeTruthy();
    expect(within(row).getByText('Bea')).toBeTruthy();
  });

  it('searches by the filter from the first page', async () => {
    renderPage(<SystemLogPageScreen />);
    await screen.findByText('修改个人资料');
    fireEvent.change(screen.getByPlaceholderText('用户名'), { target: { value: ' ann ' } });
    fireEvent.click(screen.getByRole('button', { name: /查\s*询/ }));
    await waitFor(() => expect(calls().at(-1)).toEqual({ user: 'ann', pageSize: 20 }));
  });

  it('speaks English', async () => {
    await act(() => i18n.changeLanguage('en'));
    renderPage(<SystemLogPageScreen />);
    expect(await screen.findByText('Edit profile')).toBeTruthy();
    expect(screen.getByText('Failed')).toBeTruthy();
  });
});
