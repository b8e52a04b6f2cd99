import { DownloadOutlined } from '@ant-design/icons';
import { Alert, Avatar, Button, Descriptions, Drawer, Flex, Skeleton, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '@/lib/format/relative-time';
import { formatSize } from '@/lib/format/size';
import { usePackageDetail } from '../api/app-packages';
import { apkMetaOf } from './app-meta';

/** One version of an application: what the server read from the APK, its checksums and a download. */
export function AppDetailDrawer({ id, onClose }: { id: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const detail = usePackageDetail(id);
  const p = detail.data;
  const meta = p ? apkMetaOf(p) : null;
  return (
    <Drawer
      open={!!id}
      onClose={onClose}
      title={t('application.myApp.detailTitle')}
      size={560}
      styles={{ wrapper: { maxWidth: '100vw' } }}
      extra={
        p && (
          <Button icon={<DownloadOutlined />} href={p.downloadUrl} download>
            {t('application.myApp.download')}
          </Button>
        )
      }
    >
      {detail.isError && <Alert type="error" showIcon title={t('application.myApp.loadFailed')} />}
      {detail.isPending && !!id && <Skeleton active />}
      {p && meta && (
        <Flex vertical gap={16}>
          <Flex gap={12} align="center">
            <Avatar shape="square" size={48} src={p.iconUrl ?? undefined}>
              {p.name.slice(0, 1)}
            </Avatar>
            <div style={{ minWidth: 0 }}>
              <Typography.Title level={5} style={{ margin: 0 }}>
                {p.name}
              </Typography.Title>
              <Typography.Text type="secondary">{p.identifier}</Typography.Text>
            </div>
          </Flex>
          <Descriptions column={1} size="small" bordered>
            <Descriptions.Item label={t('application.myApp.field.versionName')}>{p.versionName}</Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.versionCode')}>{p.versionCode}</Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.minSdk')}>{meta.minSdk ?? '-'}</Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.targetSdk')}>
              {meta.targetSdk ?? '-'}
            </Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.size')}>{formatSize(p.size)}</Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.sha256')}>
              <Typography.Text code copyable style={{ wordBreak: 'break-all' }}>
                {p.sha256}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.certSha256')}>
              <Typography.Text code copyable style={{ wordBreak: 'break-all' }}>
                {meta.certSha256}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.certSubject')}>{meta.certSubject}</Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.uploadedBy')}>{p.createdBy ?? '-'}</Descriptions.Item>
            <Descriptions.Item label={t('application.myApp.field.uploadedAt')}>
              {formatDateTime(p.createdAt)}
            </Descriptions.Item>
          </Descriptions>
          <div>
            <Typography.Text strong>
              {t('application.myApp.field.permissions', { n: meta.permissions.length })}
            </Typography.Text>
            <Flex wrap gap={4} style={{ marginTop: 8 }}>
              {meta.permissions.length
                ? meta.permissions.map((perm) => <Tag key={perm}>{perm.replace(/^android\.permission\./, '')}</Tag>)
                : t('application.myApp.noPermissions')}
            </Flex>
          </div>
        </Flex>
      )}
    </Drawer>
  );
}
