import { Drawer, Flex, Grid, Progress, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TaskItem, TaskState, TaskType } from '@cpc/contracts';
import { useBatch, useTasks } from '../api/tasks';
import { useNow } from '@/lib/use-now';
import { isOpenTask, TASK_STATE_ORDER } from '../utils/task-states';
import { TaskStateTag } from './device-cells';
import { TaskTable } from './task-table';

/** What one reboot or shutdown made: a batch for several devices, a single task for one. */
export interface CommandRun {
  type: TaskType;
  batchId: number | null;
  /** The tasks the command made; absent for a batch opened again from the batch list (all its tasks). */
  taskIds?: string[];
  deviceIds: number[];
}

const PAGE_SIZE = 50;

function countStates(tasks: TaskItem[]): Partial<Record<TaskState, number>> {
  const counts: Partial<Record<TaskState, number>> = {};
  for (const task of tasks) counts[task.state] = (counts[task.state] ?? 0) + 1;
  return counts;
}

/** The tasks of a command as they move through their states, live; the unfinished ones can be canceled. */
export function TaskDrawer({ run, onClose }: { run: CommandRun | null; onClose: () => void }) {
  const { t } = useTranslation();
  const screens = Grid.useBreakpoint();
  const now = useNow(10_000);
  const [pageNo, setPageNo] = useState(1);
  const batchId = run?.batchId ?? null;
  const batchTasks = useTasks({ batchId: batchId ?? undefined, pageNo, pageSize: PAGE_SIZE }, batchId !== null, true);
  // one device: its newest tasks, of which this command's is the first
  const deviceTasks = useTasks({ deviceId: run?.deviceIds[0], pageSize: 10 }, !!run && batchId === null, true);
  const source = batchId !== null ? batchTasks : deviceTasks;
  const ids = run?.taskIds ? new Set(run.taskIds) : null;
  const tasks = (source.data?.list ?? []).filter((task) => !ids || ids.has(task.id));
  const total = run?.taskIds?.length ?? source.data?.total ?? 0;

  // a batch larger than one page is summed up by the server
  const large = batchId !== null && total > PAGE_SIZE;
  const listed = countStates(tasks);
  const unfinished = tasks.some((task) => isOpenTask(task.state)) || tasks.length < Math.min(total, PAGE_SIZE);
  const batch = useBatch(large ? batchId : null, !!run && unfinished);
  const counts: Partial<Record<TaskState, number>> = large && batch.data ? batch.data.counts : listed;
  const done = TASK_STATE_ORDER.filter((s) => !isOpenTask(s)).reduce((n, s) => n + (counts[s] ?? 0), 0);

  return (
    <Drawer
      open={!!run}
      onClose={onClose}
      title={
        run
          ? run.type === 'reboot' || run.type === 'shutdown'
            ? t(`device.task.drawerTitle.${run.type}`)
            : t('device.task.drawerTitle.other', { type: t(`device.task.type.${run.type}`) })
          : ''
      }
      size={screens.lg ? 800 : screens.md ? 640 : '100%'}
      afterOpenChange={(open) => !open && setPageNo(1)}
      data-testid="task-drawer"
    >
      <Flex vertical gap={16}>
        <Flex vertical gap={8}>
          <Typography.Text data-testid="task-summary">{t('device.task.summary', { total, done })}</Typography.Text>
          <Progress
            percent={total ? Math.round((done / total) * 100) : 0}
            size="small"
            status={done === total && total ? 'success' : 'active'}
            showInfo={false}
          />
          <Space size={[4, 4]} wrap>
            {TASK_STATE_ORDER.filter((s) => counts[s]).map((s) => (
              <span key={s}>
                <TaskStateTag state={s} /> {counts[s]}
              </span>
            ))}
          </Space>
        </Flex>
        <TaskTable
          tasks={tasks}
          now={now}
          show="device"
          compact={!screens.md}
          loading={source.isPending && !!run}
          pagination={
            large
              ? {
                  current: pageNo,
                  pageSize: PAGE_SIZE,
                  total,
                  onChange: setPageNo,
                  showSizeChanger: false,
                  size: 'small',
                }
              : false
          }
        />
      </Flex>
    </Drawer>
  );
}
