import {
  CheckCircleOutlined,
  ClockCircleOutlined,
  CloseCircleOutlined,
  MinusCircleOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import { Button, Card, Descriptions, Divider, Flex, Space, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { ProfileView } from '@cpc/contracts';
import { formatDateTime } from '@/lib/format/relative-time';
import { roleLabel } from '../utils/role-label';
import { AvatarUpload } from './avatar-upload';

export const SUB_ACCOUNT_PATH = '/person/subAccount';

const STATUS_LOOK: Record<number, { color: string; icon: ReactNode }> = {
  0: { color: 'default', icon: <MinusCircleOutlined /> },
  1: { color: 'success', icon: <CheckCircleOutlined /> },
  2: { color: 'processing', icon: <ClockCircleOutlined /> },
  3: { color: 'error', icon: <CloseCircleOutlined /> },
};

/** Who the user is: avatar, name, account type, tenant and identity, roles. */
export function ProfileCard({ profile }: { profile: ProfileView }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const main = profile.is_super === 1;
  const status = STATUS_LOOK[profile.authStatus] ?? STATUS_LOOK[0];
  const notSet = <Typography.Text type="secondary">{t('user.profile.notSet')}</Typography.Text>;

  return (
    <Card variant="borderless" style={{ height: '100%' }}>
      <Flex vertical align="center" gap={12}>
        <AvatarUpload src={profile.avatar} />
        <Flex vertical align="center" gap={2}>
          <Typography.Title
            level={4}
            style={{ margin: 0, textAlign: 'center', wordBreak: 'break-all' }}
            data-testid="profile-name"
          >
            {profile.nickname || profile.username}
          </Typography.Title>
          {profile.nickname && <Typography.Text type="secondary">@{profile.username}</Typography.Text>}
        </Flex>
        <Space size={4} wrap style={{ justifyContent: 'center' }}>
          <Tag color={main ? 'gold' : 'blue'}>
            {t(main ? 'user.profile.accountType.main' : 'user.profile.accountType.sub')}
          </Tag>
          <Tag>{t(`user.profile.tenantKind.${profile.tenantKind}`)}</Tag>
        </Space>
      </Flex>
      <Divider />
      <Descriptions
        column={1}
        size="small"
        styles={{ label: { width: 96 } }}
        items={[
          { key: 'username', label: t('user.profile.username'), children: profile.username },
          { key: 'nickname', label: t('user.profile.nickname'), children: profile.nickname || notSet },
          { key: 'email', label: t('user.profile.email'), children: profile.email || notSet },
          {
            key: 'mobile',
            label: t('user.profile.mobile'),
            children: <span data-testid="profile-mobile">{profile.mobile ?? notSet}</span>,
          },
          {
            key: 'tenant',
            label: t('user.profile.tenant'),
            children: profile.attestName || profile.tenantName,
          },
          {
            key: 'identity',
            label: t('user.profile.identity'),
            children: (
              <Tag color={status.color} icon={status.icon}>
                {t(`user.profile.authStatus.${profile.authStatus}`, { defaultValue: String(profile.authStatus) })}
              </Tag>
            ),
          },
          {
            key: 'roles',
            label: t('user.profile.roles'),
            children: profile.roles.length ? (
              <Space size={[4, 4]} wrap>
                {profile.roles.map((r) => (
                  <Tag key={r.id}>{roleLabel(r, t)}</Tag>
                ))}
              </Space>
            ) : (
              <Typography.Text type="secondary">
                {t(main ? 'user.profile.noRoles' : 'user.profile.noRolesSub')}
              </Typography.Text>
            ),
          },
          { key: 'createdAt', label: t('user.profile.createdAt'), children: formatDateTime(profile.createdAt) },
        ]}
      />
      {main && (
        <Button block icon={<TeamOutlined />} style={{ marginTop: 16 }} onClick={() => navigate(SUB_ACCOUNT_PATH)}>
          {t('user.profile.manageSubAccounts')}
        </Button>
      )}
    </Card>
  );
}
