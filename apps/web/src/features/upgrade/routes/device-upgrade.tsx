import { PlusOutlined, UploadOutlined } from '@ant-design/icons';
import { Button, Flex, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import type { PackageItem } from '@cpc/contracts/package';
import { ListPage, SearchAndRefresh } from '@/components/list-page';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePackageList } from '@/lib/packages';
import { usePermission } from '@/lib/session';
import { useUpgradeLive } from '../components/live';
import { FirmwareUploadDrawer } from '../components/firmware-upload';
import { ReleaseDrawer } from '../components/release-drawer';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MB`;

/** Device upgrade: the firmware versions of the account, and the "new release" drawer. */
export default function DeviceUpgrade() {
  const { t } = useTranslation();
  useUpgradeLive();
  const canEdit = usePermission(PERMISSIONS.upgradeEdit);
  const [keyword, setKeyword] = useState('');
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const q = { ...page, keyword: keyword || undefined };
  const list = usePackageList({ kind: 'firmware', ...q });
  const [drawer, setDrawer] = useState<{ open: boolean; packageId?: number }>({ open: false });
  const [uploading, setUploading] = useState(false);

  return (
    <ListPage
      title={t('upgrade.firmware.title')}
      subtitle={t('upgrade.firmware.subtitle')}
      action={
        canEdit && (
          <Flex gap={8} wrap>
            <Button icon={<UploadOutlined />} onClick={() => setUploading(true)} data-testid="upload-firmware">
              {t('upgrade.upload.open')}
            </Button>
            <Button
              type="primary"
              icon={<PlusOutlined />}
              onClick={() => setDrawer({ open: true })}
              data-testid="new-release"
            >
              {t('upgrade.firmware.release')}
            </Button>
          </Flex>
        )
      }
      toolbar={
        <Flex gap={8} wrap>
          <SearchAndRefresh
            onSearch={(v) => {
              setKeyword(v);
              setPage((p) => ({ ...p, pageNo: 1 }));
            }}
            placeholder={t('upgrade.firmware.search')}
            refreshLabel={t('upgrade.firmware.refresh')}
            onRefresh={() => void list.refetch()}
            refreshing={list.isFetching}
          />
        </Flex>
      }
      overlays={
        <>
          <ReleaseDrawer open={drawer.open} packageId={drawer.packageId} onClose={() => setDrawer({ open: false })} />
          <FirmwareUploadDrawer open={uploading} onClose={() => setUploading(false)} />
        </>
      }
    >
      <Table<PackageItem>
        rowKey="id"
        size="middle"
        scroll={{ x: 'max-content' }}
        loading={list.isLoading}
        dataSource={list.data?.list ?? []}
        locale={{ emptyText: t('upgrade.firmware.empty') }}
        pagination={{
          current: page.pageNo,
          pageSize: page.pageSize,
          total: list.data?.total ?? 0,
          onChange: (pageNo, pageSize) => setPage({ pageNo, pageSize }),
        }}
        columns={[
          { key: 'name', title: t('upgrade.firmware.name'), dataIndex: 'name' },
          {
            key: 'version',
            title: t('upgrade.firmware.version'),
            render: (_, f) => <Typography.Text strong>{f.versionName}</Typography.Text>,
          },
          { key: 'identifier', title: t('upgrade.firmware.identifier'), dataIndex: 'identifier' },
          {
            key: 'models',
            title: t('upgrade.firmware.models'),
            render: (_, f) =>
              f.models.length ? f.models.map((m) => <Tag key={m}>{m}</Tag>) : t('upgrade.firmware.anyModel'),
          },
          { key: 'size', title: t('upgrade.firmware.size'), render: (_, f) => mb(f.size) },
          { key: 'createdAt', title: t('upgrade.firmware.createdAt'), render: (_, f) => formatDateTime(f.createdAt) },
          ...(canEdit
            ? [
                {
                  key: 'op',
                  title: '',
                  render: (_: unknown, f: PackageItem) => (
                    <Button type="link" onClick={() => setDrawer({ open: true, packageId: f.id })}>
                      {t('upgrade.firmware.release')}
                    </Button>
                  ),
                },
              ]
            : []),
        ]}
      />
    </ListPage>
  );
}
