import { DeleteOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Flex, Table, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DeviceModelView } from '@cpc/contracts/device-model';
import { formatDateTime } from '@/lib/format/relative-time';

interface ModelTableProps {
  data: DeviceModelView[];
  total: number;
  pageNo: number;
  pageSize: number;
  loading: boolean;
  onPageChange: (pageNo: number, pageSize: number) => void;
  onEdit: (record: DeviceModelView) => void;
  onDelete: (record: DeviceModelView) => void;
}

export function ModelTable({
  data,
  total,
  pageNo,
  pageSize,
  loading,
  onPageChange,
  onEdit,
  onDelete,
}: ModelTableProps) {
  const { t } = useTranslation();
  const columns: TableProps<DeviceModelView>['columns'] = [
    {
      key: 'code',
      dataIndex: 'code',
      title: t('deviceModel.column.code'),
      width: 150,
      render: (v: string) => (
        <Typography.Text strong copyable={{ text: v }}>
          {v}
        </Typography.Text>
      ),
    },
    { key: 'name', dataIndex: 'name', title: t('deviceModel.column.name'), ellipsis: true },
    {
      key: 'kind',
      dataIndex: 'kind',
      title: t('deviceModel.column.kind'),
      width: 120,
      render: (v: DeviceModelView['kind']) => (
        <Tag color={v === 'printer' ? 'blue' : 'geekblue'}>{t(`deviceModel.kind.${v}`)}</Tag>
      ),
    },
    {
      key: 'paperWidthMm',
      dataIndex: 'paperWidthMm',
      title: t('deviceModel.column.paperWidth'),
      width: 100,
      render: (v: number) => (v > 0 ? `${v} mm` : t('deviceModel.noPaper')),
    },
    {
      key: 'capabilities',
      dataIndex: 'capabilities',
      title: t('deviceModel.column.capabilities'),
      render: (v: string[]) =>
        v.length ? (
          <Flex wrap gap={4}>
            {v.map((c) => (
              <Tag key={c} style={{ marginInlineEnd: 0 }}>
                {c}
              </Tag>
            ))}
          </Flex>
        ) : (
          <Typography.Text type="secondary">{t('deviceModel.none')}</Typography.Text>
        ),
    },
    {
      key: 'deviceCount',
      dataIndex: 'deviceCount',
      title: t('deviceModel.column.devices'),
      width: 100,
      align: 'right',
    },
    {
      key: 'createdAt',
      dataIndex: 'createdAt',
      title: t('deviceModel.column.createdAt'),
      width: 160,
      render: (v: string) => formatDateTime(v),
    },
    {
      key: 'actions',
      title: t('deviceModel.column.actions'),
      fixed: 'right',
      width: 150,
      render: (_, r) => (
        <Flex gap={4} wrap={false}>
          <Button type="link" size="small" icon={<EditOutlined />} onClick={() => onEdit(r)}>
            {t('deviceModel.action.edit')}
          </Button>
          <Button type="link" size="small" danger icon={<DeleteOutlined />} onClick={() => onDelete(r)}>
            {t('deviceModel.action.delete')}
          </Button>
        </Flex>
      ),
    },
  ];
  return (
    <Table<DeviceModelView>
      rowKey="id"
      columns={columns}
      dataSource={data}
      loading={loading}
      scroll={{ x: 1000 }}
      locale={{ emptyText: t('deviceModel.empty') }}
      pagination={{
        current: pageNo,
        pageSize,
        total,
        showSizeChanger: true,
        pageSizeOptions: [10, 20, 50, 100],
        showTotal: (n) => t('deviceModel.total', { total: n }),
        onChange: onPageChange,
      }}
    />
  );
}
