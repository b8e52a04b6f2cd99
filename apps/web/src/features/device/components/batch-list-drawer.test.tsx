import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchView, Paged, TaskItem } from '@cpc/contracts';
import { i18n } from '@/lib/i18n';
import { get } from '@/lib/request';
import { renderPage } from '@/lib/testing/render-page';
import { taskRow } from '../testing/fixtures';
import { BatchListDrawer } from './batch-list-drawer';
import { TaskDrawer } from './task-drawer';

vi.mock('@/lib/request', () => ({ get: vi.fn(), post: vi.fn(), request: vi.fn() }));
const mockedGet = vi.mocked(get);

const counts = (over: Partial<BatchView['counts']>): BatchView['counts'] => ({
  queued: 0,
  sent: 0,
  delivered: 0,
  running: 0,
  succeeded: 0,
  failed: 0,
  timeout: 0,
  expired: 0,
  canceled: 0,
  ...over,
});
const rebootBatch: BatchView = {
  id: 7,
  type: 'reboot',
  createdAt: '2026-01-01T08:00:00.000Z',
  total: 3,
  counts: counts({ running: 1, succeeded: 1, failed: 1 }),
};
const shutdownBatch: BatchView = {
  id: 8,
  type: 'shutdown',
  createdAt: '2026-01-01T09:00:00.000Z',
  total: 2,
  counts: counts({ succeeded: 2 }),
};
const batchRow = (id: number) => document.querySelector<HTMLElement>(`tr[data-batch-id="${id}"]`)!;

describe('the task batches of My devices', { timeout: 60_000 }, () => {
  let tasks: Paged<TaskItem>;
  beforeEach(async () => {
    mockedGet.mockReset();
    await act(() => i18n.changeLanguage('zh'));
    tasks = { list: [], total: 0 };
    mockedGet.mockImplementation(async (url: string) => {
      if (url === '/device/task/batch/list') return { list: [shutdownBatch, rebootBatch], total: 2 } as never;
      if (url === '/device/task/list') return tasks as never;
      throw new Error(`unexpected call ${url}`);
    });
  });
  afterEach(cleanup);

  it('lists the batches newest first with how far each has come, and opens one', async () => {
    const onOpen = vi.fn();
    renderPage(<BatchListDrawer open onClose={() => {}} onOpenBatch={onOpen} />);
    await screen.findByText('批量任务');
    await waitFor(() => expect(batchRow(7)).toBeTruthy());
    expect(mockedGet).toHaveBeenCalledWith('/device/task/batch/list', { pageNo: 1, pageSize: 10 });
    const reboot = within(batchRow(7));
    reboot.getByText('重启');
    reboot.getByText('共 3 个任务，已结束 2 个');
    for (const state of ['执行中', '成功', '失败']) reboot.getByText(state);
    expect(batchRow(7).dataset.done).toBe('false');
    within(batchRow(8)).getByText('共 2 个任务，已结束 2 个');
    expect(batchRow(8).dataset.done).toBe('true');
    expect([...document.querySelectorAll<HTMLElement>('tr[data-batch-id]')].map((r) => r.dataset.batchId)).toEqual([
      '8',
      '7',
    ]);

    fireEvent.click(reboot.getByRole('button', { name: /查\s*看/ }));
    expect(onOpen).toHaveBeenCalledWith(expect.objectContaining({ id: 7, type: 'reboot' }));

    await act(() => i18n.changeLanguage('en'));
    await screen.findByText('Task batches');
    within(batchRow(7)).getByText('2 of 3 tasks finished');
  });

  it('asks nothing while closed, and says when there is no batch yet', async () => {
    mockedGet.mockImplementation(async () => ({ list: [], total: 0 }) as never);
    function Toggle() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <button onClick={() => setOpen(true)}>open</button>
          <BatchListDrawer open={open} onClose={() => setOpen(false)} onOpenBatch={() => {}} />
        </>
      );
    }
    renderPage(<Toggle />);
    await new Promise((r) => setTimeout(r, 50));
    expect(mockedGet).not.toHaveBeenCalled();
    fireEvent.click(screen.getByText('open'));
    await screen.findByText('还没有批量任务');
    expect(mockedGet).toHaveBeenCalledTimes(1);
  });

  it('opens a batch again with all its tasks, counted from the list', async () => {
    tasks = {
      list: [
        taskRow({ id: 'a', batchId: 7, deviceId: 1, deviceSn: 'CP58-00001', state: 'succeeded' }),
        taskRow({ id: 'b', batchId: 7, deviceId: 2, deviceSn: 'CP58-00002', state: 'running', progress: 50 }),
      ],
      total: 2,
    };
    renderPage(<TaskDrawer run={{ type: 'reboot', batchId: 7, deviceIds: [] }} onClose={() => {}} />);
    await screen.findByText('重启任务');
    await waitFor(() => expect(document.querySelectorAll('.ant-drawer tr[data-task-id]')).toHaveLength(2));
    expect(mockedGet).toHaveBeenCalledWith('/device/task/list', { batchId: 7, pageNo: 1, pageSize: 50 });
    screen.getByText('共 2 个任务，已结束 1 个');
  });

  it('reads its unfinished tasks again until they end (an event can pass before the first answer)', async () => {
    const running = taskRow({
      id: 'b',
      batchId: 7,
      deviceId: 2,
      deviceSn: 'CP58-00002',
      state: 'running',
      progress: 50,
    });
    tasks = { list: [running], total: 1 };
    renderPage(<TaskDrawer run={{ type: 'reboot', batchId: 7, deviceIds: [2], taskIds: ['b'] }} onClose={() => {}} />);
    await waitFor(() =>
      expect(document.querySelector('.ant-drawer tr[data-task-id="b"]')?.getAttribute('data-state')).toBe('running'),
    );
    // no event comes: the task ended on the device meanwhile
    tasks = { list: [{ ...running, state: 'succeeded', progress: 100 }], total: 1 };
    await waitFor(
      () =>
        expect(document.querySelector('.ant-drawer tr[data-task-id="b"]')?.getAttribute('data-state')).toBe(
          'succeeded',
        ),
      { timeout: 6000 },
    );
    const calls = mockedGet.mock.calls.filter(([url]) => url === '/device/task/list').length;
    // finished: no more reading
    await new Promise((r) => setTimeout(r, 3500));
    expect(mockedGet.mock.calls.filter(([url]) => url === '/device/task/list').length).toBe(calls);
  });
});
