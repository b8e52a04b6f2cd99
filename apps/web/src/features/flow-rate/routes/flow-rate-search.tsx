import { ShoppingCartOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Card, Flex, Grid, Progress, Table, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import type { SortOrder } from 'antd/es/table/interface';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { SimItem, SimSort } from '@cpc/contracts/flow-rate';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { formatDate, formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { usePermission } from '@/lib/session';
import { useGroupTreeOptions } from '@/lib/device-targets';
import { downloadSimCsv, simKeys, useSimList, useSimSummary } from '../api/flow-rate';
import { FilterBar } from '../components/filter-bar';
import { StateTag } from '../components/state-tag';
import { SummaryCards } from '../components/summary-cards';
import { UsageDrawer } from '../components/usage-drawer';
import {
  PAGE_SIZES,
  filterFromSearch,
  filterParams,
  formatMbValue,
  leftStatus,
  withoutPaging,
  type SimFilter,
} from '../utils/filter';

/** Live SIM changes are gathered this long before the page reads again. */
const LIVE_DEBOUNCE_MS = 1500;

/**
 * The traffic query (issue 13, `/flowRate/flowRateSearch`): the account's SIMs, server-paged, with the totals,
 * filters (kept in the URL, so `?state=low,exhausted` opens the page filtered), each SIM's usage chart, the CSV
 * export of the filtered list and the way to buy packages for the SIMs selected.
 */
export default function FlowRateSearchPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const client = useQueryClient();
  const narrow = !Grid.useBreakpoint().md;
  const [search, setSearch] = useSearchParams();
  const filter = useMemo(() => filterFromSearch(search), [search]);
  const pageNo = filter.pageNo ?? 1;
  const pageSize = filter.pageSize ?? 20;
  const list = useSimList({ ...filter, pageNo, pageSize });
  const summary = useSimSummary();
  const canBuy = usePermission(PERMISSIONS.flowRateBuy);
  // the group filter (only with device:view)
  const groups = useGroupTreeOptions(usePermission(PERMISSIONS.deviceView));
  const [selected, setSelected] = useState<string[]>([]);
  const [chartOf, setChartOf] = useState<SimItem | null>(null);
  const [exporting, setExporting] = useState(false);

  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useLiveEvents({
    sim: () => {
      if (timer.current) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        void client.invalidateQueries({ queryKey: simKeys.all });
      }, LIVE_DEBOUNCE_MS);
    },
  });

  const go = (f: SimFilter) => setSearch(new URLSearchParams(filterParams(f)));
  const applyFilter = (f: SimFilter) => {
    setSelected([]);
    go({ ...f, sort: filter.sort, order: filter.order, pageSize: filter.pageSize });
  };

  const exportCsv = async () => {
    setExporting(true);
    try {
      await downloadSimCsv(withoutPaging(filter));
    } catch {
      message.error(t('flowRate.exportFailed'));
    } finally {
      setExporting(false);
    }
  };

  const sortOrder = (key: SimSort): SortOrder | undefined =>
    (filter.sort ?? 'remaining') === key ? ((filter.order ?? 'asc') === 'asc' ? 'ascend' : 'descend') : undefined;

  const columns: TableProps<SimItem>['columns'] = [
    {
      key: 'iccid',
      dataIndex: 'iccid',
      title: t('flowRate.column.iccid'),
      // 20 digits and the copy button on one line
      width: 200,
      render: (v: string) => (
        <Typography.Text copyable={{ text: v }} style={{ whiteSpace: 'nowrap' }}>
          {v}
        </Typography.Text>
      ),
    },
    {
      key: 'device',
      title: t('flowRate.column.device'),
      width: 130,
      ellipsis: true,
      render: (_: unknown, s) =>
        s.deviceSn ? (
          <Flex vertical>
            <span>{s.deviceName || s.deviceSn}</span>
            {s.deviceName ? <Typography.Text type="secondary">{s.deviceSn}</Typography.Text> : null}
          </Flex>
        ) : (
          <Typography.Text type="secondary">{t('flowRate.noDevice')}</Typography.Text>
        ),
    },
    {
      key: 'state',
      dataIndex: 'state',
      title: t('flowRate.column.state'),
      width: 90,
      render: (_: unknown, s) => <StateTag state={s.state} />,
    },
    {
      key: 'remaining',
      title: t('flowRate.column.left'),
      width: 160,
      sorter: true,
      sortOrder: sortOrder('remaining'),
      render: (_: unknown, s) =>
        s.planMb > 0 ? (
          <Tooltip title={t('flowRate.leftOf', { left: formatMbValue(s.leftMb), plan: formatMbValue(s.planMb) })}>
            <Progress
              percent={s.leftPercent ?? 0}
              size="small"
              status={leftStatus(s.state)}
              strokeColor={s.state === 'low' ? 'var(--ant-color-warning)' : undefined}
              format={() => formatMbValue(s.leftMb)}
            />
          </Tooltip>
        ) : (
          <Typography.Text type="secondary">{t('flowRate.noPlan')}</Typography.Text>
        ),
    },
    {
      key: 'expiry',
      dataIndex: 'expiresAt',
      title: t('flowRate.column.expiry'),
      width: 110,
      sorter: true,
      sortOrder: sortOrder('expiry'),
      // the day is what matters; the minute is in the tooltip
      render: (v: string | null) =>
        v ? <Tooltip title={formatDateTime(v)}>{formatDate(v)}</Tooltip> : t('flowRate.never'),
    },
    {
      key: 'usedMonth',
      dataIndex: 'usedMonthMb',
      title: t('flowRate.column.usedMonth'),
      width: 100,
      sorter: true,
      sortOrder: sortOrder('usedMonth'),
      render: (v: number) => formatMbValue(v),
    },
    {
      key: 'carrier',
      dataIndex: 'carrier',
      title: t('flowRate.column.carrier'),
      width: 80,
      render: (v: string) => (['cmcc', 'cucc', 'ctcc'].includes(v) ? t(`flowRate.carrier.${v}`) : v || '–'),
    },
    {
      key: 'action',
      title: t('flowRate.column.action'),
      // "Usage chart" in en, whole beside the pinned edge
      width: 110,
      fixed: narrow ? undefined : 'right',
      render: (_: unknown, s) => (
        <Button type="link" size="small" onClick={() => setChartOf(s)} data-testid={`sim-chart-${s.iccid}`}>
          {t('flowRate.chart')}
        </Button>
      ),
    },
  ];

  const onTableChange: TableProps<SimItem>['onChange'] = (pagination, _filters, sorter) => {
    const one = Array.isArray(sorter) ? sorter[0] : sorter;
    const key = one?.columnKey as SimSort | undefined;
    const sort = one?.order && key ? key : undefined;
    const order = one?.order === 'descend' ? 'desc' : one?.order === 'ascend' ? 'asc' : undefined;
    const sortChanged = sort !== filter.sort || order !== filter.order;
    go({
      ...filter,
      sort,
      order,
      pageSize: pagination.pageSize === 20 ? undefined : pagination.pageSize,
      pageNo: sortChanged || (pagination.current ?? 1) === 1 ? undefined : pagination.current,
    });
  };

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('flowRate.title')}
          </Typography.Title>
          <Typography.Text type="secondary">{t('flowRate.subtitle')}</Typography.Text>
        </div>
        <SummaryCards summary={summary.data} loading={summary.isLoading} />
        <FilterBar
          filter={filter}
          groups={groups.data?.tree}
          exporting={exporting}
          onSearch={applyFilter}
          onExport={() => void exportCsv()}
        />
        {canBuy && (
          <Flex gap={8} align="center" wrap>
            <Tooltip title={selected.length ? undefined : t('flowRate.buyHint')}>
              <Button
                type="primary"
                icon={<ShoppingCartOutlined />}
                disabled={!selected.length}
                data-testid="sim-buy"
                onClick={() => navigate(`/flowRate/mallGoods?iccids=${selected.join(',')}`)}
              >
                {t('flowRate.buy')}
              </Button>
            </Tooltip>
            {selected.length > 0 && (
              <Typography.Text type="secondary">{t('flowRate.selected', { n: selected.length })}</Typography.Text>
            )}
          </Flex>
        )}
        <Table<SimItem>
          rowKey="iccid"
          size="middle"
          columns={columns}
          dataSource={list.data?.list ?? []}
          loading={list.isFetching && !list.data}
          rowSelection={{
            selectedRowKeys: selected,
            preserveSelectedRowKeys: true,
            onChange: (keys) => setSelected(keys as string[]),
          }}
          pagination={{
            current: pageNo,
            pageSize,
            total: list.data?.total ?? 0,
            pageSizeOptions: PAGE_SIZES,
            showSizeChanger: true,
            size: narrow ? 'small' : undefined,
            showTotal: (total) => t('flowRate.total', { total: total.toLocaleString() }),
          }}
          onChange={onTableChange}
          scroll={{ x: 1030 }}
          locale={{ emptyText: t('flowRate.empty') }}
          data-testid="sim-table"
        />
      </Flex>
      <UsageDrawer sim={chartOf} onClose={() => setChartOf(null)} />
    </Card>
  );
}
