import { App, Button, Drawer, List, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '@/lib/format/relative-time';
import { useMenuVersion, useMenuVersions, useRollbackMenu } from '../api/menu';
import { MenuPreview } from './menu-preview';

/** Every stored version of the menu, newest first: preview one, roll back to it (a new version itself). */
export function VersionsDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const { message, modal } = App.useApp();
  const versions = useMenuVersions(open);
  const [previewId, setPreviewId] = useState<number | null>(null);
  const preview = useMenuVersion(previewId);
  const rollback = useRollbackMenu();

  const confirmRollback = (id: number) =>
    modal.confirm({
      title: t('menuAdmin.version.rollback'),
      content: t('menuAdmin.version.rollbackConfirm', { id }),
      okText: t('menuAdmin.version.rollback'),
      cancelText: t('menuAdmin.form.cancel'),
      onOk: async () => {
        await rollback.mutateAsync(id);
        message.success(t('menuAdmin.version.rolledBack', { id }));
        setPreviewId(null);
      },
    });

  return (
    <Drawer
      open={open}
      onClose={onClose}
      title={t('menuAdmin.version.title')}
      size="min(520px, 100vw)"
      data-testid="menu-versions"
    >
      <List
        loading={versions.isLoading}
        dataSource={versions.data ?? []}
        renderItem={(v, i) => (
          <List.Item
            actions={[
              <Button key="p" size="small" onClick={() => setPreviewId(previewId === v.id ? null : v.id)}>
                {t('menuAdmin.version.preview')}
              </Button>,
              <Button key="r" size="small" danger disabled={i === 0} onClick={() => confirmRollback(v.id)}>
                {t('menuAdmin.version.rollback')}
              </Button>,
            ]}
          >
            <List.Item.Meta
              title={
                <Space size={4} wrap>
                  <span>#{v.id}</span>
                  {i === 0 && <Tag color="blue">{t('menuAdmin.version.current')}</Tag>}
                  <Typography.Text type="secondary">{v.note}</Typography.Text>
                </Space>
              }
              description={t('menuAdmin.version.by', {
                user: v.username ?? t('menuAdmin.version.system'),
                time: formatDateTime(v.createdAt),
              })}
            />
          </List.Item>
        )}
      />
      {previewId !== null && preview.data && (
        <>
          <Typography.Title level={5}>{t('menuAdmin.version.previewTitle', { id: previewId })}</Typography.Title>
          <MenuPreview tree={preview.data.tree} />
        </>
      )}
    </Drawer>
  );
}
