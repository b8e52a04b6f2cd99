import type { DepartmentNode } from '@cpc/contracts';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { i18n, loadDictionaries } from '@/lib/i18n';
import { http, resetPayloadCipher } from '@/lib/request';
import { useSession } from '@/lib/session';
import { customer } from '@/lib/testing/fixtures';
import { envelope, fakeServer } from '@/lib/testing/fake-server';
import { renderPage } from '@/lib/testing/render-page';
import DepartmentManagementPage from './department-management';

const API = '/apiAdmin';
const node = (
  id: number,
  name: string,
  parentId: number | null,
  userCount: number,
  children: DepartmentNode[] = [],
) => ({
  id,
  name,
  parentId,
  sort: 0,
  userCount,
  deviceCount: 0,
  children,
});
const tree = [node(1, '总部', null, 3, [node(2, '华东', 1, 2)])];

let server: ReturnType<typeof fakeServer>;
const callsTo = (url: string) => server.callsTo(`${API}${url}`);
const dialogOf = async (title: string) =>
  (await screen.findAllByText(title)).map((el) => el.closest<HTMLElement>('.ant-modal')).find(Boolean) as HTMLElement;

beforeAll(() => loadDictionaries());

describe('DepartmentManagementPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    await act(() => i18n.changeLanguage('zh'));
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(customer({ permissions: ['system:department:edit', 'system:user:edit'] }));
    resetPayloadCipher();
    server = fakeServer(http)
      .on('GET', `${API}/publicKey`, envelope({ publicKey: '', mockServer: true, scheme: 'off' }))
      .on('GET', `${API}/system/department/tree`, envelope(tree));
  });
  afterEach(() => {
    cleanup();
    server.restore();
  });

  it('shows the tree with the members of each department', async () => {
    renderPage(<DepartmentManagementPage />);
    const hq = (await screen.findByText('总部')).closest('.ant-tree-treenode') as HTMLElement;
    expect(within(hq).getByText('3')).toBeTruthy();
    const east = screen.getByText('华东').closest('.ant-tree-treenode') as HTMLElement;
    expect(within(east).getByText('2')).toBeTruthy();
  });

  it('adds a sub-department under the chosen one, and shows a taken name under the field', async () => {
    server.on('POST', `${API}/system/department/add`, (call) =>
      (call.body as { name: string }).name === '华东'
        ? {
            status: 400,
            body: {
              code: 400,
              msg: 'name: a department with this name already exists here',
              data: {
                fields: [
                  {
                    field: 'name',
                    message: 'a department with this name already exists here',
                    key: 'department.nameTaken',
                  },
                ],
              },
            },
          }
        : envelope({ id: 9, name: '华南', parentId: 1, sort: 1 }),
    );
    renderPage(<DepartmentManagementPage />);
    await screen.findByText('总部');
    fireEvent.click(screen.getByRole('button', { name: '添加下级部门 总部' }));
    const dialog = await dialogOf('在“总部”下新建部门');
    const input = within(dialog).getByPlaceholderText('如：华东销售部');
    fireEvent.change(input, { target: { value: '华东' } });
    fireEvent.click(
      within(dialog)
        .getByText(/保\s*存/)
        .closest('button')!,
    );
    await waitFor(() =>
      expect(input.closest('.ant-form-item')?.querySelector('.ant-form-item-explain')?.textContent).toBe(
        '同一上级下已有同名部门',
      ),
    );
    fireEvent.change(input, { target: { value: '华南' } });
    fireEvent.click(
      within(dialog)
        .getByText(/保\s*存/)
        .closest('button')!,
    );
    await waitFor(() =>
      expect(callsTo('/system/department/add').map((c) => c.body)).toEqual([
        { name: '华东', parentId: 1 },
        { name: '华南', parentId: 1 },
      ]),
    );
    expect(await screen.findByText('部门已创建')).toBeTruthy();
  });

  it('deletes a department after a confirmation', async () => {
    server.on('POST', `${API}/system/department/delete`, envelope(null));
    renderPage(<DepartmentManagementPage />);
    await screen.findByText('华东');
    fireEvent.click(screen.getByRole('button', { name: '删除 华东' }));
    const confirm = await dialogOf('删除部门“华东”？');
    fireEvent.click(
      within(confirm)
        .getAllByText(/删\s*除/)
        .at(-1)!
        .closest('button')!,
    );
    await waitFor(() => expect(callsTo('/system/department/delete').map((c) => c.body)).toEqual([{ id: 2 }]));
    expect(await screen.findByText('部门已删除')).toBeTruthy();
  });

  describe('within the data scope', () => {
    // 总部 > 华东 (the user's department) > 上海, and 总部 > 华南, a sibling of the user's department
    const wide = [node(1, '总部', null, 0, [node(2, '华东', 1, 1, [node(5, '上海', 2, 0)]), node(3, '华南', 1, 0)])];
    // by the buttons' labels: role queries over the whole tree are too slow for jsdom on a busy machine
    const actions = (name: string) =>
      ['添加下级部门', '重命名', '删除'].filter((a) => document.querySelector(`button[aria-label="${a} ${name}"]`));

    it('lets a department-scoped user change only the departments below its own', async () => {
      server.on('GET', `${API}/system/department/tree`, envelope(wide));
      useSession
        .getState()
        .setUserInfo(
          customer({ is_super: 2, dataScope: 'department', departmentId: 2, permissions: ['system:department:edit'] }),
        );
      renderPage(<DepartmentManagementPage />);
      await screen.findByText('上海');
      expect(actions('上海')).toEqual(['添加下级部门', '重命名', '删除']);
      // its own department: a sub-department may be added, the department itself stays as it is
      expect(actions('华东')).toEqual(['添加下级部门']);
      expect(actions('华南')).toEqual([]);
      expect(actions('总部')).toEqual([]);
      expect(screen.queryByText('新建部门', { selector: 'button span' })).toBeNull();
      // only what it may move can be dragged
      const draggable = [...document.querySelectorAll('.ant-tree-treenode-draggable')].map(
        (n) => n.querySelector('strong')?.textContent,
      );
      expect(draggable).toEqual(['上海']);
      expect(
        screen.getByText('你可以在本部门下新建部门，调整或删除本部门以下的部门；拖动可调整上下级与顺序'),
      ).toBeTruthy();
    });

    it('offers an own-scoped user no change at all', async () => {
      server.on('GET', `${API}/system/department/tree`, envelope(wide));
      useSession
        .getState()
        .setUserInfo(
          customer({ is_super: 2, dataScope: 'own', departmentId: 2, permissions: ['system:department:edit'] }),
        );
      renderPage(<DepartmentManagementPage />);
      await screen.findByText('上海');
      for (const name of ['总部', '华东', '上海', '华南']) expect(actions(name)).toEqual([]);
      expect(screen.queryByText('新建部门', { selector: 'button span' })).toBeNull();
      expect(screen.getByText('你的数据权限仅限本人：可以查看部门结构，但不能修改')).toBeTruthy();
      expect(document.querySelector('.ant-tree-treenode-draggable')).toBeNull();
    });

    it('leaves everything to a user who sees the whole account', async () => {
      server.on('GET', `${API}/system/department/tree`, envelope(wide));
      renderPage(<DepartmentManagementPage />);
      await screen.findByText('上海');
      for (const name of ['总部', '华东', '上海', '华南'])
        expect(actions(name)).toEqual(['添加下级部门', '重命名', '删除']);
      expect(screen.getByText('新建部门', { selector: 'button span' })).toBeTruthy();
    });
  });

  it('is read-only without the department permission', async () => {
    useSession.getState().setUserInfo(customer({ is_super: 2, permissions: ['device:view'] }));
    renderPage(<DepartmentManagementPage />);
    await screen.findByText('总部');
    expect(screen.getByText('你可以查看部门结构，但没有修改权限')).toBeTruthy();
    expect(screen.queryByText('新建部门', { selector: 'button span' })).toBeNull();
    expect(screen.queryByRole('button', { name: '删除 华东' })).toBeNull();
  });
});
