import { Alert, Drawer, Flex, Spin, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PackageItem } from '@cpc/contracts';
import { PackageUpload } from '@/components/package-upload';
import type { UploadedPackage } from '@/lib/packages';
import { useCreatePackage } from '../api/app-packages';

/** Uploads an APK (chunked, resumable) and makes it a package: the server reads its name, version and certificate. */
export function AppUploadDrawer({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (item: PackageItem) => void;
}) {
  const { t } = useTranslation();
  const create = useCreatePackage();
  const [error, setError] = useState('');
  // a new control for each opening: a finished upload is not shown again
  const [round, setRound] = useState(0);

  const finish = (u: UploadedPackage) => {
    setError('');
    create.mutate(
      { kind: 'app', uploadId: u.uploadId, sha256: u.sha256 },
      {
        onSuccess: (item) => {
          setRound((r) => r + 1);
          onCreated(item);
        },
        onError: (e) => setError(e instanceof Error ? e.message : String(e)),
      },
    );
  };

  return (
    <Drawer
      open={open}
      title={t('application.myApp.uploadTitle')}
      size={520}
      styles={{ wrapper: { maxWidth: '100vw' } }}
      onClose={() => {
        setError('');
        setRound((r) => r + 1);
        onClose();
      }}
      destroyOnHidden
    >
      <Flex vertical gap={16}>
        <Typography.Text type="secondary">{t('application.myApp.uploadHint')}</Typography.Text>
        <PackageUpload key={round} kind="app" accept=".apk" onUploaded={finish} disabled={create.isPending} />
        {create.isPending && (
          <Flex gap={8} align="center">
            <Spin size="small" />
            <Typography.Text>{t('application.myApp.creating')}</Typography.Text>
          </Flex>
        )}
        {error && <Alert type="error" showIcon title={error} role="alert" />}
      </Flex>
    </Drawer>
  );
}
