import type { IdentityView, UserInfo } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import IdentityReviewPage from './review';

vi.mock('@/lib/request', () => ({ request: vi.fn(), get: vi.fn(), uploadFile: vi.fn() }));
const mockedRequest = vi.mocked(request);

const person: IdentityView = {
  id: 11,
  tenantId: 5,
  type: 'individual',
  status: 2,
  reason: null,
  realName: '张三',
  idNumber: '11010519491231002X',
  companyName: null,
  creditCode: null,
  legalPerson: null,
  images: { idBackKey: '/apiAdmin/objects/b.png?sig=1', idFrontKey: '/apiAdmin/objects/f.png?sig=1' },
  username: 'shop_01',
  mobile: '13800138000',
  submittedAt: '2024-03-01T02:00:00Z',
  reviewedAt: null,
};
const company: IdentityView = {
  ...person,
  id: 12,
  type: 'enterprise',
  realName: null,
  idNumber: null,
  companyName: '云打印科技有限公司',
  creditCode: '91350100M000100Y43',
  legalPerson: '李四',
  images: { licenceKey: '/apiAdmin/objects/l.png?sig=1' },
  username: 'cloud_co',
};

const staff: UserInfo = {
  id: 1,
  username: 'reviewer',
  mobile: null,
  avatar: '',
  is_super: 2,
  status: 1,
  is_authenticate: 1,
  attest_name: '',
  tenantKind: 'platform',
  dataScope: 'all',
  departmentId: null,
  admin: false,
  roles: ['Admin'],
  permissions: ['identity:review'],
};

function serve() {
  mockedRequest.mockImplementation(async (config) => {
    switch (config.url) {
      case '/system/identity/list':
        return { list: [person, company], total: 2 } as never;
      case '/system/identity/approve':
        return { ...person, status: 1 } as never;
      case '/system/identity/reject':
        return { ...person, status: 3 } as never;
      default:
        throw new Error(`unexpected call ${config.url}`);
    }
  });
}

const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);
const buttonIn = (root: HTMLElement, text: string | RegExp) =>
  within(root).getByText(text).closest('button') as HTMLButtonElement;
const rowOf = async (text: string) => (await screen.findByText(text)).closest('tr') as HTMLElement;

describe('IdentityReviewPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(staff);
    await act(() => i18n.changeLanguage('zh'));
    serve();
  });
  afterEach(cleanup);

  it('lists waiting submissions first, with identifiers partly hidden', async () => {
    renderPage(<IdentityReviewPage />);
    const row = await rowOf('shop_01');
    expect(within(row).getByText('110105********002X')).toBeTruthy();
    expect(within(await rowOf('cloud_co')).getByText('9135**********0Y43')).toBeTruthy();
    expect(calls('/system/identity/list')[0]).toMatchObject({
      method: 'get',
      params: { pageNo: 1, pageSize: 20, status: 2 },
    });
  });

  it('filters by status and keyword', async () => {
    renderPage(<IdentityReviewPage />);
    await rowOf('shop_01');
    fireEvent.click(screen.getByText('全部'));
    await waitFor(() => expect(calls('/system/identity/list').at(-1)?.params).toMatchObject({ status: undefined }));
    const search = screen.getByPlaceholderText('搜索账号、手机号、姓名或企业名称');
    fireEvent.change(search, { target: { value: ' 张三 ' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() =>
      expect(calls('/system/identity/list').at(-1)?.params).toMatchObject({ keyword: '张三', pageNo: 1 }),
    );
  });

  it('approves after a confirmation and reloads the list', async () => {
    renderPage(<IdentityReviewPage />);
    fireEvent.click(buttonIn(await rowOf('shop_01'), '通过'));
    const dialog = (await screen.findAllByText('确认通过该认证？'))
      .map((el) => el.closest<HTMLElement>('.ant-modal'))
      .find(Boolean) as HTMLElement;
    expect(within(dialog).getByText(/张三 即可使用/)).toBeTruthy();
    const before = calls('/system/identity/list').length;
    fireEvent.click(buttonIn(dialog, /^通\s*过$/));
    await waitFor(() => expect(calls('/system/identity/approve')).toHaveLength(1));
    expect(calls('/system/identity/approve')[0]).toMatchObject({ method: 'post', data: { id: 11 } });
    expect(await screen.findByText('已通过认证')).toBeTruthy();
    await waitFor(() => expect(calls('/system/identity/list').length).toBeGreaterThan(before));
  });

  it('rejects only with a reason of 2-200 characters', async () => {
    renderPage(<IdentityReviewPage />);
    fireEvent.click(buttonIn(await rowOf('cloud_co'), '驳回'));
    const dialog = (await screen.findByText('驳回认证')).closest('.ant-modal') as HTMLElement;
    expect(within(dialog).getByText('云打印科技有限公司')).toBeTruthy();

    fireEvent.click(buttonIn(dialog, /^驳\s*回$/));
    expect(await within(dialog).findByText('请填写驳回原因')).toBeTruthy();
    const reason = within(dialog).getByPlaceholderText(/身份证照片模糊/);
    fireEvent.change(reason, { target: { value: '糊' } });
    expect(await within(dialog).findByText('驳回原因须为 2-200 个字符')).toBeTruthy();
    expect(calls('/system/identity/reject')).toHaveLength(0);

    fireEvent.change(reason, { target: { value: ' 营业执照已过期 ' } });
    fireEvent.click(buttonIn(dialog, /^驳\s*回$/));
    await waitFor(() => expect(calls('/system/identity/reject')).toHaveLength(1));
    expect(calls('/system/identity/reject')[0].data).toEqual({ id: 12, reason: '营业执照已过期' });
    expect(await screen.findByText('已驳回认证')).toBeTruthy();
  });

  it('shows everything in the drawer, documents in reading order', async () => {
    renderPage(<IdentityReviewPage />);
    fireEvent.click(buttonIn(await rowOf('shop_01'), '详情'));
    const drawer = (await screen.findByText('认证详情')).closest('.ant-drawer') as HTMLElement;
    expect(within(drawer).getByText('11010519491231002X')).toBeTruthy();
    const labels = within(drawer)
      .getAllByRole('img')
      .map((img) => img.getAttribute('alt'))
      .filter(Boolean);
    expect(labels).toEqual(['身份证人像面', '身份证国徽面']);
    expect(buttonIn(drawer, /^通\s*过$/)).toBeTruthy();
    expect(buttonIn(drawer, /^驳\s*回$/)).toBeTruthy();
  });

  it('offers no decisions to someone without the review permission', async () => {
    useSession.getState().setUserInfo({ ...staff, roles: [], permissions: [] });
    renderPage(<IdentityReviewPage />);
    const row = await rowOf('shop_01');
    expect(within(row).getByText('详情')).toBeTruthy();
    expect(within(row).queryByText('通过')).toBeNull();
  });
});
