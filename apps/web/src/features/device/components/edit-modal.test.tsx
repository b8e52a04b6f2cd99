import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DataScope } from '@cpc/contracts';
import { i18n } from '@/lib/i18n';
import { get } from '@/lib/request';
import { useSession } from '@/lib/session';
import { customer } from '@/lib/testing/fixtures';
import { renderPage } from '@/lib/testing/render-page';
import { EditModal } from './edit-modal';

vi.mock('@/lib/request', () => ({ get: vi.fn(), post: vi.fn(), request: vi.fn() }));

const device = { id: 3, sn: 'SN-0003', name: '前台', remark: '', departmentId: null };
const as = (dataScope: DataScope) => act(() => useSession.getState().setUserInfo(customer({ is_super: 2, dataScope })));
const departmentSelect = () =>
  document.querySelector('.ant-form-item:has(#deviceEdit_departmentId) .ant-select') as HTMLElement;

describe('editing a device', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    vi.mocked(get).mockResolvedValue([] as never);
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it('lets a user who sees every device pick its department', async () => {
    as('all');
    renderPage(<EditModal device={device} onClose={() => {}} />);
    await screen.findByText(/部门决定哪些子账号能看到这台设备/);
    expect(departmentSelect().className).not.toContain('ant-select-disabled');
  });

  it('shows a department-scoped user the department but not a way to change it, and says why', async () => {
    as('department');
    renderPage(<EditModal device={device} onClose={() => {}} />);
    await screen.findByText('您只能查看部分设备，不能把设备改到其他部门');
    expect(departmentSelect().className).toContain('ant-select-disabled');
  });
});
