import { Badge, Button, Flex, Table, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import type { RegistryItem } from '@cpc/contracts/device-registry';
import { formatDateTime } from '@/lib/format/relative-time';

interface RegistryTableProps {
  data: RegistryItem[];
  total: number;
  pageNo: number;
  pageSize: number;
  loading: boolean;
  onPageChange: (pageNo: number, pageSize: number) => void;
  /** Issue a new bind key for a device (a lost label, a key an unbinding owner lost); absent: no such action. */
  onReissue?: (item: RegistryItem) => void;
}

const dateOrDash = (v: string | null) => (v ? formatDateTime(v) : '-');

/** Every device made, bound or not, with its owner. */
export function RegistryTable({ data, total, pageNo, pageSize, loading, onPageChange, onReissue }: RegistryTableProps) {
  const { t } = useTranslation();
  const columns: TableProps<RegistryItem>['columns'] = [
    {
      key: 'sn',
      dataIndex: 'sn',
      title: t('deviceRegistry.column.sn'),
      width: 170,
      fixed: 'left',
      render: (v: string) => (
        <Typography.Text strong copyable={{ text: v }}>
          {v}
        </Typography.Text>
      ),
    },
    {
      key: 'model',
      title: t('deviceRegistry.column.model'),
      width: 180,
      ellipsis: true,
      render: (_, r) => (
        <Flex vertical>
          <span>{r.modelName}</span>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {r.modelCode}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'bound',
      dataIndex: 'bound',
      title: t('deviceRegistry.column.bound'),
      width: 100,
      render: (v: boolean) => (
        <Tag color={v ? 'green' : 'default'}>
          {v ? t('deviceRegistry.bound.true') : t('deviceRegistry.bound.false')}
        </Tag>
      ),
    },
    {
      key: 'owner',
      dataIndex: 'tenantName',
      title: t('deviceRegistry.column.owner'),
      ellipsis: true,
      render: (v: string | null) => v ?? <Typography.Text type="secondary">-</Typography.Text>,
    },
    { key: 'boundAt', dataIndex: 'boundAt', title: t('deviceRegistry.column.boundAt'), width: 150, render: dateOrDash },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('deviceRegistry.column.status'),
      width: 100,
      render: (v: RegistryItem['status']) => (
        <Badge status={v === 'online' ? 'success' : 'default'} text={t(`deviceRegistry.status.${v}`)} />
      ),
    },
    {
      key: 'ids',
      title: t('deviceRegistry.column.ids'),
      width: 220,
      render: (_, r) => (
        <Flex vertical style={{ fontSize: 12 }}>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            ICCID {r.iccid ?? '-'}
          </Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            IMEI {r.imei || '-'}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      key: 'createdAt',
      dataIndex: 'createdAt',
      title: t('deviceRegistry.column.createdAt'),
      width: 150,
      render: (v: string) => formatDateTime(v),
    },
    ...(onReissue
      ? [
          {
            key: 'actions',
            title: t('deviceRegistry.column.actions'),
            width: 130,
            fixed: 'right' as const,
            render: (_: unknown, r: RegistryItem) => (
              <Button type="link" size="small" onClick={() => onReissue(r)}>
                {t('deviceRegistry.action.reissue')}
              </Button>
            ),
          },
        ]
      : []),
  ];
  return (
    <Table<RegistryItem>
      rowKey="id"
      columns={columns}
      dataSource={data}
      loading={loading}
      scroll={{ x: onReissue ? 1370 : 1240 }}
      locale={{ emptyText: t('deviceRegistry.empty') }}
      pagination={{
        current: pageNo,
        pageSize,
        total,
        showSizeChanger: true,
        pageSizeOptions: [10, 20, 50, 100],
        showTotal: (n) => t('deviceRegistry.total', { total: n }),
        onChange: onPageChange,
      }}
    />
  );
}
