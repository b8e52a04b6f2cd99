import { CloudUploadOutlined, DeleteOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Popconfirm, Space, Tag, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { SYSTEM_CUSTOM_PARTS, type ProfileDetail } from '@cpc/contracts/system-custom';
import { messageApi } from '@/lib/feedback';
import { usePermission } from '@/lib/session';
import { useDeleteProfile, usePublishProfile } from '../api/system-custom';
import { pageOfPart, pagePath, type CustomPage } from '../utils/pages';
import { ProfileFormModal } from './profile-form-modal';

/**
 * The chosen profile: name, description, its latest published version and whether there are unpublished edits, the
 * parts it sets (each a link to its page), and rename / publish / delete.
 */
export function ProfileHeader({
  profile,
  page,
  onDeleted,
}: {
  profile: ProfileDetail;
  page: CustomPage;
  onDeleted: () => void;
}) {
  const { t } = useTranslation();
  const canEdit = usePermission(PERMISSIONS.systemCustomEdit);
  const [renaming, setRenaming] = useState(false);
  const publish = usePublishProfile();
  const remove = useDeleteProfile();
  // what the editor shows: the draft when there is one, else the latest published version
  const shown = profile.draft ?? profile.current;
  const set = new Set(SYSTEM_CUSTOM_PARTS.filter((p) => shown?.settings[p]));

  const doPublish = async () => {
    const r = await publish.mutateAsync(profile.id);
    messageApi().success(t('systemCustom.header.published', { n: r.version, queued: r.queued }));
  };
  const doDelete = async () => {
    await remove.mutateAsync(profile.id);
    messageApi().success(t('systemCustom.header.deleted'));
    onDeleted();
  };

  return (
    <Card variant="borderless" data-testid="profile-header">
      <Flex vertical gap={12}>
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <Flex vertical gap={4} style={{ minWidth: 0, flex: '1 1 260px' }}>
            <Flex align="center" gap={8} wrap>
              <Typography.Title level={5} style={{ margin: 0 }} ellipsis data-testid="profile-name">
                {profile.name}
              </Typography.Title>
              {profile.version ? (
                <Tag color="blue" data-testid="profile-version">
                  {t('systemCustom.version.latest', { n: profile.version })}
                </Tag>
              ) : (
                <Tag data-testid="profile-version">{t('systemCustom.version.never')}</Tag>
              )}
              {profile.hasDraft && (
                <Tooltip title={t('systemCustom.version.draftHint')}>
                  <Tag color="gold">{t('systemCustom.version.draft')}</Tag>
                </Tooltip>
              )}
            </Flex>
            {profile.description && <Typography.Text type="secondary">{profile.description}</Typography.Text>}
          </Flex>
          {canEdit && (
            <Space wrap size={8}>
              <Button icon={<EditOutlined />} onClick={() => setRenaming(true)}>
                {t('systemCustom.header.rename')}
              </Button>
              <Popconfirm
                title={t('systemCustom.header.publishTitle')}
                description={t('systemCustom.header.publishText', { devices: profile.devices })}
                okText={t('systemCustom.header.publish')}
                cancelText={t('systemCustom.form.cancel')}
                onConfirm={() => doPublish().catch(() => {})}
                disabled={!profile.hasDraft}
              >
                <Button
                  type="primary"
                  icon={<CloudUploadOutlined />}
                  disabled={!profile.hasDraft}
                  loading={publish.isPending}
                  data-testid="profile-publish"
                >
                  {t('systemCustom.header.publish')}
                </Button>
              </Popconfirm>
              <Popconfirm
                title={t('systemCustom.header.deleteTitle', { name: profile.name })}
                description={t('systemCustom.header.deleteText')}
                okText={t('systemCustom.header.delete')}
                okButtonProps={{ danger: true }}
                cancelText={t('systemCustom.form.cancel')}
                onConfirm={() => doDelete().catch(() => {})}
              >
                <Button danger type="text" icon={<DeleteOutlined />} loading={remove.isPending}>
                  {t('systemCustom.header.delete')}
                </Button>
              </Popconfirm>
            </Space>
          )}
        </Flex>
        <Flex gap={6} wrap align="center">
          <Typography.Text type="secondary">{t('systemCustom.header.parts')}</Typography.Text>
          {SYSTEM_CUSTOM_PARTS.map((p) => {
            const target = pageOfPart(p);
            const tag = (
              <Tag color={set.has(p) ? 'green' : undefined} bordered={target === page}>
                {t(`systemCustom.part.${p}`)}
                {set.has(p) ? '' : ` · ${t('systemCustom.header.unset')}`}
              </Tag>
            );
            return target === page ? (
              <span key={p}>{tag}</span>
            ) : (
              <Link key={p} to={pagePath(target, profile.id)}>
                {tag}
              </Link>
            );
          })}
        </Flex>
      </Flex>
      <ProfileFormModal
        open={renaming}
        profile={profile}
        onClose={() => setRenaming(false)}
        onSaved={() => setRenaming(false)}
      />
    </Card>
  );
}
