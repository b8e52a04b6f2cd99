import { Button, Space, Table, Tag, Tooltip } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useTranslation } from 'react-i18next';
import type { PackageItem } from '@cpc/contracts';
import { formatDateTime } from '@/lib/format/relative-time';
import { formatSize } from '@/lib/format/size';
import { usePackageList } from '../api/app-packages';
import { apkMetaOf } from './app-meta';

/** The versions of one application (newest first), each with its details and a delete. */
export function AppVersions({
  identifier,
  canEdit,
  onDetail,
  onDelete,
}: {
  identifier: string;
  canEdit: boolean;
  onDetail: (p: PackageItem) => void;
  onDelete: (p: PackageItem) => void;
}) {
  const { t } = useTranslation();
  const list = usePackageList({ kind: 'app', identifier, pageNo: 1, pageSize: 100 });
  const columns: ColumnsType<PackageItem> = [
    {
      title: t('application.myApp.column.version'),
      key: 'version',
      render: (_, p) => (
        <Space size={4} wrap>
          {p.versionName}
          {apkMetaOf(p).downgrade && <Tag color="warning">{t('application.myApp.downgrade')}</Tag>}
        </Space>
      ),
    },
    { title: t('application.myApp.column.versionCode'), dataIndex: 'versionCode', responsive: ['sm'] },
    {
      title: t('application.myApp.column.size'),
      key: 'size',
      render: (_, p) => formatSize(p.size),
      responsive: ['md'],
    },
    {
      title: t('application.myApp.column.uploadedAt'),
      key: 'at',
      render: (_, p) => formatDateTime(p.createdAt),
      responsive: ['md'],
    },
    {
      title: t('application.myApp.column.actions'),
      key: 'actions',
      render: (_, p) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => onDetail(p)}>
            {t('application.myApp.detail')}
          </Button>
          {canEdit && (
            <Tooltip title={t('application.myApp.delete')}>
              <Button type="link" size="small" danger onClick={() => onDelete(p)}>
                {t('application.myApp.delete')}
              </Button>
            </Tooltip>
          )}
        </Space>
      ),
    },
  ];
  return (
    <Table<PackageItem>
      size="small"
      rowKey="id"
      columns={columns}
      dataSource={list.data?.list ?? []}
      loading={list.isFetching}
      pagination={false}
    />
  );
}
