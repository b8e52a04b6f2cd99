import type { UserInfo } from '@cpc/contracts';
import type { DeviceModelView } from '@cpc/contracts/device-model';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { RequestError, request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import DeviceModelPage from './device-model';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const model: DeviceModelView = {
  id: 3,
  code: 'CP-58A',
  name: '58mm 云打印机',
  kind: 'printer',
  paperWidthMm: 58,
  capabilities: ['print', 'reboot'],
  deviceCount: 2,
  createdAt: '2024-04-01T02:00:00Z',
};
const staff: UserInfo = {
  id: 1,
  username: 'admin',
  mobile: null,
  avatar: '',
  is_super: 1,
  status: 1,
  is_authenticate: 1,
  attest_name: '',
  tenantKind: 'platform',
  dataScope: 'all',
  departmentId: null,
  admin: true,
  roles: ['Admin'],
  permissions: [],
};

const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);
const dialogTitled = async (title: string, selector = '.ant-modal-title') =>
  (await screen.findByText(title, { selector })).closest('.ant-modal') as HTMLElement;

describe('DeviceModelPage', { timeout: 60_000 }, () => {
  let taken = true;
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(staff);
    await act(() => i18n.changeLanguage('zh'));
    taken = true;
    mockedRequest.mockImplementation(async (config) => {
      switch (config.url) {
        case '/system/deviceModel/list':
          return { list: [model], total: 1 } as never;
        case '/system/deviceModel/add': {
          if (taken)
            throw new RequestError('code: a model with this code already exists', 400, 400, {
              fields: [
                { field: 'code', message: 'a model with this code already exists', key: 'deviceModel.codeTaken' },
              ],
            });
          const body = config.data as Partial<DeviceModelView>;
          return { ...model, ...body, id: 9, deviceCount: 0 } as never;
        }
        case '/system/deviceModel/delete':
          // the server says msg in the console's language (it sends Accept-Language)
          throw new RequestError('有 2 台已登记设备使用这个型号，不能删除', 400, 400, null);
        default:
          throw new Error(`unexpected call ${config.url}`);
      }
    });
  });
  afterEach(cleanup);

  it('lists models with their capabilities and device counts', async () => {
    renderPage(<DeviceModelPage />);
    const row = (await screen.findByText('58mm 云打印机')).closest('tr') as HTMLElement;
    expect(within(row).getByText('云打印机')).toBeTruthy();
    expect(within(row).getByText('58 mm')).toBeTruthy();
    expect(within(row).getByText('reboot')).toBeTruthy();
    expect(calls('/system/deviceModel/list')[0]).toMatchObject({ method: 'get', params: { pageNo: 1, pageSize: 20 } });
  });

  it('checks the form, shows the server refusal beside the field, then creates the model', async () => {
    renderPage(<DeviceModelPage />);
    fireEvent.click(await screen.findByRole('button', { name: /新建型号/ }));
    const dialog = await dialogTitled('新建设备型号');
    fireEvent.change(within(dialog).getByLabelText('型号编码'), { target: { value: '-x' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /创\s*建/ }));
    expect(
      await within(dialog).findByText('型号编码须为 2-32 位字母、数字、点、- 或 _，以字母或数字开头'),
    ).toBeTruthy();
    expect(await within(dialog).findByText('请输入名称')).toBeTruthy();
    expect(calls('/system/deviceModel/add')).toHaveLength(0);

    fireEvent.change(within(dialog).getByLabelText('型号编码'), { target: { value: 'CP-58A' } });
    fireEvent.change(within(dialog).getByLabelText('名称'), { target: { value: ' 80mm 打印机 ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /创\s*建/ }));
    expect(await within(dialog).findByText('已有相同编码的型号')).toBeTruthy();

    taken = false;
    fireEvent.change(within(dialog).getByLabelText('型号编码'), { target: { value: 'CP-80B' } });
    fireEvent.click(within(dialog).getByRole('button', { name: /创\s*建/ }));
    expect(await screen.findByText('型号 CP-80B 已创建')).toBeTruthy();
    expect(calls('/system/deviceModel/add').at(-1)?.data).toEqual({
      code: 'CP-80B',
      name: '80mm 打印机',
      kind: 'printer',
      paperWidthMm: 58,
      capabilities: ['print'],
    });
  });

  it('says the errors shown in the form again in the language the user switches to', async () => {
    renderPage(<DeviceModelPage />);
    fireEvent.click(await screen.findByRole('button', { name: /新建型号/ }));
    const dialog = await dialogTitled('新建设备型号');
    fireEvent.click(within(dialog).getByRole('button', { name: /创\s*建/ }));
    expect(await within(dialog).findByText('请输入名称')).toBeTruthy();
    await act(() => i18n.changeLanguage('en'));
    expect(await within(dialog).findByText('Enter the name')).toBeTruthy();
    await waitFor(() => expect(within(dialog).queryByText('请输入名称')).toBeNull());
  });

  it("says why a model in use cannot be deleted, in the user's language", async () => {
    renderPage(<DeviceModelPage />);
    const row = (await screen.findByText('58mm 云打印机')).closest('tr') as HTMLElement;
    fireEvent.click(within(row).getByRole('button', { name: /删除/ }));
    const confirm = await dialogTitled('删除型号 CP-58A？', '.ant-modal-confirm-title');
    expect(within(confirm).getByText('有 2 台已登记设备使用这个型号，使用中的型号不能删除。')).toBeTruthy();
    fireEvent.click(within(confirm).getByRole('button', { name: /^删\s*除$/ }));
    expect(await screen.findByText('有 2 台已登记设备使用这个型号，不能删除')).toBeTruthy();
    await waitFor(() =>
      expect(calls('/system/deviceModel/delete')[0]).toMatchObject({ data: { id: 3 }, silent: true }),
    );
  });
});
