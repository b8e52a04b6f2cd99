import type { RoleChoice, SubAccountView } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { i18n, loadDictionaries } from '@/lib/i18n';
import { http, resetPayloadCipher } from '@/lib/request';
import { useSession } from '@/lib/session';
import { customer } from '@/lib/testing/fixtures';
import { envelope, fakeServer } from '@/lib/testing/fake-server';
import { renderPage } from '@/lib/testing/render-page';
import SubAccountPage from './sub-account';

const API = '/apiAdmin';
const roles: RoleChoice[] = [
  { id: 7, code: 'operator', name: 'Operator', dataScope: 'department' },
  { id: 8, code: 'viewer', name: 'Viewer', dataScope: 'own' },
];
const clerk: SubAccountView = {
  id: 31,
  username: 'clerk01',
  nickname: '前台',
  mobile: '13900000001',
  email: '',
  state: 'active',
  roles: [roles[0]],
  departmentId: null,
  departmentName: null,
  isSuper: 2,
  createdAt: '2024-03-01T02:00:00Z',
  lastLoginAt: null,
};

const departments = [
  {
    id: 3,
    name: '总部',
    parentId: null,
    sort: 0,
    userCount: 1,
    deviceCount: 0,
    children: [{ id: 4, name: '华东', parentId: 3, sort: 0, userCount: 1, deviceCount: 0, children: [] }],
  },
];

let server: ReturnType<typeof fakeServer>;
const callsTo = (url: string) => server.callsTo(`${API}${url}`);
const buttonIn = (root: HTMLElement, text: string | RegExp) =>
  within(root).getByText(text).closest('button') as HTMLButtonElement;
const dialogOf = async (title: string) =>
  (await screen.findAllByText(title)).map((el) => el.closest<HTMLElement>('.ant-modal')).find(Boolean) as HTMLElement;
const fieldError = (input: HTMLElement) =>
  input.closest('.ant-form-item')?.querySelector('.ant-form-item-explain')?.textContent ?? '';

/** antd's breakpoints read media queries: answer them as a window `width` pixels wide would. */
function windowWidth(width: number) {
  window.matchMedia = ((query: string) => {
    const min = /min-width:\s*(\d+)/.exec(query);
    const max = /max-width:\s*(\d+)/.exec(query);
    const matches = (!min || width >= Number(min[1])) && (!max || width <= Number(max[1]));
    return {
      matches,
      media: query,
      onchange: null,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      addListener: () => undefined,
      removeListener: () => undefined,
      dispatchEvent: () => false,
    };
  }) as typeof window.matchMedia;
}
const inertMatchMedia = window.matchMedia;

beforeAll(() => loadDictionaries());
afterAll(() => {
  window.matchMedia = inertMatchMedia;
});

// a full antd table and modals render slowly in jsdom on a busy machine
describe('SubAccountPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    await act(() => i18n.changeLanguage('zh'));
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    windowWidth(1280);
    resetPayloadCipher();
    server = fakeServer(http)
      .on('GET', `${API}/publicKey`, envelope({ publicKey: '', mockServer: true, scheme: 'off' }))
      .on('GET', `${API}/system/subAccount/list`, envelope({ list: [clerk], total: 1 }))
      .on('GET', `${API}/system/subAccount/roles`, envelope(roles))
      .on('GET', `${API}/system/department/tree`, envelope(departments));
  });
  afterEach(() => {
    cleanup();
    server.restore();
  });

  it('tells a sub-account without the user permission that it cannot manage users, without calling the server', async () => {
    useSession.getState().setUserInfo(customer({ is_super: 2 }));
    renderPage(<SubAccountPage />);
    expect(await screen.findByText('你没有管理用户的权限')).toBeTruthy();
    expect(screen.getByText('返回个人中心')).toBeTruthy();
    expect(callsTo('/system/subAccount/list')).toHaveLength(0);
  });

  it('lists the sub-accounts with their roles and state, and searches', async () => {
    useSession.getState().setUserInfo(customer());
    renderPage(<SubAccountPage />);
    const row = (await screen.findByText('clerk01')).closest('tr') as HTMLElement;
    expect(within(row).getByText('前台')).toBeTruthy();
    expect(within(row).getByText('设备操作员')).toBeTruthy();
    expect(within(row).getByText('已启用')).toBeTruthy();
    expect(within(row).getByText('从未登录')).toBeTruthy();
    expect(callsTo('/system/subAccount/list')[0].params).toMatchObject({ pageNo: 1, pageSize: 20 });
    const search = screen.getByPlaceholderText('搜索用户名、昵称、手机号或邮箱');
    fireEvent.change(search, { target: { value: ' clerk ' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() =>
      expect(callsTo('/system/subAccount/list').at(-1)?.params).toMatchObject({ keyword: 'clerk', pageNo: 1 }),
    );
    fireEvent.click(screen.getByText('已禁用', { selector: '.ant-segmented-item-label' }));
    await waitFor(() => expect(callsTo('/system/subAccount/list').at(-1)?.params).toMatchObject({ state: 'disabled' }));
  });

  it('creates a sub-account after checking the form', async () => {
    useSession.getState().setUserInfo(customer());
    server.on('POST', `${API}/system/subAccount/create`, (call) =>
      envelope({ ...clerk, id: 32, ...(call.body as object) }),
    );
    renderPage(<SubAccountPage />);
    await screen.findByText('clerk01');
    fireEvent.click(screen.getByText('新建子账号', { selector: 'button span' }));
    const dialog = await dialogOf('新建子账号');
    const username = within(dialog).getByPlaceholderText('用于登录，如 clerk01');
    const password = within(dialog).getByPlaceholderText('8-16 位，须包含大小写字母和数字');
    const confirm = within(dialog).getByPlaceholderText('请再次输入初始密码');
    const mobile = within(dialog).getByPlaceholderText('可不填，填写后可用手机号登录');
    fireEvent.change(username, { target: { value: '1bad' } });
    fireEvent.change(mobile, { target: { value: '123' } });
    fireEvent.change(password, { target: { value: 'Passw0rd99' } });
    fireEvent.change(confirm, { target: { value: 'Passw0rd98' } });
    fireEvent.click(buttonIn(dialog, /^创\s*建$/));
    await waitFor(() => expect(fieldError(username)).toBe('用户名须为 4-20 位字母、数字或下划线，以字母开头'));
    expect(fieldError(mobile)).toBe('请输入正确的手机号');
    expect(fieldError(confirm)).toBe('两次输入的密码不一致');
    expect(callsTo('/system/subAccount/create')).toHaveLength(0);

    fireEvent.change(username, { target: { value: 'clerk02' } });
    fireEvent.change(mobile, { target: { value: '' } });
    fireEvent.change(confirm, { target: { value: 'Passw0rd99' } });
    // the last picker of the form: roles (the department picker comes before it)
    fireEvent.mouseDown(within(dialog).getAllByRole('combobox').at(-1)!);
    fireEvent.click(
      await screen.findByText('设备查看员', {
        selector: '.ant-select-item-option-content span, .ant-select-item-option-content',
      }),
    );
    fireEvent.click(buttonIn(dialog, /^创\s*建$/));
    await waitFor(() => expect(callsTo('/system/subAccount/create')).toHaveLength(1));
    expect(callsTo('/system/subAccount/create')[0].body).toEqual({
      username: 'clerk02',
      nickname: '',
      mobile: '',
      email: '',
      password: 'Passw0rd99',
      confirmPassword: 'Passw0rd99',
      roleIds: [8],
      departmentId: null,
    });
    expect(await screen.findByText('子账号已创建')).toBeTruthy();
  });

  it("shows the server's refusal of a taken user name under the field", async () => {
    useSession.getState().setUserInfo(customer());
    server.on('POST', `${API}/system/subAccount/create`, {
      status: 400,
      body: {
        code: 400,
        msg: 'username: this user name is taken',
        data: { fields: [{ field: 'username', message: 'this user name is taken', key: 'auth.usernameTaken' }] },
      },
    });
    renderPage(<SubAccountPage />);
    await screen.findByText('clerk01');
    fireEvent.click(screen.getByText('新建子账号', { selector: 'button span' }));
    const dialog = await dialogOf('新建子账号');
    const username = within(dialog).getByPlaceholderText('用于登录，如 clerk01');
    fireEvent.change(username, { target: { value: 'clerk01' } });
    fireEvent.change(within(dialog).getByPlaceholderText('8-16 位，须包含大小写字母和数字'), {
      target: { value: 'Passw0rd99' },
    });
    fireEvent.change(within(dialog).getByPlaceholderText('请再次输入初始密码'), { target: { value: 'Passw0rd99' } });
    fireEvent.click(buttonIn(dialog, /^创\s*建$/));
    await waitFor(() => expect(fieldError(username)).toBe('该用户名已被占用'));
  });

  it('disables a sub-account after a confirmation', async () => {
    useSession.getState().setUserInfo(customer());
    server.on('POST', `${API}/system/subAccount/state`, envelope({ ...clerk, state: 'disabled' }));
    renderPage(<SubAccountPage />);
    const row = (await screen.findByText('clerk01')).closest('tr') as HTMLElement;
    fireEvent.click(buttonIn(row, '更多'));
    fireEvent.click(await screen.findByText('禁用', { selector: '.ant-dropdown-menu-title-content' }));
    const dialog = await dialogOf('禁用 clerk01？');
    fireEvent.click(buttonIn(dialog, /确\s*定/));
    await waitFor(() =>
      expect(callsTo('/system/subAccount/state').map((c) => c.body)).toEqual([{ id: 31, state: 'disabled' }]),
    );
    expect(await screen.findByText('子账号已禁用')).toBeTruthy();
  });

  it('offers a department-scoped user only the roles and departments it may give', async () => {
    useSession
      .getState()
      .setUserInfo(
        customer({ is_super: 2, dataScope: 'department', departmentId: 4, permissions: ['system:user:edit'] }),
      );
    server.on(
      'GET',
      `${API}/system/subAccount/roles`,
      envelope([...roles, { id: 9, code: 'boss', name: 'Boss', dataScope: 'all' }]),
    );
    renderPage(<SubAccountPage />);
    await screen.findByText('clerk01');
    fireEvent.click(screen.getByText('新建子账号', { selector: 'button span' }));
    const dialog = await dialogOf('新建子账号');

    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: '角色' }));
    const options = () =>
      [...document.querySelectorAll('.ant-select-item-option')].map((o) => ({
        text: o.textContent ?? '',
        disabled: o.classList.contains('ant-select-item-option-disabled'),
      }));
    await waitFor(() => expect(options()).toHaveLength(3));
    // a role seeing the whole account is wider than the user's own scope: shown, said why, not choosable
    expect(options().filter((o) => o.disabled)).toEqual([
      { text: 'Boss数据权限超出你自己的，不能授予', disabled: true },
    ]);

    // a new user starts in the user's own department; only it and those below can be chosen, none is no choice
    expect(within(dialog).getByTitle('华东')).toBeTruthy();
    fireEvent.mouseDown(within(dialog).getByRole('combobox', { name: '部门' }));
    await waitFor(() => expect(document.querySelectorAll('.ant-select-tree-treenode').length).toBeGreaterThan(1));
    const disabled = [...document.querySelectorAll('.ant-select-tree-treenode-disabled')].map((n) => n.textContent);
    expect(disabled).toEqual(['总部']);
    expect(dialog.querySelector('.ant-select-clear')).toBeNull();
  });

  it('edits roles and resets the password', async () => {
    useSession.getState().setUserInfo(customer());
    server
      .on('POST', `${API}/system/subAccount/update`, (call) => envelope({ ...clerk, ...(call.body as object) }))
      .on('POST', `${API}/system/subAccount/resetPassword`, envelope(null));
    renderPage(<SubAccountPage />);
    const row = (await screen.findByText('clerk01')).closest('tr') as HTMLElement;
    fireEvent.click(buttonIn(row, '编辑'));
    const dialog = await dialogOf('编辑 clerk01');
    await waitFor(() =>
      expect((within(dialog).getByPlaceholderText('如：前台小王（可不填）') as HTMLInputElement).value).toBe('前台'),
    );
    fireEvent.change(within(dialog).getByPlaceholderText('可不填'), { target: { value: 'desk@example.com' } });
    fireEvent.click(buttonIn(dialog, /保\s*存/));
    await waitFor(() =>
      expect(callsTo('/system/subAccount/update').map((c) => c.body)).toEqual([
        {
          id: 31,
          nickname: '前台',
          mobile: '13900000001',
          email: 'desk@example.com',
          roleIds: [7],
          departmentId: null,
        },
      ]),
    );

    fireEvent.click(buttonIn(row, '更多'));
    fireEvent.click(await screen.findByText('重置密码', { selector: '.ant-dropdown-menu-title-content' }));
    const reset = await dialogOf('重置 clerk01 的密码');
    fireEvent.change(within(reset).getByPlaceholderText('8-16 位，须包含大小写字母和数字'), {
      target: { value: 'Reset0Passw0rd' },
    });
    fireEvent.change(within(reset).getByPlaceholderText('请再次输入初始密码'), { target: { value: 'Reset0Passw0rd' } });
    fireEvent.click(buttonIn(reset, /重置密码/));
    await waitFor(() =>
      expect(callsTo('/system/subAccount/resetPassword').map((c) => c.body)).toEqual([
        { id: 31, password: 'Reset0Passw0rd', confirmPassword: 'Reset0Passw0rd' },
      ]),
    );
    expect(await screen.findByText('密码已重置，该子账号的登录会话已全部退出')).toBeTruthy();
  });

  it('filters by department and role, shows the department, and signs a user out after a confirmation', async () => {
    useSession.getState().setUserInfo(customer());
    server
      .on(
        'GET',
        `${API}/system/subAccount/list`,
        envelope({ list: [{ ...clerk, departmentId: 4, departmentName: '华东' }], total: 1 }),
      )
      .on('POST', `${API}/system/subAccount/logout`, envelope({ sessions: 2 }));
    renderPage(<SubAccountPage />);
    const row = (await screen.findByText('clerk01')).closest('tr') as HTMLElement;
    expect(within(row).getByText('华东')).toBeTruthy();

    fireEvent.mouseDown(screen.getByRole('combobox', { name: '部门（含下级）' }));
    fireEvent.click(await screen.findByText('总部', { selector: '.ant-select-tree-title' }));
    await waitFor(() => expect(callsTo('/system/subAccount/list').at(-1)?.params).toMatchObject({ departmentId: 3 }));
    fireEvent.mouseDown(screen.getByRole('combobox', { name: '角色' }));
    fireEvent.click(await screen.findByText('设备查看员', { selector: '.ant-select-item-option-content' }));
    await waitFor(() =>
      expect(callsTo('/system/subAccount/list').at(-1)?.params).toMatchObject({
        departmentId: 3,
        roleId: 8,
        pageNo: 1,
      }),
    );

    fireEvent.click(buttonIn(row, '更多'));
    fireEvent.click(await screen.findByText('强制下线', { selector: '.ant-dropdown-menu-title-content' }));
    const confirm = await dialogOf('强制 clerk01 下线？');
    fireEvent.click(buttonIn(confirm, /确\s*定/));
    await waitFor(() => expect(callsTo('/system/subAccount/logout').map((c) => c.body)).toEqual([{ id: 31 }]));
    expect(await screen.findByText('已结束 2 个登录会话')).toBeTruthy();
  });

  it('keeps to account, state and icon actions on a phone', async () => {
    windowWidth(375);
    useSession.getState().setUserInfo(customer());
    renderPage(<SubAccountPage />);
    const row = (await screen.findByText('clerk01')).closest('tr') as HTMLElement;
    expect(within(row).getByText('已启用')).toBeTruthy();
    expect(within(row).queryByText('设备操作员')).toBeNull();
    expect(within(row).queryByText('编辑')).toBeNull();
    fireEvent.click(within(row).getByRole('button', { name: '编辑' }));
    expect(await dialogOf('编辑 clerk01')).toBeTruthy();
  });
});
