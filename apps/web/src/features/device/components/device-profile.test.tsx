import type { UserInfo } from '@cpc/contracts';
import type { DeviceProfile } from '@cpc/contracts/system-custom';
import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import { DeviceProfileCard } from './device-profile';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const governed: DeviceProfile = {
  deviceId: 9,
  profile: { id: 5, name: '门店霸屏' },
  source: 'group',
  groupId: 4,
  groupName: '北区',
  candidates: [
    { source: 'group', groupId: 4, groupName: '北区', profileId: 5, profileName: '门店霸屏' },
    { source: 'group', groupId: 3, groupName: '门店', profileId: 6, profileName: '默认壁纸' },
  ],
  desiredVersionId: 12,
  desiredVersion: 2,
  appliedVersionId: 11,
  appliedVersion: 1,
  state: 'delivered',
  reason: '',
  drift: true,
  driftFields: ['wallpaper', 'topScreen'],
  taskId: 't1',
  reportedAt: '2026-11-26T02:01:00Z',
  settings: null,
  rule: 'device-beats-group, nearest-group-beats-farther',
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

describe('DeviceProfileCard', { timeout: 20_000 }, () => {
  let answer: DeviceProfile = governed;
  beforeEach(() => {
    mockedRequest.mockReset();
    mockedRequest.mockImplementation(async (config) =>
      config.url === '/systemCustom/device' ? (answer as never) : (null as never),
    );
  });
  afterEach(cleanup);

  it('says which profile, from which group, the version applied against the one coming, and the drift', async () => {
    answer = governed;
    await as(['device:view', 'systemCustom:view']);
    renderPage(<DeviceProfileCard deviceId={9} />);
    expect((await screen.findByTestId('device-profile-name')).textContent).toBe('门店霸屏');
    expect(screen.getByTestId('device-profile-source').textContent).toBe('分组：北区');
    expect(screen.getByTestId('device-profile-applied').textContent).toBe('v1 → v2');
    expect(screen.getByTestId('device-profile-state').textContent).toBe('已送达');
    expect(screen.getByTestId('device-profile-drift').textContent).toBe('偏离：壁纸、霸屏模式');
    // the losing candidate is listed after the winner
    expect(screen.getByText(/默认壁纸/).textContent).toContain('分组：门店');
  });

  it('says the device runs the system defaults when no profile governs it', async () => {
    answer = { ...governed, profile: null, source: null, candidates: [], drift: false, driftFields: [] };
    await as(['device:view'], 'en');
    renderPage(<DeviceProfileCard deviceId={9} />);
    expect(await screen.findByText('No profile governs this device: it runs the system defaults')).toBeTruthy();
  });
});
