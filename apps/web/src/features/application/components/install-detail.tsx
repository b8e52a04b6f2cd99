import {
  App,
  Badge,
  Button,
  Descriptions,
  Drawer,
  Flex,
  Grid,
  Popconfirm,
  Progress,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { DeploymentDetail, DeploymentDevice, DeploymentView } from '@cpc/contracts/application';
import { OPEN_TASK_STATES } from '@cpc/contracts/task';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { installKeys, useDeployment, useDeploymentAction } from '../api/install';

const STATE_COLOR: Record<string, string> = {
  succeeded: 'success',
  failed: 'error',
  timeout: 'error',
  expired: 'default',
  canceled: 'default',
  running: 'processing',
  delivered: 'processing',
  sent: 'processing',
  queued: 'default',
};

/** Open tasks of a deployment's counts. */
export const openCount = (d: Pick<DeploymentView, 'counts'>) => OPEN_TASK_STATES.reduce((a, s) => a + d.counts[s], 0);
export const failedCount = (d: Pick<DeploymentView, 'counts'>) => d.counts.failed + d.counts.timeout + d.counts.expired;

/** A device's task state, with the stage and % while it works. */
export function TaskProgress({ row }: { row: Pick<DeploymentDevice, 'state' | 'stage' | 'progress' | 'error'> }) {
  const { t } = useTranslation();
  const working = row.state === 'running' || row.state === 'delivered';
  return (
    <Flex vertical gap={2} style={{ minWidth: 140 }}>
      <Tag color={STATE_COLOR[row.state]} style={{ width: 'fit-content' }}>
        {t(`application.install.taskState.${row.state}`)}
        {working && row.stage ? ` · ${t(`application.install.stage.${row.stage}`, { defaultValue: row.stage })}` : ''}
      </Tag>
      {working && <Progress percent={row.progress} size="small" />}
    </Flex>
  );
}

/** A deployment's devices, each with its task live (task events patch the rows; the counts read again). */
export function InstallDetail({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const client = useQueryClient();
  const narrow = !Grid.useBreakpoint().md;
  const detail = useDeployment(id);
  const act = useDeploymentAction();
  useLiveEvents(
    {
      task: (e) => {
        if (id == null) return;
        const key = installKeys.detail(id);
        const current = client.getQueryData<DeploymentDetail>(key);
        if (!current?.devices.some((d) => d.taskId === e.id)) {
          // a retry's new task, or a task of another deployment: only read again when it may be ours
          if (e.batchId != null) void client.invalidateQueries({ queryKey: key });
          return;
        }
        const devices = current.devices.map((d) =>
          d.taskId === e.id ? { ...d, state: e.state, stage: e.stage, progress: e.progress, error: e.error } : d,
        );
        const counts = Object.fromEntries(Object.keys(current.counts).map((s) => [s, 0])) as DeploymentDetail['counts'];
        for (const d of devices) counts[d.state]++;
        const state = current.state === 'canceled' ? 'canceled' : openCount({ counts }) > 0 ? 'running' : 'done';
        client.setQueryData<DeploymentDetail>(key, { ...current, devices, counts, state });
      },
      device: (e) => {
        if (id == null) return;
        const key = installKeys.detail(id);
        const current = client.getQueryData<DeploymentDetail>(key);
        if (!current?.devices.some((d) => d.deviceId === e.id)) return;
        client.setQueryData<DeploymentDetail>(key, {
          ...current,
          devices: current.devices.map((d) =>
            d.deviceId === e.id && e.status ? { ...d, online: e.status === 'online' } : d,
          ),
        });
      },
    },
    id != null,
  );
  const d = detail.data;
  const run = async (verb: 'cancel' | 'retry') => {
    if (!d) return;
    const res = await act.mutateAsync({ id: d.id, verb });
    message.success(
      t(verb === 'cancel' ? 'application.install.canceled' : 'application.install.retried', { n: res.tasks }),
    );
  };

  return (
    <Drawer
      open={id != null}
      onClose={onClose}
      size={narrow ? '100%' : 860}
      title={d ? `${d.name} ${d.versionName}` : t('application.install.detail')}
      extra={
        d && (
          <Flex gap={8} wrap>
            {failedCount(d) > 0 && (
              <Button
                onClick={() => void run('retry').catch(() => {})}
                loading={act.isPending}
                data-testid="install-retry"
              >
                {t('application.install.retry')}
              </Button>
            )}
            {openCount(d) > 0 && (
              <Popconfirm
                title={t('application.install.cancelConfirm')}
                onConfirm={() => run('cancel').catch(() => {})}
              >
                <Button danger>{t('application.install.cancel')}</Button>
              </Popconfirm>
            )}
          </Flex>
        )
      }
    >
      {d && (
        <Flex vertical gap={16} data-testid="install-detail" data-state={d.state}>
          <Descriptions
            size="small"
            column={{ xs: 1, sm: 2 }}
            items={[
              {
                key: 'kind',
                label: t('application.install.filterKind'),
                children: t(`application.install.kind.${d.kind}`),
              },
              {
                key: 'action',
                label: t('application.install.column.action'),
                children: t(`application.install.action.${d.action}`),
              },
              { key: 'id', label: t('application.install.column.package'), children: d.identifier },
              {
                key: 'state',
                label: t('application.install.column.state'),
                children: t(`application.install.state.${d.state}`),
              },
              {
                key: 'source',
                label: t('application.install.column.source'),
                children: t(`application.install.source.${d.source}`),
              },
              { key: 'at', label: t('application.install.column.createdAt'), children: formatDateTime(d.createdAt) },
            ]}
          />
          <Typography.Text data-testid="install-counts">
            {t('application.install.counts', {
              ok: d.counts.succeeded,
              failed: failedCount(d),
              open: openCount(d),
              total: d.total,
            })}
          </Typography.Text>
          <Table<DeploymentDevice>
            rowKey="deviceId"
            size="small"
            dataSource={d.devices}
            pagination={d.devices.length > 20 ? { pageSize: 20, size: 'small' } : false}
            scroll={{ x: 560 }}
            columns={[
              {
                title: t('application.install.column.device'),
                key: 'device',
                render: (_, r) => (
                  <Flex vertical>
                    <Typography.Text>
                      <Badge status={r.online ? 'success' : 'default'} /> {r.deviceName || r.deviceSn}
                    </Typography.Text>
                    {r.deviceName && (
                      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                        {r.deviceSn}
                      </Typography.Text>
                    )}
                  </Flex>
                ),
              },
              {
                title: t('application.install.column.progress'),
                key: 'state',
                render: (_, r) => <TaskProgress row={r} />,
              },
              {
                title: t('application.install.column.error'),
                dataIndex: 'error',
                render: (v: string) => v || '—',
              },
            ]}
            onRow={(r) => ({ 'data-testid': `install-row-${r.deviceSn}`, 'data-state': r.state }) as never}
          />
        </Flex>
      )}
    </Drawer>
  );
}
