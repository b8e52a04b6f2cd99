import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import { user } from '../utils/fixtures';
import { SettingsDrawer } from './settings-drawer';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);
const callsTo = (url: string, method = 'post') =>
  mockedRequest.mock.calls.filter(([c]) => c.url === url && c.method === method).map(([c]) => c);

const targets = [
  { priority: 'urgent', responseMinutes: 30, resolveMinutes: 240 },
  { priority: 'high', responseMinutes: 120, resolveMinutes: 1440 },
];

describe('SettingsDrawer', { timeout: 20_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/workOrder/targets')
        return (config.method === 'get' ? targets : (config.data as { targets: unknown[] }).targets) as never;
      if (config.url === '/workOrder/canned/list') return [] as never;
      throw new Error(`unexpected call ${config.url}`);
    });
  });
  afterEach(cleanup);

  it('shows the targets in hours and saves them in minutes (workOrder:settings)', async () => {
    useSession.getState().setUserInfo(user(['workOrder:handle', 'workOrder:settings'], 'platform'));
    renderPage(<SettingsDrawer open onClose={() => {}} />);
    const urgent = (await screen.findByTestId('work-order-target-urgent-response')) as HTMLInputElement;
    await waitFor(() => expect(urgent.value).toBe('0.5'));
    fireEvent.change(urgent, { target: { value: '1.5' } });
    fireEvent.click(screen.getByRole('button', { name: /保\s*存/ }));
    await waitFor(() =>
      expect(callsTo('/workOrder/targets')[0]?.data).toEqual({
        targets: [
          { priority: 'urgent', responseMinutes: 90, resolveMinutes: 240 },
          { priority: 'high', responseMinutes: 120, resolveMinutes: 1440 },
        ],
      }),
    );
  });

  it('staff without workOrder:settings read the targets only', async () => {
    useSession.getState().setUserInfo(user(['workOrder:handle'], 'platform'));
    renderPage(<SettingsDrawer open onClose={() => {}} />);
    const urgent = (await screen.findByTestId('work-order-target-urgent-response')) as HTMLInputElement;
    await waitFor(() => expect(urgent.value).toBe('0.5'));
    expect(urgent.disabled).toBe(true);
    expect(screen.queryByRole('button', { name: /保\s*存/ })).toBeNull();
  });
});
