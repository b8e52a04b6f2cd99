import { Button, Empty, Flex, Popconfirm, Progress, Table, Tooltip, Typography, type TableProps } from 'antd';
import type { HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import type { TaskItem } from '@cpc/contracts';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePermission } from '@/lib/session';
import { useCancelTask } from '../api/tasks';
import { deviceLabel } from '../utils/command-confirm';
import { isOpenTask } from '../utils/task-states';
import { SeenAt, TaskStateTag } from './device-cells';

interface TaskTableProps {
  tasks: TaskItem[];
  loading: boolean;
  now: number;
  /** The drawer of one batch names the device; the detail page names the type. */
  show: 'device' | 'type';
  pagination?: TableProps<TaskItem>['pagination'];
  compact?: boolean;
}

/** Tasks with their live state (coloured), progress, and a cancel for those not finished. */
export function TaskTable({ tasks, loading, now, show, pagination = false, compact }: TaskTableProps) {
  const { t } = useTranslation();
  const cancel = useCancelTask();
  const canCancel = usePermission(PERMISSIONS.deviceTask);

  const columns: TableProps<TaskItem>['columns'] = [
    show === 'device'
      ? {
          key: 'device',
          title: t('device.task.columns.device'),
          width: compact ? undefined : 190,
          render: (_, r) => (
            <Flex vertical>
              <Typography.Text>{deviceLabel({ name: r.deviceName, sn: r.deviceSn })}</Typography.Text>
              {r.deviceName && (
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {r.deviceSn}
                </Typography.Text>
              )}
            </Flex>
          ),
        }
      : { key: 'type', title: t('device.task.columns.type'), render: (_, r) => t(`device.task.type.${r.type}`) },
    {
      key: 'state',
      title: t('device.task.columns.state'),
      width: compact ? 100 : 130,
      render: (_, r) => (
        <Flex vertical gap={2}>
          <span>
            <TaskStateTag state={r.state} />
          </span>
          {r.state === 'running' && <Progress percent={r.progress} size="small" style={{ margin: 0, maxWidth: 120 }} />}
        </Flex>
      ),
    },
    {
      key: 'createdAt',
      title: t('device.task.columns.createdAt'),
      responsive: compact ? ['md'] : undefined,
      render: (_, r) => (
        <Tooltip
          title={r.attempts ? t('device.task.attempts', { attempts: r.attempts, max: r.maxAttempts }) : undefined}
        >
          <span>
            <SeenAt at={r.createdAt} now={now} />
          </span>
        </Tooltip>
      ),
    },
    {
      key: 'finishedAt',
      title: t('device.task.columns.finishedAt'),
      responsive: ['lg'],
      render: (_, r) => (r.finishedAt ? formatDateTime(r.finishedAt) : t('device.none')),
    },
    {
      key: 'error',
      title: t('device.task.columns.error'),
      responsive: ['sm'],
      ellipsis: true,
      render: (_, r) =>
        r.error ? (
          <Typography.Text type={r.state === 'failed' ? 'danger' : 'secondary'}>{r.error}</Typography.Text>
        ) : (
          t('device.none')
        ),
    },
    ...(canCancel
      ? [
          {
            key: 'actions',
            title: t('device.task.columns.actions'),
            width: 80,
            render: (_: unknown, r: TaskItem) =>
              isOpenTask(r.state) && (
                <Popconfirm
                  title={t('device.task.cancelConfirm')}
                  okText={t('device.task.cancelOk')}
                  cancelText={t('device.task.cancelBack')}
                  okButtonProps={{ danger: true }}
                  onConfirm={() => cancel.mutateAsync(r.id).catch(() => undefined)}
                >
                  <Button type="link" size="small" danger>
                    {t('device.task.cancel')}
                  </Button>
                </Popconfirm>
              ),
          },
        ]
      : []),
  ];

  return (
    <Table<TaskItem>
      rowKey="id"
      size="small"
      columns={columns}
      dataSource={tasks}
      loading={loading}
      pagination={pagination}
      onRow={(r) => ({ 'data-task-id': r.id, 'data-state': r.state }) as HTMLAttributes<HTMLElement>}
      locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.task.empty')} /> }}
    />
  );
}
