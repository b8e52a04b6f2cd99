import { Empty, Flex, Grid, Segmented, Skeleton, Statistic, Table, Tabs, Tag, Tooltip, Typography, Drawer } from 'antd';
import type { TableProps } from 'antd';
import { Suspense, lazy, useState, type HTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import type { AppKeyView, RequestLogItem } from '@cpc/contracts/integration';
import { REQUEST_LOG_DAYS } from '@cpc/contracts/integration-constants';
import { useRequests, useUsage } from '../api/integration';
import { shortId } from '../utils/format';
import { formatSeconds } from '../../../lib/format/relative-time';
import { LiveBadge, usePagination } from './live-list';

const UsageChart = lazy(() => import('./usage-chart'));

type Result = 'all' | 'ok' | 'error';
type Section = 'requests' | 'usage';
const DAYS = [7, 30] as const;
const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'Asia/Shanghai';

interface KeyDrawerProps {
  record: AppKeyView | null;
  onClose: () => void;
}

/** One key's request log (live while open) and its usage per day. */
export function KeyDrawer({ record, onClose }: KeyDrawerProps) {
  const { t } = useTranslation();
  const screens = Grid.useBreakpoint();
  const [section, setSection] = useState<Section>('requests');
  return (
    <Drawer
      open={!!record}
      onClose={onClose}
      title={record ? t('integration.log.title', { name: record.name }) : ''}
      size={screens.md ? 820 : '100%'}
      destroyOnHidden
      afterOpenChange={(open) => !open && setSection('requests')}
      data-testid="key-drawer"
    >
      {record && (
        <Tabs
          activeKey={section}
          onChange={(k) => setSection(k as Section)}
          items={[
            {
              key: 'requests',
              label: t('integration.log.requests'),
              children: <RequestLog id={record.id} live={section === 'requests'} />,
            },
            { key: 'usage', label: t('integration.log.usage'), children: <Usage id={record.id} /> },
          ]}
        />
      )}
    </Drawer>
  );
}

function RequestLog({ id, live }: { id: number; live: boolean }) {
  const { t } = useTranslation();
  const [result, setResult] = useState<Result>('all');
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  // live only on the first page: later pages would shift under the reader
  const list = useRequests(id, { ...page, result: result === 'all' ? undefined : result }, live && page.pageNo === 1);
  const pagination = usePagination(page, setPage, list.data?.total ?? 0, [20, 50, 100]);
  const columns: TableProps<RequestLogItem>['columns'] = [
    { key: 'at', dataIndex: 'at', title: t('integration.log.at'), width: 170, render: (v: string) => formatSeconds(v) },
    {
      key: 'call',
      dataIndex: 'call',
      title: t('integration.log.call'),
      render: (v: string, r) => (
        <Flex gap={4} wrap align="center">
          <Typography.Text code style={{ whiteSpace: 'nowrap' }}>
            {v}
          </Typography.Text>
          {r.testPrint && <Tag color="purple">{t('integration.log.testPrint')}</Tag>}
        </Flex>
      ),
    },
    {
      key: 'code',
      dataIndex: 'code',
      title: t('integration.log.result'),
      width: 150,
      render: (v: number, r) => (
        <Tooltip title={r.reason ? t(`integration.reason.${r.reason}`, { defaultValue: r.reason }) : undefined}>
          <Tag color={v === 200 ? 'success' : v >= 500 ? 'error' : 'warning'}>{r.reason ? `${v} ${r.reason}` : v}</Tag>
        </Tooltip>
      ),
    },
    {
      key: 'latencyMs',
      dataIndex: 'latencyMs',
      title: t('integration.log.latency'),
      width: 90,
      align: 'right',
      render: (v: number) => `${Math.round(v)} ms`,
    },
    { key: 'ip', dataIndex: 'ip', title: t('integration.log.ip'), width: 130 },
    {
      key: 'jobId',
      dataIndex: 'jobId',
      title: t('integration.log.job'),
      width: 100,
      render: (v: string | null) =>
        v ? (
          <Typography.Text copyable={{ text: v }} style={{ whiteSpace: 'nowrap' }}>
            {shortId(v)}
          </Typography.Text>
        ) : (
          '-'
        ),
    },
  ];
  return (
    <Flex vertical gap={12}>
      <Flex justify="space-between" align="center" gap={8} wrap>
        <Segmented<Result>
          size="small"
          value={result}
          onChange={(v) => {
            setResult(v);
            setPage((p) => ({ ...p, pageNo: 1 }));
          }}
          options={(['all', 'ok', 'error'] as const).map((r) => ({
            value: r,
            label: t(`integration.log.filter.${r}`),
          }))}
        />
        <LiveBadge live={live && page.pageNo === 1} />
      </Flex>
      <Table<RequestLogItem>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isPending}
        scroll={{ x: 820 }}
        onRow={(r) => ({ 'data-call': r.call, 'data-code': r.code }) as HTMLAttributes<HTMLElement>}
        locale={{ emptyText: t('integration.log.empty', { days: REQUEST_LOG_DAYS }) }}
        pagination={{ ...pagination, size: 'small' }}
      />
    </Flex>
  );
}

function Usage({ id }: { id: number }) {
  const { t } = useTranslation();
  const [days, setDays] = useState<(typeof DAYS)[number]>(7);
  const usage = useUsage(id, { days, tz: localZone() });
  const data = usage.data;
  return (
    <Flex vertical gap={16}>
      <Segmented
        size="small"
        value={days}
        onChange={setDays}
        options={DAYS.map((d) => ({ value: d, label: t('integration.usage.days', { n: d }) }))}
        style={{ alignSelf: 'flex-start' }}
      />
      {!data ? (
        <Skeleton active paragraph={{ rows: 5 }} title={false} />
      ) : (
        <>
          <Flex gap={32} wrap data-testid="usage-totals">
            <Statistic title={t('integration.usage.calls')} value={data.totals.calls} />
            <Statistic title={t('integration.usage.errors')} value={data.totals.errors} />
            <Statistic title={t('integration.usage.jobs')} value={data.totals.jobs} />
          </Flex>
          {data.totals.calls + data.totals.jobs > 0 ? (
            <Suspense fallback={<Skeleton active paragraph={{ rows: 5 }} title={false} />}>
              <UsageChart usage={data} />
            </Suspense>
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('integration.usage.empty')} />
          )}
        </>
      )}
    </Flex>
  );
}
