import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Card, Flex, Input, Switch, Table, Tag, Typography } from 'antd';
import type { TableProps } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PackageView } from '@cpc/contracts/order';
import { formatFen, formatMb } from '@/lib/format/money';
import { useDeletePackage, usePackages, useShelfPackage } from '../api/order';
import { PackageDrawer } from './package-drawer';

/** The package catalogue as staff manage it: table, add/edit drawer, on/off sale, delete. */
export function Catalogue() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [editing, setEditing] = useState<PackageView | null>(null);
  const [open, setOpen] = useState(false);
  const list = usePackages({ ...page, keyword: keyword || undefined });
  const shelf = useShelfPackage();
  const remove = useDeletePackage();

  const fit = (p: PackageView) => {
    const parts: string[] = [
      p.carriers.length
        ? p.carriers.map((c) => t(`order.carrier.${c as 'cmcc' | 'cucc' | 'ctcc'}`)).join(' / ')
        : t('order.mall.allCarriers'),
    ];
    if (p.planMinMb != null || p.planMaxMb != null) {
      parts.push(
        t('order.goods.planRange', {
          min: p.planMinMb != null ? formatMb(p.planMinMb) : t('order.goods.any'),
          max: p.planMaxMb != null ? formatMb(p.planMaxMb) : t('order.goods.any'),
        }),
      );
    }
    return parts.join('; ');
  };

  const columns: TableProps<PackageView>['columns'] = [
    { key: 'name', dataIndex: 'name', title: t('order.goods.column.name'), ellipsis: true },
    {
      key: 'data',
      dataIndex: 'dataMb',
      title: t('order.goods.column.data'),
      width: 100,
      render: (v: number) => formatMb(v),
    },
    {
      key: 'validity',
      dataIndex: 'validityDays',
      title: t('order.goods.column.validity'),
      width: 90,
      render: (n: number) => t('order.goods.days', { n }),
    },
    {
      key: 'price',
      dataIndex: 'priceFen',
      title: t('order.goods.column.price'),
      width: 100,
      align: 'right',
      render: (v: number) => formatFen(v),
    },
    {
      key: 'shelf',
      dataIndex: 'onShelf',
      title: t('order.goods.column.shelf'),
      width: 110,
      render: (v: boolean, r) => (
        <Switch
          size="small"
          checked={v}
          checkedChildren={t('order.goods.onSale')}
          unCheckedChildren={t('order.goods.notOnSale')}
          aria-label={v ? t('order.goods.offShelf') : t('order.goods.onShelf')}
          onChange={(onShelf) => void shelf.mutateAsync({ id: r.id, onShelf }).catch(() => {})}
        />
      ),
    },
    {
      key: 'limit',
      dataIndex: 'perSimLimit',
      title: t('order.goods.column.limit'),
      width: 90,
      render: (v: number | null) => (v == null ? t('order.goods.unlimited') : v),
    },
    { key: 'fit', title: t('order.goods.column.fit'), render: (_, r) => <Tag>{fit(r)}</Tag> },
    { key: 'sort', dataIndex: 'sort', title: t('order.goods.column.sort'), width: 70 },
    {
      key: 'actions',
      title: t('order.goods.column.actions'),
      fixed: 'right',
      width: 180,
      render: (_, r) => (
        <Flex gap={4}>
          <Button
            type="link"
            size="small"
            icon={<EditOutlined />}
            onClick={() => {
              setEditing(r);
              setOpen(true);
            }}
          >
            {t('order.goods.edit')}
          </Button>
          <Button
            type="link"
            size="small"
            danger
            icon={<DeleteOutlined />}
            onClick={() =>
              modal.confirm({
                title: t('order.goods.deleteTitle', { name: r.name }),
                content: t('order.goods.deleteContent'),
                okButtonProps: { danger: true },
                okText: t('order.goods.delete'),
                cancelText: t('order.goods.form.cancel'),
                onOk: async () => {
                  await remove.mutateAsync(r.id);
                  message.success(t('order.goods.deleted', { name: r.name }));
                },
              })
            }
          >
            {t('order.goods.delete')}
          </Button>
        </Flex>
      ),
    },
  ];

  return (
    <Card variant="borderless">
      <Flex vertical gap={16}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div>
            <Typography.Title level={4} style={{ margin: 0 }}>
              {t('order.goods.title')}
            </Typography.Title>
            <Typography.Text type="secondary">{t('order.goods.subtitle')}</Typography.Text>
          </div>
          <Flex gap={8} wrap>
            <Input.Search
              allowClear
              maxLength={50}
              style={{ width: 220 }}
              placeholder={t('order.goods.column.name')}
              onSearch={(v) => {
                setKeyword(v.trim());
                setPage((p) => ({ ...p, pageNo: 1 }));
              }}
            />
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => {
                setEditing(null);
                setOpen(true);
              }}
            >
              {t('order.goods.create')}
            </Button>
          </Flex>
        </Flex>
        <Table<PackageView>
          rowKey="id"
          columns={columns}
          dataSource={list.data?.list ?? []}
          loading={list.isFetching}
          scroll={{ x: 960 }}
          locale={{ emptyText: t('order.goods.empty') }}
          pagination={{
            current: page.pageNo,
            pageSize: page.pageSize,
            total: list.data?.total ?? 0,
            showSizeChanger: true,
            showTotal: (n) => t('order.goods.total', { total: n }),
            onChange: (pageNo, pageSize) => setPage({ pageNo, pageSize }),
          }}
        />
      </Flex>
      <PackageDrawer
        open={open}
        record={editing}
        onClose={() => setOpen(false)}
        onSaved={(p, created) => {
          setOpen(false);
          message.success(t(created ? 'order.goods.created' : 'order.goods.saved', { name: p.name }));
        }}
      />
    </Card>
  );
}
