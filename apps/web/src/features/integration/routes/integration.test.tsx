import type { AppKeyView, AppKeyWithSecret } from '@cpc/contracts/integration';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { i18n, loadDictionaries } from '@/lib/i18n';
import { http, resetPayloadCipher } from '@/lib/request';
import { useSession } from '@/lib/session';
import { customer } from '@/lib/testing/fixtures';
import { envelope, fakeServer } from '@/lib/testing/fake-server';
import { renderPage } from '@/lib/testing/render-page';
import IntegrationPage from './integration';

const API = '/apiAdmin';
const key: AppKeyView = {
  id: 4,
  appId: 'ak0123456789abcdef',
  name: '门店收银',
  state: 'active',
  callbackUrl: '',
  ipAllowList: [],
  rateLimit: null,
  effectiveRateLimit: 50,
  secretHint: '…x7Qa',
  callbackPrivate: false,
  createdAt: '2026-01-05T02:00:00Z',
  secretRotatedAt: '2026-01-05T02:00:00Z',
  lastUsedAt: null,
};
const SECRET = 'cpcs_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const NEW_SECRET = 'cpcs_00112233445566778899aabbccddeeff';

let server: ReturnType<typeof fakeServer>;
const callsTo = (url: string) => server.callsTo(`${API}${url}`);
const dialogOf = async (title: string) =>
  (await screen.findAllByText(title)).map((el) => el.closest<HTMLElement>('.ant-modal')).find(Boolean) as HTMLElement;
const fieldError = (input: HTMLElement) =>
  input.closest('.ant-form-item')?.querySelector('.ant-form-item-explain')?.textContent ?? '';
const buttonIn = (root: HTMLElement, text: string | RegExp) =>
  within(root).getByText(text).closest('button') as HTMLButtonElement;

beforeAll(() => loadDictionaries());

describe('IntegrationPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    await act(() => i18n.changeLanguage('zh'));
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(customer({ permissions: ['device:view', 'integration:manage', 'print:view'] }));
    resetPayloadCipher();
    server = fakeServer(http)
      .on('GET', `${API}/publicKey`, envelope({ publicKey: '', mockServer: true, scheme: 'off' }))
      .on('GET', `${API}/integration/key/list`, envelope({ list: [key], total: 1 }))
      .on('GET', `${API}/device/list`, envelope({ list: [], total: 0 }));
  });
  afterEach(() => {
    cleanup();
    server.restore();
  });

  it('checks the key form before sending, then shows the new secret once: closing drops it for good', async () => {
    server.on('POST', `${API}/integration/key/create`, (call) =>
      envelope({
        ...key,
        id: 5,
        appId: 'akfedcba9876543210',
        ...(call.body as object),
        secret: SECRET,
      } satisfies AppKeyWithSecret),
    );
    renderPage(<IntegrationPage />);
    await screen.findByText('门店收银');
    fireEvent.click(screen.getByText('新建密钥', { selector: 'button span' }));
    const dialog = await dialogOf('新建应用密钥');
    const name = within(dialog).getByPlaceholderText('例如：门店收银系统');
    const url = within(dialog).getByPlaceholderText('https://example.com/cpc/callback');
    const ips = within(dialog).getByLabelText('IP 白名单');
    fireEvent.change(url, { target: { value: 'ftp://example.com/cb' } });
    fireEvent.change(ips, { target: { value: '10.0.0.1\n300.1.1.1' } });
    fireEvent.click(buttonIn(dialog, /^创\s*建$/));
    await waitFor(() => expect(fieldError(name)).toBe('请输入名称'));
    expect(fieldError(url)).toBe('请输入 http:// 或 https:// 开头的地址，不含用户名和密码，最多 500 个字符');
    expect(fieldError(ips)).toBe('每一项须为 IPv4 或 IPv6 地址，或 CIDR 网段（如 10.0.0.0/8）');
    expect(callsTo('/integration/key/create')).toHaveLength(0);

    fireEvent.change(name, { target: { value: ' 小程序 ' } });
    fireEvent.change(url, { target: { value: 'https://shop.example.com/cb' } });
    fireEvent.change(ips, { target: { value: '10.0.0.1, 2001:db8::/32\n' } });
    fireEvent.click(buttonIn(dialog, /^创\s*建$/));
    const secretDialog = await dialogOf('密钥已创建');
    expect(within(secretDialog).getByTestId('secret-value').textContent).toBe(SECRET);
    expect(
      within(secretDialog).getByText('密钥只在此显示这一次，关闭后无法再次查看。如果遗失，只能轮换生成新密钥。'),
    ).toBeTruthy();
    expect(callsTo('/integration/key/create')[0].body).toEqual({
      name: '小程序',
      callbackUrl: 'https://shop.example.com/cb',
      ipAllowList: ['10.0.0.1', '2001:db8::/32'],
      rateLimit: null,
    });

    fireEvent.click(buttonIn(secretDialog, '我已保存，关闭'));
    await waitFor(() => expect(screen.queryByText(SECRET)).toBeNull());
    expect(document.body.textContent).not.toContain(SECRET);
    // the list is asked again, and it never carries a secret
    await waitFor(() => expect(callsTo('/integration/key/list').length).toBeGreaterThan(1));
  });

  it("sets a key's own rate limit in its form and checks it; the list shows the one in effect", async () => {
    server.on('POST', `${API}/integration/key/update`, (call) => {
      const body = call.body as { rateLimit: number | null };
      return envelope({
        ...key,
        ...(call.body as object),
        effectiveRateLimit: body.rateLimit ?? 50,
      } satisfies AppKeyView);
    });
    renderPage(<IntegrationPage />);
    const row = (await screen.findByText('门店收银')).closest('tr') as HTMLElement;
    expect(within(row).getByText('默认 50 次/秒')).toBeTruthy();
    fireEvent.click(within(row).getByTestId('key-more'));
    fireEvent.click(await screen.findByText('编辑'));
    const dialog = await dialogOf('编辑密钥 门店收银');
    const limit = within(dialog).getByPlaceholderText('留空使用默认值（50）');
    fireEvent.change(limit, { target: { value: '0' } });
    fireEvent.click(buttonIn(dialog, /^保\s*存$/));
    await waitFor(() => expect(fieldError(limit)).toBe('请输入 1 到 100000 之间的整数，或留空使用默认值'));
    expect(callsTo('/integration/key/update')).toHaveLength(0);
    fireEvent.change(limit, { target: { value: '20' } });
    fireEvent.click(buttonIn(dialog, /^保\s*存$/));
    await waitFor(() => expect(callsTo('/integration/key/update')).toHaveLength(1));
    expect(callsTo('/integration/key/update')[0].body).toEqual({
      id: 4,
      name: '门店收银',
      callbackUrl: '',
      ipAllowList: [],
      rateLimit: 20,
    });
  });

  it('warns in the list and the form when a callback points at an internal address, until it is changed', async () => {
    const local = { ...key, callbackUrl: 'http://192.168.1.20:8080/hook', callbackPrivate: true };
    server.on(
      'GET',
      `${API}/integration/key/list`,
      envelope({
        list: [local, { ...key, id: 6, name: '公网回调', callbackUrl: 'https://example.com/hook' }],
        total: 2,
      }),
    );
    renderPage(<IntegrationPage />);
    const row = (await screen.findByText('门店收银')).closest('tr') as HTMLElement;
    expect(within(row).getByTestId('callback-private').textContent).toContain('http://192.168.1.20:8080/hook');
    const other = screen.getByText('公网回调').closest('tr') as HTMLElement;
    expect(within(other).queryByTestId('callback-private')).toBeNull();
    fireEvent.click(within(row).getByTestId('key-more'));
    fireEvent.click(await screen.findByText('编辑'));
    const dialog = await dialogOf('编辑密钥 门店收银');
    const warning = await within(dialog).findByTestId('callback-private-warning');
    expect(warning.textContent).toContain('内部地址');
    fireEvent.change(within(dialog).getByDisplayValue('http://192.168.1.20:8080/hook'), {
      target: { value: 'https://example.com/hook' },
    });
    await waitFor(() => expect(within(dialog).queryByTestId('callback-private-warning')).toBeNull());
  });

  it('rotates a key after a warning and shows the new secret once', async () => {
    server.on(
      'POST',
      `${API}/integration/key/rotate`,
      envelope({ ...key, secretHint: '…eeff', secret: NEW_SECRET } satisfies AppKeyWithSecret),
    );
    renderPage(<IntegrationPage />);
    const row = (await screen.findByText('门店收银')).closest('tr') as HTMLElement;
    fireEvent.click(within(row).getByTestId('key-more'));
    fireEvent.click(await screen.findByText('轮换密钥'));
    const confirm = (await screen.findAllByText('轮换密钥 门店收银？'))[0].closest('.ant-modal') as HTMLElement;
    expect(
      within(confirm).getByText('将生成新的密钥，旧密钥立即失效，使用旧密钥的调用会被拒绝。新密钥只显示一次。'),
    ).toBeTruthy();
    expect(callsTo('/integration/key/rotate')).toHaveLength(0);
    fireEvent.click(buttonIn(confirm, /^轮\s*换$/));
    const secretDialog = await dialogOf('密钥已轮换');
    expect(within(secretDialog).getByTestId('secret-value').textContent).toBe(NEW_SECRET);
    expect(within(secretDialog).getByText(/旧密钥已立即失效/)).toBeTruthy();
    expect(callsTo('/integration/key/rotate')[0].body).toEqual({ id: 4 });
    fireEvent.click(buttonIn(secretDialog, '我已保存，关闭'));
    await waitFor(() => expect(screen.queryByText(NEW_SECRET)).toBeNull());
  });

  it('shows a markup error with its line, column and tag as it is typed, and previews valid markup', async () => {
    server.on('POST', `${API}/integration/markup/preview`, (call) => {
      const { content } = call.body as { content: string };
      if (content.includes('<IMG>'))
        return {
          status: 400,
          body: {
            code: 400,
            msg: 'content: <IMG> at line 2, column 1: the image cannot be fetched',
            data: {
              fields: [{ field: 'content', message: 'x' }],
              markup: {
                reason: 'bad_image',
                tag: 'IMG',
                position: 6,
                line: 2,
                column: 1,
                message: '<IMG> at line 2, column 1: the image cannot be fetched',
              },
            },
          },
        };
      return envelope({ lines: content.split('\n').map((l) => `[${l}]`), columns: 32, paperWidthMm: 58 });
    });
    renderPage(<IntegrationPage />);
    await screen.findByText('门店收银');
    fireEvent.click(screen.getByRole('tab', { name: '测试打印' }));
    const editor = await screen.findByTestId('markup-editor');
    // the sample receipt previews at once
    await waitFor(() => expect(screen.getByTestId('receipt').textContent).toContain('[<C>测试打印</C>]'));

    const before = callsTo('/integration/markup/preview').length;
    fireEvent.change(editor, { target: { value: 'Hello\n<C>Total 42.50' } });
    expect((await screen.findByTestId('markup-error')).textContent).toBe('第 2 行第 1 列，C 标签：标签没有闭合');
    expect(screen.getByRole('button', { name: /发送测试打印/ }).hasAttribute('disabled')).toBe(true);
    // refused markup never goes to the server
    expect(callsTo('/integration/markup/preview')).toHaveLength(before);

    fireEvent.change(editor, { target: { value: 'Hello\n<C>Total</C>' } });
    await waitFor(() => expect(screen.getByTestId('receipt').textContent).toBe('[Hello]\n[<C>Total</C>]'));
    await waitFor(() => expect(screen.queryByTestId('markup-error')).toBeNull());
    expect(screen.getByText('58 mm 纸宽，每行 32 列')).toBeTruthy();

    // what only the server can find (an image it cannot fetch) is shown the same way
    fireEvent.change(editor, { target: { value: 'Logo\n<IMG>https://example.com/x.png</IMG>' } });
    expect((await screen.findByTestId('markup-error')).textContent).toBe('第 2 行第 1 列，IMG 标签：图片无法使用');
  });

  it('shows only the print jobs to a user who may view them but not manage keys', async () => {
    useSession.getState().setUserInfo(customer({ permissions: ['device:view', 'print:view'] }));
    server.on('GET', `${API}/integration/job/list`, envelope({ list: [], total: 0 }));
    renderPage(<IntegrationPage />);
    expect(await screen.findByText('还没有打印任务')).toBeTruthy();
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['打印任务']);
    expect(callsTo('/integration/key/list')).toHaveLength(0);
  });
});
