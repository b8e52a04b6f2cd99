import { Button, Drawer, Empty, Flex, Grid, Progress, Space, Table, Typography, type TableProps } from 'antd';
import { useState, type HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import type { BatchView } from '@cpc/contracts';
import { formatDateTime } from '@/lib/format/relative-time';
import { useBatches } from '../api/tasks';
import { isOpenTask, TASK_STATE_ORDER } from '../utils/task-states';
import { TaskStateTag } from './device-cells';

const PAGE_SIZE = 10;

/** Tasks of a batch that have finished, one way or another. */
export const batchDone = (b: Pick<BatchView, 'counts'>) =>
  TASK_STATE_ORDER.filter((s) => !isOpenTask(s)).reduce((n, s) => n + (b.counts[s] ?? 0), 0);

/**
 * The account's batches (a command sent to several devices), newest first, with how far each has come; each one
 * opens its task drawer again. Counts follow the tasks live (use-live-devices reads the list again).
 */
export function BatchListDrawer({
  open,
  onClose,
  onOpenBatch,
}: {
  open: boolean;
  onClose: () => void;
  onOpenBatch: (batch: BatchView) => void;
}) {
  const { t } = useTranslation();
  const screens = Grid.useBreakpoint();
  const [pageNo, setPageNo] = useState(1);
  const batches = useBatches({ pageNo, pageSize: PAGE_SIZE }, open);

  const columns: TableProps<BatchView>['columns'] = [
    {
      key: 'createdAt',
      title: t('device.batches.columns.createdAt'),
      width: 170,
      render: (_, b) => formatDateTime(b.createdAt),
    },
    {
      key: 'type',
      title: t('device.batches.columns.type'),
      width: 90,
      render: (_, b) => t(`device.task.type.${b.type}`),
    },
    {
      key: 'progress',
      title: t('device.batches.columns.progress'),
      render: (_, b) => {
        const done = batchDone(b);
        return (
          <Flex vertical gap={4}>
            <Typography.Text data-testid="batch-summary">
              {t('device.task.summary', { total: b.total, done })}
            </Typography.Text>
            <Progress
              percent={b.total ? Math.round((done / b.total) * 100) : 0}
              size="small"
              showInfo={false}
              status={done === b.total ? 'success' : 'active'}
              style={{ margin: 0 }}
            />
            <Space size={[4, 4]} wrap>
              {TASK_STATE_ORDER.filter((s) => b.counts[s]).map((s) => (
                <span key={s}>
                  <TaskStateTag state={s} /> {b.counts[s]}
                </span>
              ))}
            </Space>
          </Flex>
        );
      },
    },
    {
      key: 'actions',
      title: t('device.batches.columns.actions'),
      width: 90,
      render: (_, b) => (
        <Button type="link" size="small" onClick={() => onOpenBatch(b)}>
          {t('device.batches.open')}
        </Button>
      ),
    },
  ];

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('device.batches.title')}
      size={screens.md ? 760 : '100%'}
      data-testid="batch-list-drawer"
      afterOpenChange={(visible) => !visible && setPageNo(1)}
    >
      <Flex vertical gap={12}>
        <Typography.Text type="secondary">{t('device.batches.help')}</Typography.Text>
        <Table<BatchView>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={batches.data?.list ?? []}
          loading={batches.isPending && open}
          onRow={(b) =>
            ({ 'data-batch-id': b.id, 'data-done': String(batchDone(b) === b.total) }) as HTMLAttributes<HTMLElement>
          }
          pagination={{
            current: pageNo,
            pageSize: PAGE_SIZE,
            total: batches.data?.total ?? 0,
            onChange: setPageNo,
            showSizeChanger: false,
            size: 'small',
            hideOnSinglePage: true,
          }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.batches.empty')} /> }}
        />
      </Flex>
    </Drawer>
  );
}
