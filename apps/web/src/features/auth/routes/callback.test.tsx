import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { pendingTicket } from '../api/social';
import { renderScreen } from '../testing/render';
import CallbackPage from './callback';

vi.mock('@/lib/request', () => ({ request: vi.fn() }));
const mockedRequest = vi.mocked(request);

function serve(routes: Record<string, (data: unknown) => unknown>) {
  mockedRequest.mockImplementation(async (config) => {
    const handler = routes[config.url];
    if (!handler) throw new Error(`unexpected call ${config.url}`);
    return handler(config.data) as never;
  });
}
const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url);

const AT = '/callback?code=the-code&state=the-state&iss=http%3A%2F%2Fidp';

describe('the /callback route', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    sessionStorage.clear();
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it('posts the whole callback query once and signs in with the answer', async () => {
    sessionStorage.setItem('cpc.social.redirect', '/device/index');
    serve({
      '/socialLogin': () => ({ token: 'social-token', status: 1, username: 'shop', is_super: 1, expiresIn: 900 }),
    });
    renderScreen(<CallbackPage />, { path: '/callback', at: AT });
    expect((await screen.findByTestId('location')).textContent).toBe('/device/index');
    expect(calls('/socialLogin')).toHaveLength(1);
    expect(calls('/socialLogin')[0][0].data).toEqual({ code: 'the-code', state: 'the-state', iss: 'http://idp' });
    expect(useSession.getState().token).toBe('social-token');
  });

  it("says SPEC §8's social-login message when the answer has no token", async () => {
    serve({ '/socialLogin': () => ({ status: 1, username: 'shop' }) });
    renderScreen(<CallbackPage />, { path: '/callback', at: AT });
    expect((await screen.findAllByText('第三方登录接口异常，未正确返回token')).length).toBeGreaterThan(0);
    expect(useSession.getState().token).toBe('');
    await act(() => i18n.changeLanguage('en'));
    expect(
      (await screen.findAllByText('Social login interface abnormal, token not correctly returned')).length,
    ).toBeGreaterThan(0);
  });

  it('offers an unknown identity the link form and registration with its ticket', async () => {
    serve({
      '/socialLogin': () => ({
        link: { ticket: 't-1', provider: 'corp', providerName: 'Corp SSO', email: 'a@idp.test', name: 'Alice' },
      }),
      '/captcha': () => ({ enabled: false, captchaId: '', svg: '', expiresIn: 300 }),
    });
    renderScreen(<CallbackPage />, { path: '/callback', at: AT });
    expect(await screen.findByText('关联 Corp SSO 账号')).toBeTruthy();
    expect(screen.getByText(/Alice/)).toBeTruthy();
    fireEvent.click(screen.getByText('注册新账号并关联').closest('button') as HTMLButtonElement);
    expect((await screen.findByTestId('location')).textContent).toBe('/register');
    expect(pendingTicket()).toEqual({ ticket: 't-1', provider: 'Corp SSO' });
  });
});
