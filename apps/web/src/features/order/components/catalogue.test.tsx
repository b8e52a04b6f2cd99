import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { renderPage } from '@/lib/testing/render-page';
import { Catalogue } from './catalogue';

vi.mock('@/lib/request', () => ({ request: vi.fn() }));
const mockedRequest = vi.mocked(request);
const calls = (url: string) => mockedRequest.mock.calls.filter(([c]) => c.url === url).map(([c]) => c);

describe('the package catalogue (staff)', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    await act(() => i18n.changeLanguage('zh'));
    mockedRequest.mockImplementation(async (config) => {
      if (config.url === '/order/package/list') return { list: [], total: 0 } as never;
      if (config.url === '/order/package/create') {
        const b = config.data as Record<string, unknown>;
        return { id: 1, ...b, createdAt: '', updatedAt: '' } as never;
      }
      throw new Error(`unexpected ${config.url}`);
    });
  });
  afterEach(cleanup);

  it('sends the price typed in yuan as integer fen, without floating point (0.3 yuan is 30 fen)', async () => {
    renderPage(<Catalogue />);
    fireEvent.click(await screen.findByRole('button', { name: /新增套餐/ }));
    const drawer = await screen.findByRole('dialog');
    fireEvent.change(within(drawer).getByLabelText('名称'), { target: { value: '小包' } });
    const price = within(drawer).getByLabelText('价格（元）');
    fireEvent.change(price, { target: { value: '0.333' } });
    fireEvent.click(within(drawer).getByRole('button', { name: /保\s*存/ }));
    await within(drawer).findByText('请输入最多两位小数的金额');
    expect(calls('/order/package/create')).toHaveLength(0);
    fireEvent.change(price, { target: { value: '0.3' } });
    fireEvent.click(within(drawer).getByRole('button', { name: /保\s*存/ }));
    await waitFor(() => expect(calls('/order/package/create')).toHaveLength(1));
    expect(calls('/order/package/create')[0].data).toMatchObject({
      name: '小包',
      dataMb: 1024,
      validityDays: 30,
      priceFen: 30,
      onShelf: true,
      carriers: [],
    });
  });
});
