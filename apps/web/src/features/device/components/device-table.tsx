import {
  DeleteOutlined,
  DragOutlined,
  EditOutlined,
  FileSearchOutlined,
  MoreOutlined,
  PoweroffOutlined,
  ReloadOutlined,
} from '@ant-design/icons';
import { Button, Dropdown, Flex, Grid, Space, Table, Tooltip, Typography, type MenuProps, type TableProps } from 'antd';
import type { SortOrder } from 'antd/es/table/interface';
import type { HTMLAttributes, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { DeviceSort } from '@cpc/contracts/device-constants';
import type { DeviceListItem } from '@cpc/contracts/device';
import { OPTIONAL_COLUMNS, type OptionalColumn } from '../hooks/use-device-columns';
import { PAGE_SIZES } from '../utils/list-query';
import { BatteryCell, DataLeftCell, PaperTag, SeenAt, SignalCell, StatusBadge } from './device-cells';

export type DeviceAction = 'reboot' | 'shutdown' | 'edit' | 'move' | 'unbind';

export interface DeviceAllowed {
  reboot: boolean;
  shutdown: boolean;
  edit: boolean;
  unbind: boolean;
}

interface DeviceTableProps {
  data: DeviceListItem[];
  total: number;
  pageNo: number;
  pageSize: number;
  loading: boolean;
  sort?: DeviceSort;
  order?: 'asc' | 'desc';
  now: number;
  scrollY?: number;
  selected: number[];
  /** The optional columns on show (the user's choice, or the priorities for the width). */
  visible: Set<OptionalColumn>;
  allowed: DeviceAllowed;
  empty: ReactNode;
  onSelect: (ids: number[], rows: DeviceListItem[]) => void;
  onPageChange: (pageNo: number, pageSize: number) => void;
  onSortChange: (sort: DeviceSort | undefined, order: 'asc' | 'desc' | undefined) => void;
  onAction: (action: DeviceAction, device: DeviceListItem) => void;
}

export const detailPath = (id: number) => `/device/detail?id=${id}`;

/** The columns a user may sort by, and the server's sort key of each. */
const SORT_OF_COLUMN: Record<string, DeviceSort> = {
  device: 'name',
  battery: 'battery',
  signal: 'signal',
  simLeft: 'dataLeft',
  lastSeen: 'lastSeen',
};

/** The fleet: one row per device with its live values, sorted and paged by the server. */
export function DeviceTable(props: DeviceTableProps) {
  const {
    data,
    total,
    pageNo,
    pageSize,
    loading,
    sort,
    order,
    now,
    scrollY,
    selected,
    visible,
    allowed,
    empty,
    onSelect,
    onPageChange,
    onSortChange,
    onAction,
  } = props;
  const { t } = useTranslation();
  // a phone keeps status, name and actions; the rest is on the detail page
  const compact = !Grid.useBreakpoint().md;
  const pin = data.length > 0 && !compact;
  const none = <Typography.Text type="secondary">{t('device.none')}</Typography.Text>;

  const sortOrder = (column: string): SortOrder | undefined =>
    SORT_OF_COLUMN[column] === sort ? (order === 'desc' ? 'descend' : 'ascend') : null;

  const menuFor = (): MenuProps['items'] => {
    const items: MenuProps['items'] = [];
    if (allowed.shutdown)
      items.push({ key: 'shutdown', icon: <PoweroffOutlined />, label: t('device.list.action.shutdown') });
    if (allowed.edit) {
      items.push({ key: 'edit', icon: <EditOutlined />, label: t('device.list.action.edit') });
      items.push({ key: 'move', icon: <DragOutlined />, label: t('device.list.action.move') });
    }
    if (allowed.unbind) {
      if (items.length) items.push({ type: 'divider' });
      items.push({ key: 'unbind', icon: <DeleteOutlined />, danger: true, label: t('device.list.action.unbind') });
    }
    if (compact && allowed.reboot)
      items.unshift({ key: 'reboot', icon: <ReloadOutlined />, label: t('device.list.action.reboot') });
    return items;
  };

  const all: NonNullable<TableProps<DeviceListItem>['columns']> = [
    {
      key: 'status',
      title: t('device.list.columns.status'),
      width: compact ? 76 : 84,
      fixed: pin ? 'left' : undefined,
      render: (_, r) => <StatusBadge status={r.status} />,
    },
    {
      key: 'device',
      title: t('device.list.columns.device'),
      fixed: pin ? 'left' : undefined,
      width: compact ? undefined : 160,
      sorter: true,
      sortOrder: sortOrder('device'),
      render: (_, r) => (
        <Flex vertical style={{ minWidth: 0 }}>
          <Link to={detailPath(r.id)} data-testid="device-link">
            <Typography.Text strong ellipsis style={{ maxWidth: compact ? 150 : 144, color: 'inherit' }}>
              {r.name || r.sn}
            </Typography.Text>
          </Link>
          {r.name && (
            <Typography.Text type="secondary" style={{ fontSize: 12 }} copyable={compact ? false : { text: r.sn }}>
              {r.sn}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    {
      key: 'model',
      title: t('device.list.columns.model'),
      width: 150,
      ellipsis: { showTitle: true },
      render: (_, r) => r.modelName,
    },
    {
      key: 'group',
      title: t('device.list.columns.group'),
      width: 120,
      ellipsis: { showTitle: true },
      render: (_, r) => r.groupName ?? <Typography.Text type="secondary">{t('device.ungrouped')}</Typography.Text>,
    },
    {
      key: 'paper',
      title: t('device.list.columns.paper'),
      width: 76,
      render: (_, r) => <PaperTag paper={r.paper} short />,
    },
    {
      key: 'battery',
      title: t('device.list.columns.battery'),
      width: 88,
      sorter: true,
      sortOrder: sortOrder('battery'),
      render: (_, r) => <BatteryCell value={r.battery} />,
    },
    {
      key: 'signal',
      title: t('device.list.columns.signal'),
      width: 84,
      sorter: true,
      sortOrder: sortOrder('signal'),
      render: (_, r) => <SignalCell value={r.signal} />,
    },
    {
      key: 'firmware',
      title: t('device.list.columns.firmware'),
      width: 100,
      ellipsis: { showTitle: true },
      render: (_, r) => r.firmware || none,
    },
    {
      key: 'simLeft',
      title: t('device.list.columns.simLeft'),
      width: 108,
      sorter: true,
      sortOrder: sortOrder('simLeft'),
      render: (_, r) => <DataLeftCell mb={r.simDataLeftMb} plan={r.simPlanMb} state={r.simState} />,
    },
    {
      key: 'lastSeen',
      title: t('device.list.columns.lastSeen'),
      width: 104,
      sorter: true,
      sortOrder: sortOrder('lastSeen'),
      render: (_, r) => <SeenAt at={r.lastSeenAt} now={now} />,
    },
    {
      key: 'actions',
      title: t('device.list.columns.actions'),
      fixed: pin ? 'right' : undefined,
      width: compact ? 52 : 100,
      render: (_, r) => {
        const items = menuFor();
        return (
          <Space size={0}>
            {!compact && (
              <Tooltip title={t('device.list.action.detail')}>
                <Link to={detailPath(r.id)} aria-label={t('device.list.action.detail')}>
                  <Button type="link" size="small" icon={<FileSearchOutlined />} tabIndex={-1} />
                </Link>
              </Tooltip>
            )}
            {!compact && allowed.reboot && (
              <Tooltip title={t('device.list.action.reboot')}>
                <Button
                  type="link"
                  size="small"
                  icon={<ReloadOutlined />}
                  aria-label={t('device.list.action.reboot')}
                  onClick={() => onAction('reboot', r)}
                />
              </Tooltip>
            )}
            {!!items?.length && (
              <Dropdown trigger={['click']} menu={{ items, onClick: ({ key }) => onAction(key as DeviceAction, r) }}>
                <Tooltip title={compact ? undefined : t('device.list.action.more')}>
                  <Button
                    type="link"
                    size="small"
                    icon={<MoreOutlined />}
                    aria-label={`${t('device.list.action.more')} ${r.name || r.sn}`}
                  />
                </Tooltip>
              </Dropdown>
            )}
          </Space>
        );
      },
    },
  ];
  const columns = all.filter(
    (c) => !(OPTIONAL_COLUMNS as readonly unknown[]).includes(c.key) || visible.has(c.key as OptionalColumn),
  );

  return (
    <Table<DeviceListItem>
      rowKey="id"
      size="middle"
      columns={columns}
      dataSource={data}
      loading={loading}
      scroll={{ x: compact ? undefined : 'max-content', y: scrollY }}
      rowSelection={{
        selectedRowKeys: selected,
        onChange: (keys, rows) => onSelect(keys as number[], rows),
        columnWidth: compact ? 32 : 40,
        fixed: pin,
      }}
      onRow={(r) => ({ 'data-device-sn': r.sn, 'data-status': r.status }) as HTMLAttributes<HTMLElement>}
      locale={{ emptyText: empty }}
      onChange={(_pagination, _filters, sorter, extra) => {
        if (extra.action !== 'sort') return;
        const s = Array.isArray(sorter) ? sorter[0] : sorter;
        const key = s?.columnKey ? SORT_OF_COLUMN[String(s.columnKey)] : undefined;
        if (!key || !s.order) onSortChange(undefined, undefined);
        else onSortChange(key, s.order === 'descend' ? 'desc' : 'asc');
      }}
      pagination={{
        current: pageNo,
        pageSize,
        total,
        showSizeChanger: !compact,
        pageSizeOptions: PAGE_SIZES.map(String),
        size: compact ? 'small' : undefined,
        showTotal: compact ? undefined : (n) => t('device.list.total', { total: n }),
        onChange: onPageChange,
      }}
    />
  );
}
