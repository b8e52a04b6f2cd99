import type { ProfileView, SessionView } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { i18n, loadDictionaries } from '@/lib/i18n';
import { http, resetPayloadCipher } from '@/lib/request';
import { useSession } from '@/lib/session';
import { customer } from '@/lib/testing/fixtures';
import { envelope, fakeServer } from '@/lib/testing/fake-server';
import { renderPage } from '@/lib/testing/render-page';
import PersonInfoPage from './person-info';

const API = '/apiAdmin';

const profile: ProfileView = {
  id: 2,
  username: 'acme',
  nickname: '',
  email: '',
  mobile: '138****0000',
  avatar: '',
  is_super: 1,
  tenantKind: 'enterprise',
  tenantName: 'acme',
  authStatus: 1,
  attestName: '云打印科技有限公司',
  roles: [],
  createdAt: '2024-03-01T02:00:00Z',
};

const sessions: SessionView[] = [
  {
    id: 'a0000000-0000-4000-8000-000000000001',
    ip: '127.0.0.1',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36',
    createdAt: new Date().toISOString(),
    lastActiveAt: new Date().toISOString(),
    current: true,
  },
  {
    id: 'a0000000-0000-4000-8000-000000000002',
    ip: '10.1.2.3',
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Version/17.0 Mobile/15E148 Safari/604.1',
    createdAt: new Date(Date.now() - 3 * 3600_000).toISOString(),
    lastActiveAt: new Date(Date.now() - 3 * 3600_000).toISOString(),
    current: false,
  },
];

let server: ReturnType<typeof fakeServer>;
const bodiesOf = (url: string) => server.callsTo(`${API}${url}`).map((c) => c.body);
const buttonIn = (root: HTMLElement, text: string | RegExp) =>
  within(root).getByText(text).closest('button') as HTMLButtonElement;
const fieldError = (input: HTMLElement) =>
  input.closest('.ant-form-item')?.querySelector('.ant-form-item-explain')?.textContent ?? '';

beforeAll(() => loadDictionaries());

describe('PersonInfoPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    await act(() => i18n.changeLanguage('zh'));
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(customer());
    resetPayloadCipher();
    server = fakeServer(http)
      .on('GET', `${API}/publicKey`, envelope({ publicKey: '', mockServer: true, scheme: 'off' }))
      .on('GET', `${API}/user/v1/user/profile`, envelope(profile))
      .on('GET', `${API}/user/v1/user/sessions`, envelope(sessions));
  });
  afterEach(() => {
    cleanup();
    server.restore();
  });

  it('shows the profile with the masked mobile, tenant and identity', async () => {
    renderPage(<PersonInfoPage />);
    expect((await screen.findByTestId('profile-name')).textContent).toBe('acme');
    expect(screen.getByTestId('profile-mobile').textContent).toBe('138****0000');
    expect(screen.getByText('云打印科技有限公司')).toBeTruthy();
    expect(screen.getByText('已认证')).toBeTruthy();
    expect(screen.getByText('主账号')).toBeTruthy();
    expect(screen.getByText('管理子账号')).toBeTruthy();
  });

  it('checks the e-mail before saving, then saves the trimmed nickname and e-mail', async () => {
    server.on('POST', `${API}/user/v1/user/updateProfile`, (call) =>
      envelope({ ...profile, ...(call.body as object) }),
    );
    renderPage(<PersonInfoPage />);
    const email = await screen.findByPlaceholderText('用于接收通知，可不填');
    fireEvent.change(email, { target: { value: 'not-an-email' } });
    fireEvent.click(screen.getByText('保存资料'));
    await waitFor(() => expect(fieldError(email)).toBe('请输入正确的邮箱地址'));
    expect(bodiesOf('/user/v1/user/updateProfile')).toHaveLength(0);

    fireEvent.change(screen.getByPlaceholderText('给自己起个昵称（最多 20 个字符）'), { target: { value: '  小王 ' } });
    fireEvent.change(email, { target: { value: ' wang@example.com ' } });
    fireEvent.click(screen.getByText('保存资料'));
    await waitFor(() =>
      expect(bodiesOf('/user/v1/user/updateProfile')).toEqual([{ nickname: '小王', email: 'wang@example.com' }]),
    );
    expect(await screen.findByText('资料已保存')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('profile-name').textContent).toBe('小王'));
  });

  it("puts the server's field error under the field", async () => {
    server.on('POST', `${API}/user/v1/user/updateProfile`, {
      status: 400,
      body: {
        code: 400,
        msg: 'email: must be a valid e-mail address',
        data: { fields: [{ field: 'email', message: 'must be a valid e-mail address', key: 'rule.email' }] },
      },
    });
    renderPage(<PersonInfoPage />);
    const email = await screen.findByPlaceholderText('用于接收通知，可不填');
    fireEvent.change(email, { target: { value: 'odd@example.com' } });
    fireEvent.click(screen.getByText('保存资料'));
    await waitFor(() => expect(fieldError(email)).toBe('请输入正确的邮箱地址'));
  });

  it('uploads a new avatar and shows it in the header at once', async () => {
    const url = '/apiAdmin/objects/20240601/abc/me.png?exp=1&sig=x';
    server
      .on(
        'GET',
        `${API}/user/v1/user/getQnToken`,
        envelope({
          token: 'up-tok',
          uploadUrl: '/apiAdmin/upload',
          maxSize: 10485760,
          accept: ['image/png'],
          expiresIn: 3600,
        }),
      )
      .on('POST', `${API}/upload`, envelope({ key: '20240601/abc/me.png', url, size: 4, mime: 'image/png' }))
      .on('POST', `${API}/user/v1/user/updateAvatar`, envelope({ ...profile, avatar: url }));
    const { container } = renderPage(<PersonInfoPage />);
    await screen.findByTestId('profile-name');
    const input = container.querySelector('input[type=file]') as HTMLInputElement;
    fireEvent.change(input, {
      target: { files: [new File([new Uint8Array([137, 80, 78, 71])], 'me.png', { type: 'image/png' })] },
    });
    await waitFor(() => expect(bodiesOf('/user/v1/user/updateAvatar')).toEqual([{ avatarKey: '20240601/abc/me.png' }]));
    expect((server.callsTo(`${API}/upload`)[0].body as FormData).get('token')).toBe('up-tok');
    await waitFor(() => expect(useSession.getState().userInfo?.avatar).toBe(url));
    expect(await screen.findByText('头像已更新')).toBeTruthy();
  });

  it('refuses a file that is not a jpg or png before uploading it', async () => {
    const { container } = renderPage(<PersonInfoPage />);
    await screen.findByTestId('profile-name');
    const input = container.querySelector('input[type=file]') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['GIF89a'], 'me.gif', { type: 'image/gif' })] } });
    expect(await screen.findByText('上传图片只能是 JPG 或 PNG 格式')).toBeTruthy();
    expect(server.callsTo(`${API}/user/v1/user/getQnToken`)).toHaveLength(0);
  });

  it('changes the password, and shows a wrong old password under its field', async () => {
    let attempt = 0;
    server.on('POST', `${API}/user/v1/user/changePassword`, () =>
      ++attempt === 1
        ? {
            status: 400,
            body: {
              code: 400,
              msg: 'oldPassword: the old password is wrong',
              data: {
                fields: [{ field: 'oldPassword', message: 'the old password is wrong', key: 'auth.oldPasswordWrong' }],
              },
            },
          }
        : envelope(null),
    );
    renderPage(<PersonInfoPage />, '/?tab=password');
    const old = await screen.findByPlaceholderText('请输入当前密码');
    const next = screen.getByPlaceholderText('8-16 位，须包含大小写字母和数字');
    const confirm = screen.getByPlaceholderText('请再次输入新密码');
    fireEvent.change(old, { target: { value: 'Wrong0Pass' } });
    fireEvent.change(next, { target: { value: 'weak' } });
    fireEvent.change(confirm, { target: { value: 'weak' } });
    fireEvent.click(screen.getByText('修改密码', { selector: 'button span' }));
    await waitFor(() => expect(fieldError(next)).toBe('密码须为 8-16 位，包含大小写字母和数字'));
    expect(bodiesOf('/user/v1/user/changePassword')).toHaveLength(0);

    fireEvent.change(next, { target: { value: 'N3wPassword' } });
    fireEvent.change(confirm, { target: { value: 'N3wPassword' } });
    fireEvent.click(screen.getByText('修改密码', { selector: 'button span' }));
    await waitFor(() => expect(fieldError(old)).toBe('当前密码不正确'));

    fireEvent.change(old, { target: { value: 'Right0Pass' } });
    fireEvent.click(screen.getByText('修改密码', { selector: 'button span' }));
    expect(await screen.findByText('密码已修改，其他登录会话已退出')).toBeTruthy();
    expect(bodiesOf('/user/v1/user/changePassword').at(-1)).toEqual({
      oldPassword: 'Right0Pass',
      password: 'N3wPassword',
      confirmPassword: 'N3wPassword',
    });
  });

  it('lists the sessions and signs out another one after a confirmation', async () => {
    server.on('POST', `${API}/user/v1/user/revokeSession`, envelope(null));
    renderPage(<PersonInfoPage />, '/?tab=sessions');
    const rows = await screen.findAllByTestId('session-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByText('当前浏览器')).toBeTruthy();
    expect(within(rows[0]).queryByText('退出登录')).toBeNull();
    expect(within(rows[1]).getByText('Safari 17 · iOS')).toBeTruthy();
    expect(within(rows[1]).getByText(/IP 10\.1\.2\.3 · 3 小时前登录/)).toBeTruthy();
    fireEvent.click(buttonIn(rows[1], '退出登录'));
    const pop = (await screen.findByText('退出该会话？')).closest('.ant-popover') as HTMLElement;
    fireEvent.click(buttonIn(pop, /确\s*定/));
    await waitFor(() => expect(bodiesOf('/user/v1/user/revokeSession')).toEqual([{ id: sessions[1].id }]));
    expect(await screen.findByText('已退出该会话')).toBeTruthy();
  });
});
