import type { AppGroup, PackageDetail, PackageItem, UserInfo } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import MyApplicationPage from './my-application';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const CERT = 'ab12cd34ef56ab78' + '0'.repeat(48);
const version = (id: number, versionName: string, versionCode: number, downgrade = false): PackageItem => ({
  id,
  kind: 'app',
  name: '打印助手',
  identifier: 'com.example.printhelper',
  versionName,
  versionCode,
  size: 5 * 1024 * 1024,
  sha256: 'f'.repeat(64),
  models: [],
  notes: '',
  meta: {
    label: '打印助手',
    minSdk: 26,
    targetSdk: 34,
    permissions: ['android.permission.INTERNET', 'android.permission.CAMERA'],
    certSha256: CERT,
    certSubject: 'CN=Alpha',
    iconKey: null,
    downgrade,
  },
  iconUrl: null,
  createdAt: '2026-11-20T02:00:00Z',
  createdBy: 'cust',
});
const group: AppGroup = {
  identifier: 'com.example.printhelper',
  latest: version(2, '2.0.0', 20),
  versions: 2,
  totalSize: 1,
};
const detail: PackageDetail = {
  ...version(2, '2.0.0', 20),
  downloadUrl: '/apiAdmin/objects/x?exp=1&sig=s',
  fits: [],
  openTasks: 0,
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
const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

async function as(permissions: string[], lng = 'zh') {
  useSession.getState().reset();
  useSession.getState().setToken('tok');
  useSession.getState().setUserInfo(user(permissions));
  await act(() => i18n.changeLanguage(lng));
}

describe('MyApplicationPage', { timeout: 20_000 }, () => {
  beforeEach(() => {
    mockedRequest.mockReset();
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/package/apps') return { list: [group], total: 1 } as never;
      if (config.url === '/package/list')
        return {
          list: [version(3, '1.5.0', 15, true), version(2, '2.0.0', 20), version(1, '1.0.0', 10)],
          total: 3,
        } as never;
      if (config.url === '/package/2') return detail as never;
      if (config.url === '/package/3/delete') return version(3, '1.5.0', 15) as never;
      return null as never;
    });
  });
  afterEach(cleanup);

  it('lists each app with its package and latest version; a row opens to its versions', async () => {
    await as(['application:view', 'application:edit']);
    renderPage(<MyApplicationPage />, '/application/myApplication');
    const name = await screen.findByText('打印助手');
    const row = name.closest('tr')!;
    expect(within(row).getByText('com.example.printhelper')).toBeTruthy();
    expect(within(row).getByText('2.0.0')).toBeTruthy();
    expect(screen.getByText('上传应用')).toBeTruthy();
    fireEvent.click(row.querySelector<HTMLButtonElement>('.ant-table-row-expand-icon')!);
    await screen.findByText('1.5.0');
    expect(calls('/package/list')[0]!.params).toMatchObject({ kind: 'app', identifier: 'com.example.printhelper' });
    expect(screen.getByText('低于最新版本')).toBeTruthy();
  });

  it('shows what was read from the APK in the details', async () => {
    await as(['application:view'], 'en');
    renderPage(<MyApplicationPage />, '/application/myApplication');
    await screen.findByText('com.example.printhelper');
    // a viewer cannot upload
    expect(screen.queryByText('Upload app')).toBeNull();
    fireEvent.click(screen.getByText('Details').closest('button')!);
    await screen.findByText('Application details');
    await screen.findByText('Permissions (2)');
    expect(screen.getByText('INTERNET')).toBeTruthy();
    expect(screen.getByText(CERT)).toBeTruthy();
    expect(screen.getByText('Download APK').closest('a')!.getAttribute('href')).toBe(detail.downloadUrl);
  });

  it('deletes a version after asking', async () => {
    await as(['application:view', 'application:edit']);
    renderPage(<MyApplicationPage />, '/application/myApplication');
    const row = (await screen.findByText('com.example.printhelper')).closest('tr')!;
    fireEvent.click(row.querySelector<HTMLButtonElement>('.ant-table-row-expand-icon')!);
    const v = (await screen.findByText('1.5.0')).closest('tr')!;
    fireEvent.click(within(v).getByText('删除').closest('button')!);
    const [title] = await screen.findAllByText('删除 打印助手 1.5.0？');
    expect(calls('/package/3/delete')).toHaveLength(0);
    fireEvent.click(title!.closest('.ant-modal')!.querySelector<HTMLButtonElement>('.ant-btn-primary')!);
    await waitFor(() => expect(calls('/package/3/delete')).toHaveLength(1));
  });
});
