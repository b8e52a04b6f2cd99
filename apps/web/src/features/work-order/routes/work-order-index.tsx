import { PlusOutlined, SettingOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, Flex, Grid, Table, Tooltip, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { WORK_ORDER_DONE_STATES, type WorkOrderItem } from '@cpc/contracts/work-order';
import { formatDateTime, formatRelativeTime } from '@/lib/format/relative-time';
import { getLanguage } from '@/lib/i18n';
import { useLiveEvents } from '@/lib/live-events';
import { usePermission } from '@/lib/session';
import { RELATIVE_TIME_INTERVAL, useNow } from '@/lib/use-now';
import { useAssignees, useSimpleAction, useWorkOrderList, workOrderKeys } from '../api/work-order';
import { FilterBar } from '../components/filter-bar';
import { SettingsDrawer } from '../components/settings-drawer';
import { DueTime, PriorityTag, StateTag } from '../components/tags';
import './work-order-index.css';
import { DEFAULT_PAGE_SIZE, PAGE_SIZES, filterFromSearch, filterParams, type WorkOrderFilter } from '../utils/filter';

/** Live changes are gathered this long before the list reads again. */
const LIVE_DEBOUNCE_MS = 500;

export const detailPath = (id: number) => `/workOrder/detail?id=${id}`;

/**
 * Work orders (issue 14, `/workOrder/workOrderIndex`). A customer sees the account's orders and opens new ones;
 * staff with workOrder:handle see the queue of every account on the same page (account, assignee, targets, the
 * overdue highlighted, "take"), and the settings (targets, canned replies). Filters live in the URL.
 */
export default function WorkOrderIndexPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const narrow = !Grid.useBreakpoint().md;
  const now = useNow(RELATIVE_TIME_INTERVAL);
  const [search, setSearch] = useSearchParams();
  const filter = useMemo(() => filterFromSearch(search), [search]);
  const pageNo = filter.pageNo ?? 1;
  const pageSize = filter.pageSize ?? DEFAULT_PAGE_SIZE;
  const staff = usePermission(PERMISSIONS.workOrderHandle);
  const canOpen = usePermission(PERMISSIONS.workOrderEdit) && !staff;
  const list = useWorkOrderList({ ...filter, pageNo, pageSize });
  const assignees = useAssignees(staff);
  const take = useSimpleAction();
  const [settingsOpen, setSettingsOpen] = useState(false);

  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useLiveEvents({
    workOrder: () => {
      if (timer.current) return;
      timer.current = setTimeout(() => {
        timer.current = null;
        void client.invalidateQueries({ queryKey: ['work-order', 'list'] });
      }, LIVE_DEBOUNCE_MS);
    },
    onGap: () => void client.invalidateQueries({ queryKey: workOrderKeys.all }),
  });

  const go = (f: WorkOrderFilter) => setSearch(new URLSearchParams(filterParams(f)));

  const columns: TableProps<WorkOrderItem>['columns'] = [
    {
      key: 'orderNo',
      dataIndex: 'orderNo',
      title: t('workOrder.column.orderNo'),
      width: 150,
      render: (v: string, o) => (
        <Badge dot={o.unread} offset={[6, 0]} data-testid={o.unread ? 'work-order-unread' : undefined}>
          <Link to={detailPath(o.id)}>{v}</Link>
        </Badge>
      ),
    },
    {
      key: 'title',
      dataIndex: 'title',
      title: t('workOrder.column.title'),
      width: staff ? 130 : undefined,
      ellipsis: true,
      render: (v: string, o) => (
        <Link to={detailPath(o.id)} style={{ color: 'inherit', fontWeight: o.unread ? 600 : undefined }}>
          {v}
        </Link>
      ),
    },
    ...(staff
      ? [
          {
            key: 'tenant',
            dataIndex: 'tenantName',
            title: t('workOrder.column.account'),
            width: 110,
            ellipsis: true,
          },
        ]
      : []),
    {
      key: 'type',
      dataIndex: 'type',
      title: t('workOrder.column.type'),
      width: 90,
      render: (v: string) => t(`workOrder.type.${v}`),
    },
    {
      key: 'priority',
      dataIndex: 'priority',
      title: t('workOrder.column.priority'),
      width: 76,
      render: (_: unknown, o) => <PriorityTag priority={o.priority} />,
    },
    {
      key: 'state',
      dataIndex: 'state',
      title: t('workOrder.column.state'),
      width: 96,
      render: (_: unknown, o) => <StateTag state={o.state} />,
    },
    ...(staff
      ? [
          {
            key: 'assignee',
            title: t('workOrder.column.assignee'),
            width: 96,
            ellipsis: true,
            render: (_: unknown, o: WorkOrderItem) =>
              o.assignee ? (
                o.assignee.name
              ) : (
                <Typography.Text type="secondary">{t('workOrder.unassigned')}</Typography.Text>
              ),
          },
          {
            key: 'due',
            title: t('workOrder.column.due'),
            width: 110,
            render: (_: unknown, o: WorkOrderItem) => {
              const done = WORK_ORDER_DONE_STATES.includes(o.state) || o.state === 'resolved';
              if (done) return <Typography.Text type="secondary">–</Typography.Text>;
              // before the first answer the response target counts, after it the resolution target
              return o.firstResponseAt ? (
                <DueTime at={o.resolveDueAt} now={now} done={false} />
              ) : (
                <DueTime at={o.responseDueAt} now={now} done={false} />
              );
            },
          },
        ]
      : []),
    {
      key: 'updated',
      dataIndex: 'updatedAt',
      title: t('workOrder.column.updated'),
      width: 100,
      render: (v: string) => <Tooltip title={formatDateTime(v)}>{formatRelativeTime(v, getLanguage(), now)}</Tooltip>,
    },
    ...(staff
      ? [
          {
            key: 'action',
            title: t('workOrder.column.action'),
            width: 64,
            fixed: narrow ? undefined : ('right' as const),
            render: (_: unknown, o: WorkOrderItem) =>
              !o.assignee && !WORK_ORDER_DONE_STATES.includes(o.state) && o.state !== 'resolved' ? (
                <Button
                  type="link"
                  size="small"
                  loading={take.isPending && take.variables?.id === o.id}
                  data-testid={`work-order-take-${o.id}`}
                  onClick={() => take.mutate({ action: 'take', id: o.id })}
                >
                  {t('workOrder.action.take')}
                </Button>
              ) : null,
          },
        ]
      : []),
  ];

  const onTableChange: TableProps<WorkOrderItem>['onChange'] = (pagination) =>
    go({
      ...filter,
      pageSize: pagination.pageSize === DEFAULT_PAGE_SIZE ? undefined : pagination.pageSize,
      pageNo: (pagination.current ?? 1) === 1 ? undefined : pagination.current,
    });

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="start" gap={8} wrap>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t(staff ? 'workOrder.queueTitle' : 'workOrder.title')}
            </Typography.Title>
            <Typography.Text type="secondary">
              {t(staff ? 'workOrder.queueSubtitle' : 'workOrder.subtitle')}
            </Typography.Text>
          </div>
          <Flex gap={8}>
            {staff && (
              <Button
                icon={<SettingOutlined />}
                onClick={() => setSettingsOpen(true)}
                data-testid="work-order-settings"
              >
                {t('workOrder.settings.open')}
              </Button>
            )}
            {canOpen && (
              <Button
                type="primary"
                icon={<PlusOutlined />}
                onClick={() => navigate('/workOrder/edit')}
                data-testid="work-order-new"
              >
                {t('workOrder.new')}
              </Button>
            )}
          </Flex>
        </Flex>
        <FilterBar
          filter={filter}
          staff={staff}
          assignees={assignees.data}
          onSearch={(f) => go({ ...f, pageSize: filter.pageSize })}
        />
        <Table<WorkOrderItem>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={list.data?.list ?? []}
          loading={list.isFetching && !list.data}
          rowClassName={(o) => (staff && o.overdue ? 'cpc-wo-overdue' : '')}
          onRow={(o) => (staff && o.overdue ? ({ 'data-overdue': 'true' } as React.HTMLAttributes<HTMLElement>) : {})}
          pagination={{
            current: pageNo,
            pageSize,
            total: list.data?.total ?? 0,
            pageSizeOptions: PAGE_SIZES,
            showSizeChanger: true,
            size: narrow ? 'small' : undefined,
            showTotal: (total) => t('workOrder.total', { total: total.toLocaleString() }),
          }}
          onChange={onTableChange}
          scroll={{ x: staff ? 1030 : 780 }}
          locale={{ emptyText: t(staff ? 'workOrder.emptyQueue' : 'workOrder.empty') }}
          data-testid="work-order-table"
        />
      </Flex>
      {staff && <SettingsDrawer open={settingsOpen} onClose={() => setSettingsOpen(false)} />}
    </Card>
  );
}
