import type { UserInfo } from '@cpc/contracts';
import type { ProfileDetail, ProfileDeviceItem, ProfileItem, ProfileVersion } from '@cpc/contracts/system-custom';
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import TopScreenModePage from './top-screen-mode';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const item: ProfileItem = {
  id: 5,
  name: '门店霸屏',
  description: '只显示自助打印',
  version: 1,
  hasDraft: false,
  parts: ['topScreen'],
  assignedDevices: 0,
  assignedGroups: 1,
  devices: 2,
  applied: 1,
  failed: 1,
  drifted: 1,
  createdAt: '2026-11-26T02:00:00Z',
  updatedAt: '2026-11-26T02:00:00Z',
};
const v1: ProfileVersion = {
  id: 11,
  version: 1,
  state: 'published',
  settings: {
    bootAnimation: null,
    desktop: null,
    wallpaper: null,
    defaultStartApp: null,
    topScreen: { enabled: true, pkg: 'com.shop.kiosk', passwordSet: true },
    appLock: null,
  },
  hash: 'abcdef0123456789',
  createdAt: '2026-11-26T02:00:00Z',
  publishedAt: '2026-11-26T02:00:00Z',
  publishedBy: 'cust',
};
const detail: ProfileDetail = {
  ...item,
  draft: null,
  current: v1,
  history: [v1],
  assignments: [{ target: 'group', id: 3, name: '门店', sn: null, at: '2026-11-26T02:00:00Z' }],
  rule: 'device-beats-group, nearest-group-beats-farther',
};
const device = (sn: string, extra: Partial<ProfileDeviceItem>): ProfileDeviceItem => ({
  deviceId: sn.length,
  sn,
  name: '',
  online: true,
  source: 'group',
  groupId: 3,
  groupName: '门店',
  desiredVersionId: 11,
  desiredVersion: 1,
  appliedVersionId: 11,
  appliedVersion: 1,
  state: 'applied',
  reason: '',
  drift: false,
  driftFields: [],
  taskId: null,
  reportedAt: '2026-11-26T02:01:00Z',
  updatedAt: '2026-11-26T02:01:00Z',
  ...extra,
});
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

const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c.data);

describe('TopScreenModePage', { timeout: 30_000 }, () => {
  beforeEach(() => {
    mockedRequest.mockReset();
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/systemCustom/profile/list') return { list: [item], total: 1 } as never;
      if (config.url === '/systemCustom/profile/detail') return detail as never;
      if (config.url === '/systemCustom/profile/devices')
        return {
          list: [
            device('SN1', { drift: true, driftFields: ['topScreen', 'wallpaper'] }),
            device('SN22', { state: 'failed', reason: 'app com.shop.kiosk is not installed', appliedVersion: null }),
          ],
          total: 2,
        } as never;
      if (config.url === '/systemCustom/apps')
        return [{ pkg: 'com.shop.kiosk', name: '自助打印', versionName: '1.0.0' }] as never;
      if (config.url === '/systemCustom/profile/update') return detail as never;
      return null as never;
    });
  });
  afterEach(cleanup);

  it('states the rule, shows the devices with state, reason and drift, and never the password', async () => {
    await as(['systemCustom:view', 'systemCustom:edit']);
    renderPage(<TopScreenModePage />, '/systemCustom/topScreenMode?profile=5');
    await screen.findByText(/设备自身分配的方案优先于任何分组的方案/);
    const editor = await screen.findByTestId('part-editor');
    await within(editor).findByText('自助打印 (com.shop.kiosk)');
    // write-only: "set" and a change button, no field holding it
    expect(within(editor).getByTestId('exitPassword-set').textContent).toBe('已设置');
    expect(within(editor).queryByTestId('exitPassword-input')).toBeNull();
    const table = await screen.findByTestId('profile-devices');
    await within(table).findByText('SN1');
    expect(within(table).getByText('偏离：霸屏模式、自定义壁纸')).toBeTruthy();
    expect(within(table).getByText('app com.shop.kiosk is not installed')).toBeTruthy();
    expect(within(table).getAllByText('分组：门店')).toHaveLength(2);
  });

  it('saves the part without a password unless one is typed, then with the typed one', async () => {
    await as(['systemCustom:view', 'systemCustom:edit'], 'en');
    renderPage(<TopScreenModePage />, '/systemCustom/topScreenMode?profile=5');
    const editor = await screen.findByTestId('part-editor');
    await within(editor).findByText('自助打印 (com.shop.kiosk)');
    fireEvent.click(within(editor).getByTestId('part-save'));
    await vi.waitFor(() => expect(calls('/systemCustom/profile/update')).toHaveLength(1));
    expect(calls('/systemCustom/profile/update')[0]).toEqual({
      id: 5,
      topScreen: { enabled: true, pkg: 'com.shop.kiosk' },
      publish: false,
    });
    fireEvent.click(within(editor).getByTestId('exitPassword-change'));
    fireEvent.change(within(editor).getByTestId('exitPassword-input'), { target: { value: '9753' } });
    fireEvent.click(within(editor).getByTestId('part-save-publish'));
    await vi.waitFor(() => expect(calls('/systemCustom/profile/update')).toHaveLength(2));
    expect(calls('/systemCustom/profile/update')[1]).toEqual({
      id: 5,
      topScreen: { enabled: true, pkg: 'com.shop.kiosk', exitPassword: '9753' },
      publish: true,
    });
  });

  it('lets a viewer look but not edit', async () => {
    await as(['systemCustom:view']);
    renderPage(<TopScreenModePage />, '/systemCustom/topScreenMode?profile=5');
    await screen.findByTestId('part-editor');
    expect(screen.queryByTestId('part-save')).toBeNull();
    expect(screen.queryByTestId('profile-new')).toBeNull();
    expect(screen.queryByTestId('profile-publish')).toBeNull();
  });
});
