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

  it('is read-only without the department permission', async () => {
    useSession.getState().setUserInfo(customer({ is_super: 2, permissions: ['device:view'] }));
    renderPage(<DepartmentManagementPage />);
    await screen.findByText('总部');
    expect(screen.getByText('你可以查看部门结构，但没有修改权限')).toBeTruthy();
    expect(screen.queryByRole('button', { name: '新建部门' })).toBeNull();
    expect(screen.queryByRole('button', { name: '删除 华东' })).toBeNull();
  });
});
