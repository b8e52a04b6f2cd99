import type { AuthenticateState, IdentityView } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request, uploadFile } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderScreen } from '../testing/render';
import AuthenticatePage from './authenticate';

vi.mock('@/lib/request', () => ({ request: vi.fn(), get: vi.fn(), uploadFile: vi.fn() }));
const mockedRequest = vi.mocked(request);
const mockedUpload = vi.mocked(uploadFile);

const submission: IdentityView = {
  id: 7,
  tenantId: 3,
  type: 'individual',
  status: 3,
  reason: '身份证照片模糊',
  realName: '张三',
  idNumber: '11010519491231002X',
  companyName: null,
  creditCode: null,
  legalPerson: null,
  images: {
    idFront: '/apiAdmin/objects/20240101/a/front.jpg?exp=1&sig=s',
    idBack: '/apiAdmin/objects/20240101/a/back.jpg?exp=1&sig=s',
  },
  username: 'shop_01',
  mobile: '13800138000',
  submittedAt: '2024-01-01T08:00:00Z',
  reviewedAt: '2024-01-02T08:00:00Z',
};

let state: AuthenticateState;

function serve() {
  mockedRequest.mockImplementation(async (config) => {
    if (config.url === '/user/v1/user/authenticate' && config.method === 'get') return state as never;
    if (config.url === '/user/v1/user/authenticate' && config.method === 'post') {
      state = { status: 2, type: state.type, submission: { ...submission, status: 2, reason: null, reviewedAt: null } };
      return state as never;
    }
    throw new Error(`unexpected call ${config.method} ${config.url}`);
  });
}

const posted = () =>
  mockedRequest.mock.calls
    .filter(([c]) => c.url === '/user/v1/user/authenticate' && c.method === 'post')
    .map(([c]) => c.data);

const button = (text: string | RegExp) => screen.getByText(text).closest('button') as HTMLButtonElement;
const findButton = async (text: string | RegExp) =>
  (await screen.findByText(text)).closest('button') as HTMLButtonElement;

const fileInputs = () => Array.from(document.querySelectorAll<HTMLInputElement>('input[type=file]'));
const pick = (input: HTMLInputElement, file: File) => fireEvent.change(input, { target: { files: [file] } });
const image = (name: string, type: string, size = 1024) => {
  const file = new File(['x'], name, { type });
  Object.defineProperty(file, 'size', { value: size });
  return file;
};

// antd in jsdom renders slowly; these walk whole screens
describe('AuthenticatePage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    mockedUpload.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    URL.createObjectURL = vi.fn(() => 'blob:local');
    URL.revokeObjectURL = vi.fn();
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it('asks an individual for name, a valid ID number and both photos', async () => {
    state = { status: 0, type: 'individual', submission: null };
    serve();
    renderScreen(<AuthenticatePage />, { path: '/account/authenticate' });
    fireEvent.click(await findButton('提交认证'));
    expect(await screen.findByText('请输入真实姓名')).toBeTruthy();
    expect(screen.getByText('请输入身份证号')).toBeTruthy();
    expect(screen.getAllByText('请上传身份证正反面照片')).toHaveLength(1);

    fireEvent.change(screen.getByLabelText('身份证号'), { target: { value: '110105194912310021' } });
    expect(await screen.findByText('请输入正确格式的身份证号')).toBeTruthy();
    expect(posted()).toHaveLength(0);
  });

  it('refuses files that are not jpg/png or larger than 10MB, and uploads the rest with progress', async () => {
    state = { status: 0, type: 'individual', submission: null };
    serve();
    let progress: (p: number) => void = () => {};
    let finish: (v: { key: string; url: string }) => void = () => {};
    mockedUpload.mockImplementation((_file, onProgress) => {
      progress = (p) => onProgress?.(p, {} as never);
      return new Promise((resolve) => (finish = resolve));
    });
    renderScreen(<AuthenticatePage />, { path: '/account/authenticate' });
    await findButton('提交认证');
    // the picker's input is replaced after every choice, so it is looked up each time
    pick(fileInputs()[0], image('a.gif', 'image/gif'));
    expect(await screen.findByText('上传文件只能是 jpg 或 png 格式')).toBeTruthy();
    pick(fileInputs()[0], image('big.png', 'image/png', 10 * 1024 * 1024 + 1));
    expect(await screen.findByText('上传文件大小不能超过 10MB')).toBeTruthy();
    expect(mockedUpload).not.toHaveBeenCalled();

    pick(fileInputs()[0], image('front.png', 'image/png'));
    await waitFor(() => expect(mockedUpload).toHaveBeenCalledTimes(1));
    act(() => progress(42));
    expect(await screen.findByText('上传中 42%')).toBeTruthy();
    await act(async () => finish({ key: '20240101/k/front.png', url: '/apiAdmin/objects/20240101/k/front.png?sig=1' }));
    expect(await screen.findByLabelText('预览')).toBeTruthy();
    // the thumbnail now comes from the server's copy
    expect(document.querySelector('img[alt="人像面"]')?.getAttribute('src')).toBe(
      '/apiAdmin/objects/20240101/k/front.png?sig=1',
    );
  });

  it('submits an individual and then shows the waiting result with the details', async () => {
    state = { status: 0, type: 'individual', submission: null };
    serve();
    mockedUpload
      .mockResolvedValueOnce({ key: '20240101/k/front.png', url: '/o/front' })
      .mockResolvedValueOnce({ key: '20240101/k/back.png', url: '/o/back' });
    renderScreen(<AuthenticatePage />, { path: '/account/authenticate' });
    await findButton('提交认证');

    fireEvent.change(screen.getByLabelText('真实姓名'), { target: { value: ' 张三 ' } });
    fireEvent.change(screen.getByLabelText('身份证号'), { target: { value: '11010519491231002x' } });
    pick(fileInputs()[0], image('front.png', 'image/png'));
    await screen.findByLabelText('预览');
    pick(fileInputs()[1], image('back.png', 'image/png'));
    await waitFor(() => expect(screen.getAllByLabelText('预览')).toHaveLength(2));
    await waitFor(() => expect(screen.queryByText('请上传身份证正反面照片')).toBeNull());

    fireEvent.click(button('提交认证'));
    expect(await screen.findByText('资料已提交，等待审核')).toBeTruthy();
    expect(posted()).toEqual([
      {
        type: 'individual',
        realName: '张三',
        idNumber: '11010519491231002X',
        idFrontKey: '20240101/k/front.png',
        idBackKey: '20240101/k/back.png',
      },
    ]);
    expect(screen.getByText('提交的资料')).toBeTruthy();
  });

  it('shows why it failed and re-authenticates from the rejected details', async () => {
    state = { status: 3, type: 'individual', submission };
    serve();
    renderScreen(<AuthenticatePage />, { path: '/account/authenticate' });
    expect(await screen.findByText('认证失败', { selector: '.ant-result-title' })).toBeTruthy();
    expect(screen.getByText(/失败原因：身份证照片模糊/)).toBeTruthy();

    fireEvent.click(button('重新认证'));
    expect(((await screen.findByLabelText('真实姓名')) as HTMLInputElement).value).toBe('张三');
    expect((screen.getByLabelText('身份证号') as HTMLInputElement).value).toBe('11010519491231002X');
    // the kept images travel with the resubmission without being uploaded again
    fireEvent.click(button('提交认证'));
    await waitFor(() => expect(posted()).toHaveLength(1));
    expect(posted()[0]).toMatchObject({ idFrontKey: '20240101/a/front.jpg', idBackKey: '20240101/a/back.jpg' });
    expect(mockedUpload).not.toHaveBeenCalled();
  });

  it('asks an enterprise for its licence', async () => {
    state = { status: 0, type: 'enterprise', submission: null };
    serve();
    renderScreen(<AuthenticatePage />, { path: '/account/authenticate' });
    fireEvent.click(await findButton('提交认证'));
    expect(await screen.findByText('请输入企业名称')).toBeTruthy();
    expect(screen.getByText('请输入统一社会信用代码')).toBeTruthy();
    expect(screen.getByText('请输入法人姓名')).toBeTruthy();
    expect(screen.getByText('请上传营业执照图片')).toBeTruthy();
  });

  it('lets an authenticated tenant into the console, making the guard load the user again', async () => {
    state = { status: 1, type: 'individual', submission: { ...submission, status: 1, reason: null } };
    serve();
    useSession.getState().setRoutes([]);
    renderScreen(<AuthenticatePage />, { path: '/account/authenticate' });
    const result = (await screen.findByText('认证成功', { selector: '.ant-result-title' })).closest(
      '.ant-result',
    ) as HTMLElement;
    fireEvent.click(
      within(result)
        .getByText(/进入控制台/)
        .closest('button') as HTMLButtonElement,
    );
    expect((await screen.findByTestId('location')).textContent).toBe('/');
    expect(useSession.getState().routes).toBeNull();
    expect(useSession.getState().token).toBe('tok');
  });

  it('sends a visitor without a session to the login page', async () => {
    useSession.getState().reset();
    state = { status: 0, type: 'individual', submission: null };
    serve();
    renderScreen(<AuthenticatePage />, { path: '/account/authenticate' });
    expect((await screen.findByTestId('location')).textContent).toBe('/login');
    expect(mockedRequest).not.toHaveBeenCalled();
  });
});
