import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderScreen } from '../testing/render';
import { RegisterForm } from './register-form';

vi.mock('@/lib/request', () => ({ request: vi.fn() }));
const mockedRequest = vi.mocked(request);

const SVG = '<svg xmlns="http://www.w3.org/2000/svg"></svg>';

function serve(routes: Record<string, (data: unknown) => unknown>) {
  mockedRequest.mockImplementation(async (config) => {
    const handler = routes[config.url];
    if (!handler) throw new Error(`unexpected call ${config.url}`);
    return handler(config.data) as never;
  });
}

const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url);
const fill = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });
const getCode = () => fireEvent.click(screen.getByText('获取验证码').closest('button') as HTMLButtonElement);

// numbered by the call that fetched it: the first picture is c1
const captchaOn = () => ({ enabled: true, captchaId: `c${calls('/captcha').length}`, svg: SVG });
const LOGIN = { token: 'new-token', status: 0, username: 'shop_01', is_super: 1, expiresIn: 900 };

// antd in jsdom renders slowly; these walk whole screens
describe('RegisterForm', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it('asks for a valid mobile and the captcha before sending a code', async () => {
    serve({ '/captcha': captchaOn });
    renderScreen(<RegisterForm />, { path: '/register' });
    await screen.findByAltText('图形验证码');

    getCode();
    expect(await screen.findByText('请输入正确格式的手机号')).toBeTruthy();

    fill('手机号', '13800138000');
    getCode();
    expect(await screen.findByText('请输入图形验证码')).toBeTruthy();
    expect(calls('/sms/send')).toHaveLength(0);
  });

  it('sends the code with the captcha, counts down, and shows a new captcha', async () => {
    serve({ '/captcha': captchaOn, '/sms/send': () => ({ countdown: 60 }) });
    renderScreen(<RegisterForm />, { path: '/register' });
    await screen.findByAltText('图形验证码');

    fill('手机号', '13800138000');
    fill('图形验证码', 'x7k2');
    getCode();

    const resend = (await screen.findByText('60 秒后可重新发送')).closest('button') as HTMLButtonElement;
    expect(resend.disabled).toBe(true);
    expect(calls('/sms/send')[0][0]).toMatchObject({
      method: 'post',
      noToken: true,
      data: { mobile: '13800138000', purpose: 'register', captchaId: 'c1', captcha: 'x7k2' },
    });
    await waitFor(() => expect(calls('/captcha')).toHaveLength(2));
    expect((screen.getByLabelText('图形验证码') as HTMLInputElement).value).toBe('');
  });

  it('checks the registration fields (SPEC §5 wording)', async () => {
    serve({ '/captcha': captchaOn });
    renderScreen(<RegisterForm />, { path: '/register' });
    await screen.findByAltText('图形验证码');
    fill('用户名', '1bad');
    fill('密码', 'abcdefgh');
    fill('确认密码', 'abcdefgx');
    fireEvent.click(screen.getByText(/^注\s*册$/).closest('button') as HTMLButtonElement);

    expect(await screen.findByText('用户名须为 4-20 位字母、数字或下划线，并以字母开头')).toBeTruthy();
    expect(screen.getByText('请输入正确格式的手机号')).toBeTruthy();
    expect(screen.getByText('请输入手机验证码')).toBeTruthy();
    expect(screen.getByText('密码须为 8-16 位，且包含大小写字母和数字')).toBeTruthy();
    expect(screen.getByText('两次输入的密码不一致')).toBeTruthy();
    expect(calls('/register')).toHaveLength(0);
  });

  it('registers an enterprise, signs it in and opens identity authentication', async () => {
    serve({ '/captcha': captchaOn, '/register': () => LOGIN });
    renderScreen(<RegisterForm />, { path: '/register' });
    await screen.findByAltText('图形验证码');

    fireEvent.click(screen.getByText('企业'));
    fill('用户名', 'shop_01');
    fill('手机号', '13800138000');
    fill('短信验证码', '123456');
    fill('密码', 'Abcdefg1');
    fill('确认密码', 'Abcdefg1');
    fireEvent.click(screen.getByText(/^注\s*册$/).closest('button') as HTMLButtonElement);

    expect((await screen.findByTestId('location')).textContent).toBe('/account/authenticate');
    expect(calls('/register')[0][0].data).toEqual({
      type: 'enterprise',
      username: 'shop_01',
      mobile: '13800138000',
      smsCode: '123456',
      password: 'Abcdefg1',
      confirmPassword: 'Abcdefg1',
    });
    expect(useSession.getState().token).toBe('new-token');
  });

  it("shows the server's field errors on the fields", async () => {
    serve({
      '/captcha': captchaOn,
      '/register': () => {
        throw Object.assign(new Error('username: taken'), {
          code: 400,
          data: {
            fields: [
              { field: 'username', message: 'user name already taken' },
              { field: 'smsCode', message: 'must be the 6-digit code', key: 'rule.smsCode' },
            ],
          },
        });
      },
    });
    renderScreen(<RegisterForm />, { path: '/register' });
    await screen.findByAltText('图形验证码');
    fill('用户名', 'shop_01');
    fill('手机号', '13800138000');
    fill('短信验证码', '123456');
    fill('密码', 'Abcdefg1');
    fill('确认密码', 'Abcdefg1');
    fireEvent.click(screen.getByText(/^注\s*册$/).closest('button') as HTMLButtonElement);

    expect(await screen.findByText('user name already taken')).toBeTruthy();
    // each field's error list animates in on its own
    expect(await screen.findByText('验证码为 6 位数字')).toBeTruthy();
    expect(screen.queryByTestId('location')).toBeNull();
  });
});
