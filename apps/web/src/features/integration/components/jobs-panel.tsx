import { App, Button, Flex, Select, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useMemo, useState, type HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import type { PrintJobItem } from '@cpc/contracts/integration';
import { PRINT_JOB_STATES, type PrintJobState } from '@cpc/contracts/integration-constants';
import { useCancelJob, useJobs, useKeys } from '../api/integration';
import { JOB_STATE_COLOR, shortId } from '../utils/format';
import { formatSeconds } from '../../../lib/format/relative-time';
import { DeviceSelect } from './device-select';
import { JobDrawer, isCancelable } from './job-drawer';
import { LiveRefresh, usePagination } from './live-list';

/** Time windows of the filter, in hours; the list is newest first, so "all" reads well too. */
const WINDOWS = ['1', '24', '168', '720'] as const;
type Window = (typeof WINDOWS)[number] | 'all';

interface Filters {
  deviceId?: number;
  state?: PrintJobState;
  keyId?: number;
  window: Window;
}

/** The account's print jobs, live, with filters and the rendered preview of each. */
export function JobsPanel({ live, canManage }: { live: boolean; canManage: boolean }) {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const [filters, setFilters] = useState<Filters>({ window: 'all' });
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [open, setOpen] = useState<string | null>(null);
  const keys = useKeys({ pageNo: 1, pageSize: 100 }, canManage);
  const cancel = useCancelJob();

  // the window's start is fixed when the filter is chosen, so polling asks for the same range
  const from = useMemo(
    () =>
      filters.window === 'all' ? undefined : new Date(Date.now() - Number(filters.window) * 3600_000).toISOString(),
    [filters.window],
  );
  const query = { ...page, deviceId: filters.deviceId, state: filters.state, keyId: filters.keyId, from };
  const list = useJobs(query, live && page.pageNo === 1);
  const pagination = usePagination(page, setPage, list.data?.total ?? 0);

  const change = (next: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...next }));
    setPage((p) => ({ ...p, pageNo: 1 }));
  };

  const confirmCancel = (id: string) =>
    modal.confirm({
      title: t('integration.jobs.cancelTitle'),
      content: t('integration.jobs.cancelContent'),
      okText: t('integration.jobs.cancel'),
      okButtonProps: { danger: true },
      cancelText: t('integration.close'),
      onOk: () =>
        cancel.mutateAsync(id).then(
          () => void message.success(t('integration.jobs.canceled')),
          () => {},
        ),
    });

  const columns: TableProps<PrintJobItem>['columns'] = [
    {
      key: 'createdAt',
      dataIndex: 'createdAt',
      title: t('integration.jobs.createdAt'),
      width: 170,
      render: (v: string) => formatSeconds(v),
    },
    {
      key: 'originId',
      dataIndex: 'originId',
      title: t('integration.jobs.originId'),
      width: 200,
      ellipsis: true,
      render: (v: string, r) => (
        <Flex vertical>
          <Typography.Text ellipsis={{ tooltip: v }}>{v}</Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {shortId(r.id)}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'device',
      dataIndex: 'deviceSn',
      title: t('integration.jobs.device'),
      width: 180,
      render: (v: string, r) => (
        <Flex vertical>
          <Typography.Text ellipsis>{r.deviceName || v}</Typography.Text>
          {r.deviceName && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {v}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    {
      key: 'key',
      dataIndex: 'keyName',
      title: t('integration.jobs.key'),
      width: 140,
      ellipsis: true,
      render: (v: string | null) =>
        v ?? <Typography.Text type="secondary">{t('integration.jobs.keyDeleted')}</Typography.Text>,
    },
    { key: 'copies', dataIndex: 'copies', title: t('integration.jobs.copies'), width: 70, align: 'right' },
    {
      key: 'state',
      dataIndex: 'state',
      title: t('integration.jobs.state'),
      width: 130,
      render: (v: PrintJobState, r) => (
        <Tooltip title={r.error || undefined}>
          <Tag color={JOB_STATE_COLOR[v]}>{t(`integration.jobState.${v}`)}</Tag>
        </Tooltip>
      ),
    },
    {
      key: 'actions',
      title: t('integration.column.actions'),
      fixed: 'right',
      width: 130,
      render: (_, r) => (
        <Flex gap={0} wrap={false}>
          <Button type="link" size="small" onClick={() => setOpen(r.id)}>
            {t('integration.jobs.detail')}
          </Button>
          {canManage && isCancelable(r) && (
            <Button type="link" size="small" danger onClick={() => confirmCancel(r.id)}>
              {t('integration.jobs.cancel')}
            </Button>
          )}
        </Flex>
      ),
    },
  ];

  const polling = live && page.pageNo === 1;
  return (
    <Flex vertical gap={12}>
      <Flex gap={8} wrap align="center">
        <DeviceSelect
          value={filters.deviceId}
          onChange={(deviceId) => change({ deviceId })}
          allowClear
          style={{ width: 220, maxWidth: '100%' }}
        />
        <Select<PrintJobState>
          allowClear
          value={filters.state}
          onChange={(state) => change({ state })}
          placeholder={t('integration.filter.state')}
          options={PRINT_JOB_STATES.map((s) => ({ value: s, label: t(`integration.jobState.${s}`) }))}
          style={{ width: 140 }}
          aria-label={t('integration.filter.state')}
        />
        {canManage && (
          <Select<number>
            allowClear
            value={filters.keyId}
            onChange={(keyId) => change({ keyId })}
            placeholder={t('integration.filter.key')}
            options={(keys.data?.list ?? []).map((k) => ({ value: k.id, label: k.name }))}
            style={{ width: 160 }}
            aria-label={t('integration.filter.key')}
          />
        )}
        <Select<Window>
          value={filters.window}
          onChange={(window) => change({ window })}
          options={(['all', ...WINDOWS] as const).map((w) => ({
            value: w,
            label: t(`integration.filter.window.${w}`),
          }))}
          style={{ width: 140 }}
          aria-label={t('integration.filter.time')}
        />
        <LiveRefresh
          live={polling}
          refreshing={list.isFetching && !list.isPending}
          onRefresh={() => void list.refetch()}
        />
      </Flex>
      <Table<PrintJobItem>
        rowKey="id"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isPending}
        scroll={{ x: 1040 }}
        onRow={(r) =>
          ({ 'data-job-id': r.id, 'data-origin-id': r.originId, 'data-state': r.state }) as HTMLAttributes<HTMLElement>
        }
        locale={{ emptyText: t('integration.jobs.empty') }}
        pagination={pagination}
      />
      <JobDrawer jobId={open} onClose={() => setOpen(null)} onCancel={canManage ? confirmCancel : undefined} />
    </Flex>
  );
}
