import type { TargetWidget } from '@cpc/contracts/dashboard';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { i18n } from '@/lib/i18n';
import { request } from '@/lib/request';
import { renderPage } from '@/lib/testing/render-page';
import { ProjectCard } from './project-card';
import { TargetCard } from './target-card';

vi.mock('@/lib/request', () => ({ request: vi.fn() }));
const mockedRequest = vi.mocked(request);

const target = (v: Partial<TargetWidget> = {}): TargetWidget => ({
  month: '2024-05',
  jobs: 150,
  printed: 140,
  target: 200,
  canEdit: true,
  ...v,
});

describe('dashboard target and project widgets', { timeout: 20_000 }, () => {
  beforeEach(async () => {
    mockedRequest.mockReset();
    await act(() => i18n.changeLanguage('zh'));
  });
  afterEach(cleanup);

  it("shows this month's jobs against the target", () => {
    renderPage(<TargetCard target={target()} loading={false} />);
    expect(screen.getByTestId('target-percent').textContent).toBe('75%');
    expect(within(screen.getByTestId('target-jobs')).getByText('150')).toBeTruthy();
    expect(screen.getByText('距目标还差 50 个')).toBeTruthy();
    expect(screen.getByText('已打印 140 个')).toBeTruthy();
  });

  it('says when there is no target, and who may set it', async () => {
    renderPage(<TargetCard target={target({ target: null, canEdit: false })} loading={false} />);
    expect(screen.getByTestId('target-percent').textContent).toBe('—');
    expect(screen.getByTestId('target-none').textContent).toBe('主账号还没有设置本月目标');
    expect(screen.queryByTestId('target-edit')).toBeNull();
    cleanup();
    await act(() => i18n.changeLanguage('en'));
    renderPage(<TargetCard target={target({ target: 100, jobs: 120 })} loading={false} />);
    expect(screen.getByTestId('target-percent').textContent).toBe('120%');
    expect(screen.getByText("This month's target is reached")).toBeTruthy();
  });

  it('lets the main account set a whole-number target, and clear it', async () => {
    mockedRequest.mockResolvedValue(null as never);
    renderPage(<TargetCard target={target({ target: null })} loading={false} />);
    fireEvent.click(screen.getByTestId('target-edit'));
    const input = await screen.findByTestId('target-input');
    fireEvent.change(input, { target: { value: '0' } });
    fireEvent.blur(input);
    fireEvent.click(screen.getByRole('button', { name: /保\s*存/ }));
    await waitFor(() =>
      expect(mockedRequest).toHaveBeenCalledWith({
        url: '/dashboard/target',
        method: 'post',
        data: { monthlyJobs: 1 },
      }),
    );
    mockedRequest.mockClear();
    cleanup();
    renderPage(<TargetCard target={target({ target: 300 })} loading={false} />);
    fireEvent.click(screen.getByTestId('target-edit'));
    fireEvent.click(await screen.findByTestId('target-clear'));
    await waitFor(() =>
      expect(mockedRequest).toHaveBeenCalledWith({
        url: '/dashboard/target',
        method: 'post',
        data: { monthlyJobs: null },
      }),
    );
  });

  it('lists the groups, each opening the devices of that group', () => {
    renderPage(
      <ProjectCard
        loading={false}
        projects={[
          { id: 11, name: '华东门店', devices: 3, online: 2, jobsMonth: 120 },
          { id: 12, name: '华南门店', devices: 1, online: 1, jobsMonth: 30 },
        ]}
      />,
    );
    const items = screen.getAllByTestId('project-item');
    expect(items.map((i) => i.getAttribute('href'))).toEqual(['/device/index?groupId=11', '/device/index?groupId=12']);
    expect(within(items[0]).getByText('在线 2 / 3 台')).toBeTruthy();
    expect(within(items[0]).getByText('本月 120 个任务')).toBeTruthy();
  });

  it('explains an account without groups', () => {
    renderPage(<ProjectCard loading={false} projects={[]} />);
    expect(screen.getByText('还没有设备分组，在“我的设备”中创建分组后显示。')).toBeTruthy();
  });
});
