import type { UserInfo } from '@cpc/contracts';
import type { PermissionSectionView, RoleView } from '@cpc/contracts/role';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { RequestError, request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import RoleManagementPage from './role-management';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const role = (over: Partial<RoleView>): RoleView => ({
  id: 1,
  code: 'operator',
  name: 'Operator',
  description: '',
  dataScope: 'all',
  builtin: true,
  locked: false,
  permissions: ['device:view', 'device:edit'],
  memberCount: 0,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
  ...over,
});
const operator = role({});
const clerks = role({ id: 2, code: 'clerk', name: '店员', builtin: false, memberCount: 3, dataScope: 'own' });
const catalogue: PermissionSectionView[] = [
  {
    key: 'device',
    name: { zh: '我的设备', en: 'My devices' },
    permissions: [
      { code: 'device:view', name: { zh: '查看设备', en: 'View devices' }, audience: 'tenant', held: true },
      { code: 'device:edit', name: { zh: '编辑设备', en: 'Edit devices' }, audience: 'tenant', held: true },
    ],
  },
  {
    key: 'system',
    name: { zh: '系统管理', en: 'Administration' },
    permissions: [
      { code: 'system:role:edit', name: { zh: '管理角色', en: 'Manage roles' }, audience: 'tenant', held: true },
    ],
  },
];
const main = (permissions: string[]): UserInfo => ({
  id: 7,
  username: 'shop',
  mobile: null,
  avatar: '',
  is_super: 1,
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

const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

describe('RoleManagementPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(main(['system:role:edit', 'device:view', 'device:edit']));
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      switch (config.url) {
        case '/system/role/list':
          return { list: [operator, clerks], total: 2 } as never;
        case '/system/role/permissions':
          return catalogue as never;
        case '/system/role/create': {
          const body = config.data as Partial<RoleView>;
          if (body.code === 'operator')
            throw new RequestError('code: a role with this code already exists', 400, 400, {
              fields: [{ field: 'code', message: 'a role with this code already exists', key: 'role.codeTaken' }],
            });
          return role({ ...body, id: 9, builtin: false }) as never;
        }
        case '/system/role/delete':
          return null as never;
        case '/system/role/copy': {
          const body = config.data as { id: number; name: string; code: string };
          return role({ ...operator, id: 10, name: body.name, code: body.code, builtin: false }) as never;
        }
        case '/system/role/members':
          return {
            list: [{ id: 21, username: 'anna', nickname: '安娜', state: 'active', main: false }],
            total: 1,
          } as never;
        case '/system/role/candidates':
          return [{ id: 22, username: 'bob', nickname: '', state: 'active', main: false }] as never;
        case '/system/role/addMembers':
        case '/system/role/removeMembers':
          return null as never;
        default:
          throw new Error(`unexpected call ${config.url}`);
      }
    });
  });
  afterEach(cleanup);

  it('lists roles with data scope, members and the builtin tag', async () => {
    renderPage(<RoleManagementPage />);
    const row = (await screen.findByText('店员')).closest('tr') as HTMLElement;
    expect(within(row).getByText('仅本人')).toBeTruthy();
    expect(within(row).getByText('3')).toBeTruthy();
    const opRow = screen.getByText('Operator').closest('tr') as HTMLElement;
    expect(within(opRow).getByText('内置')).toBeTruthy();
  });

  it('creates a role from the permission tree: a section ticks all its codes', async () => {
    renderPage(<RoleManagementPage />);
    fireEvent.click(await screen.findByRole('button', { name: /新建角色/ }));
    const drawer = (await screen.findByText('新建角色', { selector: '.ant-drawer-title' })).closest(
      '.ant-drawer',
    ) as HTMLElement;
    fireEvent.change(within(drawer).getByLabelText('角色名称'), { target: { value: '打印员' } });
    fireEvent.change(within(drawer).getByLabelText('角色编码'), { target: { value: 'operator' } });
    const section = await within(drawer).findByText('我的设备');
    const checkbox = section.closest('.ant-tree-treenode')!.querySelector('.ant-tree-checkbox') as HTMLElement;
    fireEvent.click(checkbox);
    fireEvent.click(within(drawer).getByRole('button', { name: /创\s*建/ }));
    // the server refuses the code: said beside the field in the user's language
    expect(await within(drawer).findByText('已有相同编码的角色')).toBeTruthy();
    fireEvent.change(within(drawer).getByLabelText('角色编码'), { target: { value: 'printer' } });
    fireEvent.click(within(drawer).getByRole('button', { name: /创\s*建/ }));
    expect(await screen.findByText('角色 打印员 已创建')).toBeTruthy();
    expect(calls('/system/role/create').at(-1)?.data).toEqual({
      name: '打印员',
      code: 'printer',
      dataScope: 'all',
      description: '',
      permissions: ['device:view', 'device:edit'],
    });
  });

  it("offers no data scope wider than the user's own, and starts a new role at it", async () => {
    useSession.getState().setUserInfo({ ...main(['system:role:edit', 'device:view']), is_super: 2, dataScope: 'own' });
    renderPage(<RoleManagementPage />);
    fireEvent.click(await screen.findByRole('button', { name: /新建角色/ }));
    const drawer = (await screen.findByText('新建角色', { selector: '.ant-drawer-title' })).closest(
      '.ant-drawer',
    ) as HTMLElement;
    fireEvent.mouseDown(within(drawer).getByLabelText('数据范围'));
    const wider = await waitFor(() => {
      const option = document.querySelector('.ant-select-item-option[title="全部数据"]');
      expect(option).toBeTruthy();
      return option as HTMLElement;
    });
    expect(wider.getAttribute('aria-disabled')).toBe('true');
    fireEvent.change(within(drawer).getByLabelText('角色名称'), { target: { value: '查看' } });
    fireEvent.change(within(drawer).getByLabelText('角色编码'), { target: { value: 'looker' } });
    fireEvent.click(within(drawer).getByRole('button', { name: /创\s*建/ }));
    expect(await screen.findByText('角色 查看 已创建')).toBeTruthy();
    expect(calls('/system/role/create').at(-1)?.data).toMatchObject({ code: 'looker', dataScope: 'own' });
  });

  it('a role with members is deleted only after choosing where they move', async () => {
    renderPage(<RoleManagementPage />);
    const row = (await screen.findByText('店员')).closest('tr') as HTMLElement;
    fireEvent.click(within(row).getByRole('button', { name: /删除/ }));
    const dialog = (await screen.findByText('删除角色 店员？', { selector: '.ant-modal-title' })).closest(
      '.ant-modal',
    ) as HTMLElement;
    expect(within(dialog).getByText(/该角色有 3 个成员/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: /转移并删除/ }));
    expect(await within(dialog).findByText('请选择接收成员的角色')).toBeTruthy();
    expect(calls('/system/role/delete')).toHaveLength(0);
    fireEvent.mouseDown(within(dialog).getByRole('combobox'));
    fireEvent.click(await screen.findByText('Operator (operator)'));
    fireEvent.click(within(dialog).getByRole('button', { name: /转移并删除/ }));
    await waitFor(() => expect(calls('/system/role/delete')[0]?.data).toEqual({ id: 2, reassignTo: 1 }));
    expect(await screen.findByText('角色 店员 已删除')).toBeTruthy();
  });

  it('copies a role under a new name and code', async () => {
    renderPage(<RoleManagementPage />);
    const row = (await screen.findByText('Operator')).closest('tr') as HTMLElement;
    fireEvent.click(within(row).getByRole('button', { name: /复\s*制/ }));
    const dialog = (await screen.findByText('复制角色 Operator', { selector: '.ant-modal-title' })).closest(
      '.ant-modal',
    ) as HTMLElement;
    expect((within(dialog).getByLabelText('角色编码') as HTMLInputElement).value).toBe('operator_copy');
    fireEvent.change(within(dialog).getByLabelText('角色名称'), { target: { value: '夜班' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /复\s*制/ }));
    expect(await screen.findByText('角色 夜班 已创建')).toBeTruthy();
    expect(calls('/system/role/copy')[0]?.data).toEqual({ id: 1, name: '夜班', code: 'operator_copy' });
  });

  it('lists the members of a role, adds a user of the tenant and removes one', async () => {
    renderPage(<RoleManagementPage />);
    const row = (await screen.findByText('店员')).closest('tr') as HTMLElement;
    fireEvent.click(within(row).getAllByRole('button', { name: /成\s*员/ })[0]);
    const drawer = (await screen.findByText('店员 的成员', { selector: '.ant-drawer-title' })).closest(
      '.ant-drawer',
    ) as HTMLElement;
    expect(await within(drawer).findByText('anna')).toBeTruthy();
    fireEvent.mouseDown(within(drawer).getByRole('combobox'));
    fireEvent.click(await screen.findByText('bob', { selector: '.ant-select-item-option-content' }));
    fireEvent.click(within(drawer).getByRole('button', { name: /加\s*入/ }));
    expect(await screen.findByText('已加入 1 个成员')).toBeTruthy();
    expect(calls('/system/role/addMembers')[0]?.data).toEqual({ id: 2, userIds: [22] });
    fireEvent.click(within(drawer).getByRole('button', { name: /移\s*出/ }));
    const pop = (await screen.findByText('把 anna 移出该角色？')).closest('.ant-popover') as HTMLElement;
    fireEvent.click(within(pop).getByRole('button', { name: /移\s*出/ }));
    await waitFor(() => expect(calls('/system/role/removeMembers')[0]?.data).toEqual({ id: 2, userIds: [21] }));
  });

  it('hides every editing button from a user without system:role:edit', async () => {
    useSession.getState().setUserInfo(main(['system:user:edit']));
    renderPage(<RoleManagementPage />);
    await screen.findByText('店员');
    expect(screen.queryByRole('button', { name: /新建角色/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /编\s*辑/ })).toBeNull();
    expect(screen.queryByRole('button', { name: /删\s*除/ })).toBeNull();
  });

  it('speaks English', async () => {
    await act(() => i18n.changeLanguage('en'));
    renderPage(<RoleManagementPage />);
    const row = (await screen.findByText('店员')).closest('tr') as HTMLElement;
    expect(within(row).getByText('Own only')).toBeTruthy();
    expect(screen.getByRole('button', { name: /New role/ })).toBeTruthy();
  });
});
