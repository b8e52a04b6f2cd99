import { ReloadOutlined } from '@ant-design/icons';
import { Button, Card, DatePicker, Flex, Input, InputNumber, Select, Table, Tag, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import type { Dayjs } from 'dayjs';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PERMISSIONS } from '@cpc/contracts';
import { ORDER_STATES, type OrderState, type OrderView } from '@cpc/contracts/order';
import { formatFen } from '@/lib/format/money';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { usePermission, useSession } from '@/lib/session';
import { ORDER_KEY, useOrders, usePackages, type OrderListParams } from '../api/order';
import { OrderDrawer } from '../components/order-drawer';
import { STATE_COLOR, useCloseOnLeave } from '../utils/order';

interface Filters {
  state?: OrderState;
  range?: [Dayjs | null, Dayjs | null] | null;
  iccid: string;
  orderNo: string;
  packageId?: number;
  tenantId?: number | null;
}
const EMPTY: Filters = { iccid: '', orderNo: '' };
const filtersFromSearch = (q: URLSearchParams): Filters => ({
  ...EMPTY,
  state: (ORDER_STATES as readonly string[]).includes(q.get('state') ?? '')
    ? (q.get('state') as OrderState)
    : undefined,
  orderNo: q.get('orderNo')?.trim().slice(0, 50) ?? '',
});

/** `flowRate/flowRateLog`: the tenant's orders (staff: every tenant's), filters, detail, receipt, refunds. */
export default function FlowRateLogPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const platform = useSession((s) => s.userInfo?.tenantKind === 'platform');
  const refunds = usePermission(PERMISSIONS.flowRateRefund);
  const staff = platform && refunds;
  // a link may ask for a state and an order number (the workbench's "refunds to decide": `?state=paid`)
  const [search] = useSearchParams();
  const [draft, setDraft] = useState<Filters>(() => filtersFromSearch(search));
  const [filters, setFilters] = useState<Filters>(() => filtersFromSearch(search));
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [open, setOpen] = useState<number | null>(null);
  useCloseOnLeave('/flowRate/flowRateLog', open != null, () => setOpen(null));
  const params: OrderListParams = {
    ...page,
    state: filters.state,
    from: filters.range?.[0]?.startOf('day').toISOString(),
    to: filters.range?.[1]?.endOf('day').toISOString(),
    iccid: filters.iccid || undefined,
    orderNo: filters.orderNo || undefined,
    packageId: filters.packageId,
    tenantId: staff ? (filters.tenantId ?? undefined) : undefined,
  };
  const list = useOrders(params);
  const packages = usePackages({ pageSize: 100 });
  useLiveEvents({ order: () => void client.invalidateQueries({ queryKey: ORDER_KEY }) });

  const apply = (f: Filters) => {
    setFilters(f);
    setPage((p) => ({ ...p, pageNo: 1 }));
  };

  const columns: TableProps<OrderView>['columns'] = [
    {
      key: 'orderNo',
      dataIndex: 'orderNo',
      title: t('order.log.column.orderNo'),
      width: 200,
      render: (v: string, r) => (
        <Typography.Link onClick={() => setOpen(r.id)} copyable={{ text: v }}>
          {v}
        </Typography.Link>
      ),
    },
    ...(staff
      ? [{ key: 'tenant', dataIndex: 'tenantName', title: t('order.log.column.tenant'), width: 140, ellipsis: true }]
      : []),
    {
      key: 'packages',
      dataIndex: 'packages',
      title: t('order.log.column.packages'),
      ellipsis: true,
      render: (v: string[]) => v.join(', '),
    },
    { key: 'lines', dataIndex: 'lineCount', title: t('order.log.column.lines'), width: 70, align: 'right' },
    {
      key: 'total',
      dataIndex: 'totalFen',
      title: t('order.log.column.total'),
      width: 110,
      align: 'right',
      render: (v: number) => formatFen(v),
    },
    {
      key: 'state',
      dataIndex: 'state',
      title: t('order.log.column.state'),
      width: 110,
      render: (v: OrderState) => <Tag color={STATE_COLOR[v]}>{t(`order.state.${v}`)}</Tag>,
    },
    {
      key: 'createdAt',
      dataIndex: 'createdAt',
      title: t('order.log.column.createdAt'),
      width: 170,
      render: (v: string) => formatDateTime(v),
    },
    {
      key: 'paidAt',
      dataIndex: 'paidAt',
      title: t('order.log.column.paidAt'),
      width: 170,
      render: (v: string | null) => (v ? formatDateTime(v) : '–'),
    },
    {
      key: 'actions',
      title: t('order.log.column.actions'),
      width: 90,
      fixed: 'right',
      render: (_, r) => (
        <Button type="link" size="small" onClick={() => setOpen(r.id)}>
          {t('order.log.detail')}
        </Button>
      ),
    },
  ];

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('order.log.title')}
          </Typography.Title>
          <Typography.Text type="secondary">
            {staff ? t('order.log.staffSubtitle') : t('order.log.subtitle')}
          </Typography.Text>
        </div>
        <Flex gap={8} wrap>
          <Select<OrderState>
            allowClear
            style={{ width: 150 }}
            placeholder={t('order.log.filter.allStates')}
            aria-label={t('order.log.filter.state')}
            value={draft.state}
            onChange={(state) => setDraft((d) => ({ ...d, state }))}
            options={ORDER_STATES.map((s) => ({ value: s, label: t(`order.state.${s}`) }))}
          />
          <DatePicker.RangePicker
            value={draft.range ?? null}
            onChange={(range) => setDraft((d) => ({ ...d, range }))}
            aria-label={t('order.log.filter.time')}
            style={{ width: 260 }}
          />
          <Input
            allowClear
            style={{ width: 200 }}
            maxLength={20}
            placeholder={t('order.log.filter.iccid')}
            value={draft.iccid}
            onChange={(e) => setDraft((d) => ({ ...d, iccid: e.target.value.replace(/\D/g, '') }))}
            onPressEnter={() => apply(draft)}
          />
          <Input
            allowClear
            style={{ width: 200 }}
            maxLength={40}
            placeholder={t('order.log.filter.orderNo')}
            value={draft.orderNo}
            onChange={(e) => setDraft((d) => ({ ...d, orderNo: e.target.value }))}
            onPressEnter={() => apply(draft)}
          />
          <Select<number>
            allowClear
            style={{ width: 180 }}
            placeholder={t('order.log.filter.package')}
            aria-label={t('order.log.filter.package')}
            value={draft.packageId}
            onChange={(packageId) => setDraft((d) => ({ ...d, packageId }))}
            options={(packages.data?.list ?? []).map((p) => ({ value: p.id, label: p.name }))}
          />
          {staff && (
            <InputNumber<number>
              min={1}
              precision={0}
              style={{ width: 130 }}
              placeholder={t('order.log.filter.tenant')}
              aria-label={t('order.log.filter.tenant')}
              value={draft.tenantId ?? null}
              onChange={(tenantId) => setDraft((d) => ({ ...d, tenantId }))}
            />
          )}
          <Button type="primary" onClick={() => apply(draft)}>
            {t('order.log.filter.search')}
          </Button>
          <Button
            onClick={() => {
              setDraft(EMPTY);
              apply(EMPTY);
            }}
          >
            {t('order.log.filter.reset')}
          </Button>
          <Tooltip title={t('order.log.filter.refresh')}>
            <Button
              icon={<ReloadOutlined />}
              aria-label={t('order.log.filter.refresh')}
              loading={list.isFetching && !list.isPending}
              onClick={() => void list.refetch()}
            />
          </Tooltip>
        </Flex>
        <Table<OrderView>
          rowKey="id"
          columns={columns}
          dataSource={list.data?.list ?? []}
          loading={list.isFetching}
          scroll={{ x: 1100 }}
          locale={{ emptyText: t('order.log.empty') }}
          pagination={{
            current: page.pageNo,
            pageSize: page.pageSize,
            total: list.data?.total ?? 0,
            showSizeChanger: true,
            showTotal: (n) => t('order.log.total', { total: n }),
            onChange: (pageNo, pageSize) => setPage({ pageNo, pageSize }),
          }}
        />
      </Flex>
      <OrderDrawer id={open} onClose={() => setOpen(null)} />
    </Card>
  );
}
