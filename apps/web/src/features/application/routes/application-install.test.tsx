import type { DeploymentDetail, DeploymentView, UserInfo } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import ApplicationInstallPage from './application-install';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const counts = {
  queued: 0,
  sent: 0,
  delivered: 0,
  running: 1,
  succeeded: 2,
  failed: 1,
  timeout: 0,
  expired: 0,
  canceled: 0,
};
const deployment: DeploymentView = {
  id: 7,
  kind: 'app',
  action: 'install',
  packageId: 3,
  name: '门店收银',
  identifier: 'com.shop.pos',
  versionName: '2.0.0',
  versionCode: 200,
  targets: { deviceIds: [], groupIds: [4] },
  source: 'manual',
  state: 'running',
  total: 4,
  counts,
  createdBy: 'cust',
  createdAt: '2026-11-26T02:00:00Z',
};
const row = (sn: string, state: DeploymentDetail['devices'][number]['state'], extra = {}) => ({
  taskId: `t-${sn}`,
  deviceId: sn.length,
  deviceSn: sn,
  deviceName: '',
  online: true,
  state,
  stage: '',
  progress: 0,
  error: '',
  attempts: 1,
  updatedAt: '2026-11-26T02:00:00Z',
  ...extra,
});
const detail: DeploymentDetail = {
  ...deployment,
  devices: [
    row('SN1', 'succeeded'),
    row('SN22', 'succeeded'),
    row('SN333', 'running', { stage: 'downloading', progress: 40 }),
    row('SN4444', 'failed', { error: 'not enough storage' }),
  ],
};
const user = (permissions: string[]): UserInfo => ({
  id: 1,
  username: 'cust',
  mobile: null,
  avatar: '',
  is_super: 0,
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

async function as(permissions: string[], lng = 'zh') {
  useSession.getState().reset();
  useSession.getState().setToken('tok');
  useSession.getState().setUserInfo(user(permissions));
  await act(() => i18n.changeLanguage(lng));
}

describe('ApplicationInstallPage', { timeout: 20_000 }, () => {
  beforeEach(() => {
    mockedRequest.mockReset();
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/application/deployment/list') return { list: [deployment], total: 1 } as never;
      if (config.url === '/application/deployment/7') return detail as never;
      if (config.url === '/application/required') return { apps: [] } as never;
      return null as never;
    });
  });
  afterEach(cleanup);

  it('lists installs with their progress; a viewer cannot start one', async () => {
    await as(['application:view']);
    renderPage(<ApplicationInstallPage />, '/application/applicationInstall');
    const name = await screen.findByText('门店收银 2.0.0');
    const tr = name.closest('tr')!;
    expect(within(tr).getByText('2 / 4 · 失败 1')).toBeTruthy();
    expect(within(tr).getByText('进行中')).toBeTruthy();
    expect(screen.queryByText('新建安装')).toBeNull();
  });

  it('opens an install to each device’s stage and reason, with retry of the failed ones', async () => {
    await as(['application:view', 'application:edit'], 'en');
    renderPage(<ApplicationInstallPage />, '/application/applicationInstall');
    expect(await screen.findByText('New install')).toBeTruthy();
    fireEvent.click(await screen.findByText('Details'));
    await screen.findByText('SN333');
    expect(screen.getByText('Running · Downloading')).toBeTruthy();
    expect(screen.getByText('not enough storage')).toBeTruthy();
    expect(screen.getByText('2 ok · 1 failed · 1 open / 4')).toBeTruthy();
    fireEvent.click(screen.getByText('Retry failed'));
    await vi.waitFor(() =>
      expect(mockedRequest.mock.calls.some(([c]) => c.url === '/application/deployment/7/retry')).toBe(true),
    );
  });
});
