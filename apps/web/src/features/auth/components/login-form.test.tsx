import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderScreen } from '../testing/render';
import { LoginForm } from './login-form';

vi.mock('@/lib/request', () => ({ request: vi.fn() }));
const mockedRequest = vi.mocked(request);

const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><text>ab12</text></svg>';

function serve(routes: Record<string, (data: unknown) => unknown>) {
  mockedRequest.mockImplementation(async (config) => {
    const handler = routes[config.url];
    if (!handler) throw new Error(`unexpected call ${config.url}`);
    return handler(config.data) as never;
  });
}

const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url);

const fill = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

const submit = () => fireEvent.click(screen.getByText(/^登\s*录$/).closest('button') as HTMLButtonElement);

// antd in jsdom renders slowly; these walk whole screens
describe('LoginForm', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it('says its field errors again in the new language after a switch', async () => {
    serve({ '/captcha': () => ({ enabled: true, captchaId: 'c1', svg: SVG }) });
    renderScreen(<LoginForm />, { path: '/login' });
    await screen.findByAltText('图形验证码');
    submit();
    expect(await screen.findByText('用户名不能为空')).toBeTruthy();
    await act(() => i18n.changeLanguage('en'));
    expect(screen.queryByText('用户名不能为空')).toBeNull();
    expect(document.body.textContent).not.toMatch(/\p{Script=Han}/u);
  });

  it('draws a new captcha shortly before the one on screen lapses', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      serve({
        '/captcha': () => ({ enabled: true, captchaId: `c${calls('/captcha').length}`, svg: SVG, expiresIn: 60 }),
      });
      renderScreen(<LoginForm />, { path: '/login' });
      await screen.findByAltText('图形验证码');
      expect(calls('/captcha')).toHaveLength(1);
      // a tenth of its life (6 s) before the 60 s are over
      await act(() => vi.advanceTimersByTimeAsync(53_000));
      expect(calls('/captcha')).toHaveLength(1);
      await act(() => vi.advanceTimersByTimeAsync(1_500));
      expect(calls('/captcha')).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('explains what is missing before calling the server', async () => {
    serve({ '/captcha': () => ({ enabled: true, captchaId: 'c1', svg: SVG }) });
    renderScreen(<LoginForm />, { path: '/login' });
    await screen.findByAltText('图形验证码');
    fill('密码', '12345');
    submit();
    expect(await screen.findByText('用户名不能为空')).toBeTruthy();
    expect(screen.getByText('密码不能少于6位')).toBeTruthy();
    expect(screen.getByText('请输入图形验证码')).toBeTruthy();
    expect(calls('/user/v1/login')).toHaveLength(0);
  });

  it('signs in with the captcha and goes to the page the guard kept', async () => {
    serve({
      '/captcha': () => ({ enabled: true, captchaId: 'c1', svg: SVG }),
      '/user/v1/login': () => ({ token: 'tok', status: 1, username: 'admin1', is_super: 1, expiresIn: 900 }),
    });
    renderScreen(<LoginForm />, { path: '/login', at: '/login?redirect=%2Fdevice%3Fa%3D1' });

    const img = (await screen.findByAltText('图形验证码')) as HTMLImageElement;
    expect(img.src.startsWith('data:image/svg+xml;utf8,')).toBe(true);
    expect(decodeURIComponent(img.src.split(',')[1])).toBe(SVG);

    fill('用户名', ' admin1 ');
    fill('密码', 'secret1');
    fill('图形验证码', 'ab12');
    submit();

    expect((await screen.findByTestId('location')).textContent).toBe('/device?a=1');
    expect(calls('/user/v1/login')[0][0]).toMatchObject({
      method: 'post',
      noToken: true,
      data: { username: 'admin1', password: 'secret1', captchaId: 'c1', captcha: 'ab12' },
    });
    expect(useSession.getState().token).toBe('tok');
  });

  it('reports a login answer without a token and shows a new captcha', async () => {
    serve({
      '/captcha': () => ({ enabled: true, captchaId: `c${calls('/captcha').length}`, svg: SVG }),
      '/user/v1/login': () => ({ status: 1, username: 'admin1' }),
    });
    renderScreen(<LoginForm />, { path: '/login' });
    await screen.findByAltText('图形验证码');
    fill('用户名', 'admin1');
    fill('密码', 'secret1');
    fill('图形验证码', 'ab12');
    submit();

    expect(await screen.findByText('登录接口异常，未正确返回token')).toBeTruthy();
    await waitFor(() => expect(calls('/captcha')).toHaveLength(2));
    expect((screen.getByLabelText('图形验证码') as HTMLInputElement).value).toBe('');
    expect(useSession.getState().token).toBe('');
    expect(screen.queryByTestId('location')).toBeNull();
  });

  it('refreshes the captcha on a click and after a refused login, marking a wrong one', async () => {
    serve({
      '/captcha': () => ({ enabled: true, captchaId: 'c', svg: SVG }),
      '/user/v1/login': () => {
        throw Object.assign(new Error('captcha: graphic captcha is wrong or expired'), {
          code: 400,
          data: {
            fields: [{ field: 'captcha', message: 'graphic captcha is wrong or expired', key: 'auth.captchaWrong' }],
          },
        });
      },
    });
    renderScreen(<LoginForm />, { path: '/login' });
    await screen.findByAltText('图形验证码');
    fireEvent.click(screen.getByLabelText('看不清？点击换一张'));
    await waitFor(() => expect(calls('/captcha')).toHaveLength(2));

    fill('用户名', 'admin1');
    fill('密码', 'secret1');
    fill('图形验证码', 'ab12');
    submit();
    await waitFor(() => expect(calls('/captcha')).toHaveLength(3));
    expect(await screen.findByText('图形验证码错误或已过期')).toBeTruthy();
    expect(screen.queryByTestId('location')).toBeNull();
  });

  it('hides the captcha when the server has it off and sends none', async () => {
    serve({
      '/captcha': () => ({ enabled: false, captchaId: '', svg: '' }),
      '/user/v1/login': () => ({ token: 'tok', status: 0, username: 'admin1', is_super: 1, expiresIn: 900 }),
    });
    renderScreen(<LoginForm />, { path: '/login' });
    await waitFor(() => expect(screen.queryByLabelText('图形验证码')).toBeNull());
    fill('用户名', 'admin1');
    fill('密码', 'secret1');
    submit();
    expect((await screen.findByTestId('location')).textContent).toBe('/');
    expect(calls('/user/v1/login')[0][0].data).toEqual({ username: 'admin1', password: 'secret1' });
  });

  it('speaks English after the switch', async () => {
    serve({ '/captcha': () => ({ enabled: false, captchaId: '', svg: '' }) });
    await act(() => i18n.changeLanguage('en'));
    renderScreen(<LoginForm />, { path: '/login' });
    fireEvent.click(screen.getByText('Sign in').closest('button') as HTMLButtonElement);
    expect(await screen.findByText('User name cannot be empty')).toBeTruthy();
    expect(screen.getByText('Password cannot be empty')).toBeTruthy();
  });
});
