import type { UserInfo } from '@cpc/contracts';
import type { RegistryItem } from '@cpc/contracts/device-registry';
import { MSG } from '@cpc/contracts/device-constants';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { RequestError, request } from '@/lib/request';
import { useSession } from '@/lib/session';
import { renderPage } from '@/lib/testing/render-page';
import DeviceRegistryPage from './device-registry';

vi.mock('@/lib/request', async (original) => ({
  ...(await original<typeof import('@/lib/request')>()),
  request: vi.fn(),
}));
const mockedRequest = vi.mocked(request);

const item: RegistryItem = {
  id: 7,
  sn: 'CP58-0007',
  modelId: 1,
  modelCode: 'CP-58A',
  modelName: '58mm 云打印机',
  bound: true,
  tenantId: 5,
  tenantName: '云打印测试有限公司',
  boundAt: '2024-05-01T02:00:00Z',
  iccid: '89860012345678901234',
  imei: '861234567890123',
  status: 'online',
  lastSeenAt: '2024-05-02T02:00:00Z',
  createdAt: '2024-04-01T02:00:00Z',
};
const generated = {
  id: 8,
  sn: 'CP58-0008',
  model: 'CP-58A',
  bindKey: 'K7M2Q9XW4RTA',
  secret: 'sEcReT_0123456789abcd',
  iccid: '89860098765432109876',
  imei: '869876543210987',
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
const buttonIn = (root: HTMLElement, name: RegExp) => within(root).getByRole('button', { name });
const dialogTitled = async (title: string) =>
  (await screen.findByText(title, { selector: '.ant-modal-title' })).closest('.ant-modal') as HTMLElement;
const csv = (text: string, name = 'devices.csv') => new File([text], name, { type: 'text/csv' });

let importAnswers: Array<() => unknown>;

describe('DeviceRegistryPage', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    useSession.getState().reset();
    useSession.getState().setToken('tok');
    useSession.getState().setUserInfo(staff);
    await act(() => i18n.changeLanguage('zh'));
    importAnswers = [];
    mockedRequest.mockImplementation(async (config) => {
      switch (config.url) {
        case '/system/deviceRegistry/list':
          return { list: [item], total: 1 } as never;
        case '/device/model/options':
          return [{ id: 1, code: 'CP-58A', name: '58mm 云打印机', kind: 'printer', paperWidthMm: 58 }] as never;
        case '/system/deviceRegistry/import':
          return importAnswers.shift()!() as never;
        case '/system/deviceRegistry/bindKey':
          return { id: 7, sn: 'CP58-0007', bindKey: 'NEWKEY234567' } as never;
        default:
          throw new Error(`unexpected call ${config.url}`);
      }
    });
  });
  afterEach(cleanup);

  it('lists registered devices with their owner, and filters by bound state and keyword', async () => {
    renderPage(<DeviceRegistryPage />);
    const row = (await screen.findByText('CP58-0007')).closest('tr') as HTMLElement;
    expect(within(row).getByText('云打印测试有限公司')).toBeTruthy();
    expect(within(row).getByText('已绑定')).toBeTruthy();
    fireEvent.click(screen.getByText('未绑定'));
    await waitFor(() =>
      expect(calls('/system/deviceRegistry/list').at(-1)?.params).toMatchObject({ bound: 'false', pageNo: 1 }),
    );
    const search = screen.getByPlaceholderText('搜索序列号、ICCID、IMEI 或客户');
    fireEvent.change(search, { target: { value: ' CP58 ' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(calls('/system/deviceRegistry/list').at(-1)?.params).toMatchObject({ keyword: 'CP58' }));
  });

  it('issues a new bind key for a device after a confirmation, and shows it once', async () => {
    renderPage(<DeviceRegistryPage />);
    const row = (await screen.findByText('CP58-0007')).closest('tr') as HTMLElement;
    fireEvent.click(buttonIn(row, /新绑定码/));
    const confirm = (
      await screen.findByText('为设备 CP58-0007 生成新的绑定码？', { selector: '.ant-modal-confirm-title' })
    ).closest('.ant-modal') as HTMLElement;
    expect(calls('/system/deviceRegistry/bindKey')).toHaveLength(0);
    fireEvent.click(buttonIn(confirm, /生\s*成/));
    await screen.findByText('NEWKEY234567');
    expect(calls('/system/deviceRegistry/bindKey')).toEqual([
      expect.objectContaining({ method: 'post', data: { id: 7 } }),
    ]);
    await screen.findByText('设备 CP58-0007 的新绑定码', { selector: '.ant-modal-confirm-title' });
  });

  it('names every bad row of a refused import, then shows the keys of an accepted one once', async () => {
    const rows = [
      { row: 3, field: 'sn', message: 'must be 4-32 letters, digits, - or _', key: MSG.sn },
      {
        row: 4,
        field: 'model',
        message: 'unknown model code "NOPE"',
        key: 'registry.unknownModel',
        params: { code: 'NOPE' },
      },
    ];
    importAnswers.push(() => {
      throw new RequestError('nothing imported: row 3 sn: …', 400, 400, { fields: [], rows });
    });
    importAnswers.push(() => ({ imported: 1, devices: [generated] }));
    const createObjectURL = vi.fn((_: Blob) => 'blob:keys');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });

    renderPage(<DeviceRegistryPage />);
    fireEvent.click(await screen.findByRole('button', { name: /导入 CSV/ }));
    const dialog = await dialogTitled('导入 CSV');
    // the upload renders a fresh input after each choice
    const input = () => dialog.querySelector('input[type=file]') as HTMLInputElement;
    fireEvent.change(input(), { target: { files: [csv('sn,model\nx,NOPE\n')] } });
    fireEvent.click(buttonIn(dialog, /^导\s*入$/));

    const errors = await within(dialog).findByTestId('import-row-errors');
    expect(within(errors).getByText('未导入任何设备：2 行有 2 个问题，修改后重新导入')).toBeTruthy();
    const cells = within(errors)
      .getAllByRole('row')
      .slice(1)
      .map((r) =>
        within(r)
          .getAllByRole('cell')
          .map((c) => c.textContent),
      );
    expect(cells).toEqual([
      ['3', 'sn', '序列号须为 4-32 位字母、数字、- 或 _，以字母或数字开头'],
      ['4', 'model', '没有编码为“NOPE”的型号'],
    ]);
    expect(calls('/system/deviceRegistry/import')[0].data).toBeInstanceOf(FormData);
    expect(((calls('/system/deviceRegistry/import')[0].data as FormData).get('file') as File).name).toBe('devices.csv');

    fireEvent.change(input(), { target: { files: [csv('sn,model\nCP58-0008,CP-58A\n', 'fixed.csv')] } });
    await waitFor(() => expect(within(dialog).queryByTestId('import-row-errors')).toBeNull());
    fireEvent.click(buttonIn(dialog, /^导\s*入$/));

    const keys = await dialogTitled('已登记 1 台设备：绑定码与密钥');
    expect(within(keys).getByText('绑定码和设备密钥只显示这一次')).toBeTruthy();
    expect(within(keys).getByText('K7M2Q9XW4RTA')).toBeTruthy();
    expect(within(keys).getByText('sEcReT_0123456789abcd')).toBeTruthy();

    // closing before the download asks first
    fireEvent.click(buttonIn(keys, /^关\s*闭$/));
    const confirm = (
      await screen.findByText('还没有下载绑定码和密钥', { selector: '.ant-modal-confirm-title' })
    ).closest('.ant-modal') as HTMLElement;
    fireEvent.click(buttonIn(confirm, /返回下载/));

    fireEvent.click(buttonIn(keys, /下载 CSV/));
    expect(createObjectURL).toHaveBeenCalledTimes(1);
    const text = await (createObjectURL.mock.calls[0][0] as Blob).text();
    expect(text.replace(/^\ufeff/, '')).toBe(
      'sn,model,bind_key,secret,iccid,imei\r\nCP58-0008,CP-58A,K7M2Q9XW4RTA,sEcReT_0123456789abcd,89860098765432109876,869876543210987\r\n',
    );

    fireEvent.click(buttonIn(keys, /^关\s*闭$/));
    // once downloaded it closes without asking again (jsdom never ends the closing animation, so: it is leaving)
    await waitFor(() => expect(!document.body.contains(keys) || keys.classList.contains('ant-zoom-leave')).toBe(true));
    expect(document.querySelectorAll('.ant-modal-confirm-title')).toHaveLength(1);
  });

  it('says what is wrong with a file that is no import at all', async () => {
    importAnswers.push(() => {
      throw new RequestError('file: the first line must be …', 400, 400, {
        fields: [
          {
            field: 'file',
            message: 'the first line must be the header sn,model,bind_key,secret,iccid,imei (sn and model required)',
            key: 'registry.header',
            params: { header: 'sn,model,bind_key,secret,iccid,imei' },
          },
        ],
      });
    });
    renderPage(<DeviceRegistryPage />);
    fireEvent.click(await screen.findByRole('button', { name: /导入 CSV/ }));
    const dialog = await dialogTitled('导入 CSV');
    fireEvent.change(dialog.querySelector('input[type=file]') as HTMLInputElement, {
      target: { files: [csv('hello\n')] },
    });
    fireEvent.click(buttonIn(dialog, /^导\s*入$/));
    expect(
      await within(dialog).findByText('第一行须为表头 sn,model,bind_key,secret,iccid,imei（sn 和 model 必填）'),
    ).toBeTruthy();
  });
});
