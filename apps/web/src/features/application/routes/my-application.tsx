import { UploadOutlined } from '@ant-design/icons';
import { App, Avatar, Button, Flex, Grid, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS, type AppGroup, type PackageItem } from '@cpc/contracts';
import { ListPage, SearchAndRefresh } from '@/components/list-page';
import { formatDateTime } from '@/lib/format/relative-time';
import { formatSize } from '@/lib/format/size';
import { useLiveEvents } from '@/lib/live-events';
import { usePermission } from '@/lib/session';
import { usePaging, useStepBackWhenEmpty } from '@/lib/use-paging';
import { useAppGroups, useDeletePackage, useInvalidatePackages } from '../api/app-packages';
import { apkMetaOf } from '../components/app-meta';
import { AppDetailDrawer } from '../components/app-detail-drawer';
import { AppUploadDrawer } from '../components/app-upload-drawer';
import { AppVersions } from '../components/app-versions';

/**
 * "My applications" (issue 15): the APKs of the account, one row per package name with its newest version; a row
 * opens to its versions; upload a new APK, see what was read from it, download it, delete a version.
 */
export default function MyApplicationPage() {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const canEdit = usePermission(PERMISSIONS.applicationEdit);
  // a phone: the version goes under the name, the other columns stay out of the way
  const narrow = !Grid.useBreakpoint().sm;
  const [keyword, setKeyword] = useState('');
  const paging = usePaging();
  const list = useAppGroups({ ...paging.page, keyword: keyword || undefined });
  const remove = useDeletePackage();
  const invalidate = useInvalidatePackages();
  const [uploading, setUploading] = useState(false);
  const [detail, setDetail] = useState<number | null>(null);
  useLiveEvents({ package: (e) => e.kind === 'app' && void invalidate(), onGap: () => void invalidate() });
  useStepBackWhenEmpty(list, paging);

  const confirmDelete = (p: PackageItem) =>
    modal.confirm({
      title: t('application.myApp.deleteTitle', { label: p.name, version: p.versionName }),
      content: t('application.myApp.deleteContent'),
      okText: t('application.myApp.delete'),
      okButtonProps: { danger: true },
      cancelText: t('application.myApp.cancel'),
      onOk: async () => {
        await remove.mutateAsync(p.id);
        message.success(t('application.myApp.deleted'));
      },
    });

  const columns: ColumnsType<AppGroup> = [
    {
      title: t('application.myApp.column.app'),
      key: 'app',
      render: (_, g) => (
        <Flex gap={12} align="center" style={{ minWidth: 0 }}>
          <Avatar shape="square" size={40} src={g.latest.iconUrl ?? undefined}>
            {g.latest.name.slice(0, 1)}
          </Avatar>
          <div style={{ minWidth: 0 }}>
            <Typography.Text strong>{g.latest.name}</Typography.Text>
            <br />
            <Typography.Text type="secondary" style={{ fontSize: 12, wordBreak: 'break-all' }}>
              {g.identifier}
            </Typography.Text>
            {narrow && (
              <Tag bordered={false} style={{ marginInlineStart: 6 }}>
                {g.latest.versionName}
              </Tag>
            )}
          </div>
        </Flex>
      ),
    },
    {
      title: t('application.myApp.column.latest'),
      key: 'latest',
      responsive: ['sm'],
      render: (_, g) => (
        <span>
          {g.latest.versionName}
          <Typography.Text type="secondary"> ({g.latest.versionCode})</Typography.Text>
        </span>
      ),
    },
    { title: t('application.myApp.column.versions'), dataIndex: 'versions', responsive: ['sm'] },
    {
      title: t('application.myApp.column.size'),
      key: 'size',
      render: (_, g) => formatSize(g.latest.size),
      responsive: ['md'],
    },
    {
      title: t('application.myApp.column.certificate'),
      key: 'cert',
      responsive: ['lg'],
      render: (_, g) => {
        const m = apkMetaOf(g.latest);
        return (
          <Tooltip title={`${m.certSubject} · ${m.certSha256}`}>
            <Tag style={{ fontFamily: 'monospace' }}>{m.certSha256.slice(0, 16)}</Tag>
          </Tooltip>
        );
      },
    },
    {
      title: t('application.myApp.column.uploadedAt'),
      key: 'at',
      responsive: ['lg'],
      render: (_, g) => formatDateTime(g.latest.createdAt),
    },
    {
      title: t('application.myApp.column.actions'),
      key: 'actions',
      render: (_, g) => (
        <Button type="link" size="small" onClick={() => setDetail(g.latest.id)}>
          {t('application.myApp.detail')}
        </Button>
      ),
    },
  ];

  return (
    <ListPage
      title={t('application.myApp.title')}
      subtitle={t('application.myApp.subtitle')}
      action={
        canEdit && (
          <Button type="primary" icon={<UploadOutlined />} onClick={() => setUploading(true)}>
            {t('application.myApp.upload')}
          </Button>
        )
      }
      toolbar={
        <Flex gap={12} wrap>
          <SearchAndRefresh
            placeholder={t('application.myApp.keyword')}
            refreshLabel={t('application.myApp.refresh')}
            onSearch={(v) => {
              setKeyword(v);
              paging.toFirst();
            }}
            refreshing={list.isFetching && !list.isPending}
            onRefresh={() => void invalidate()}
          />
        </Flex>
      }
      overlays={
        <>
          <AppUploadDrawer
            open={uploading}
            onClose={() => setUploading(false)}
            onCreated={(p) => {
              setUploading(false);
              message.success(t('application.myApp.created', { label: p.name, version: p.versionName }));
            }}
          />
          <AppDetailDrawer id={detail} onClose={() => setDetail(null)} />
        </>
      }
    >
      <Table<AppGroup>
        rowKey="identifier"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isFetching}
        locale={{ emptyText: t('application.myApp.empty') }}
        scroll={{ x: 'max-content' }}
        expandable={{
          expandedRowRender: (g) => (
            <AppVersions
              identifier={g.identifier}
              canEdit={canEdit}
              onDetail={(p) => setDetail(p.id)}
              onDelete={confirmDelete}
            />
          ),
        }}
        pagination={{
          current: paging.page.pageNo,
          pageSize: paging.page.pageSize,
          total: list.data?.total ?? 0,
          onChange: paging.onPageChange,
          showSizeChanger: true,
        }}
      />
    </ListPage>
  );
}
