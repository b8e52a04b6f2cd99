import { Card, Descriptions, Empty, Flex, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import type { DeviceProfile, ProfileApplyState } from '@cpc/contracts/system-custom';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { usePermission } from '@/lib/session';
import { useDeviceProfile } from '../api/device-profile';

const STATE_COLORS: Record<ProfileApplyState, string | undefined> = {
  none: undefined,
  queued: 'processing',
  delivered: 'cyan',
  applied: 'success',
  failed: 'error',
};

/**
 * The device's customization profile (issue 16): which one governs it and where that comes from (its own assignment
 * or which group), the version it runs against the one it should, the apply state, and whether the configuration it
 * reports drifted from it (which parts) — live through `systemCustom` and `apply_profile` task events.
 */
export function DeviceProfileCard({ deviceId }: { deviceId: number }) {
  const { t } = useTranslation();
  const allowed = usePermission([PERMISSIONS.systemCustomView, PERMISSIONS.deviceView]);
  const opensProfiles = usePermission(PERMISSIONS.systemCustomView);
  const profile = useDeviceProfile(deviceId, allowed);
  const refetch = () => void profile.refetch();
  useLiveEvents(
    {
      systemCustom: (e) => {
        if (!e.deviceIds.length || e.deviceIds.includes(deviceId)) refetch();
      },
      task: (e) => {
        if (e.type === 'apply_profile' && e.deviceId === deviceId) refetch();
      },
      onGap: refetch,
    },
    allowed,
  );
  if (!allowed || profile.isError) return null;
  const p = profile.data;
  return (
    <Card
      variant="borderless"
      title={t('device.profile.title')}
      loading={!p}
      data-testid="device-profile"
      data-state={p?.state}
      data-drift={p ? String(p.drift) : undefined}
    >
      {p && (p.profile ? <ProfileBody p={p} linked={opensProfiles} /> : <NoProfile />)}
    </Card>
  );
}

function NoProfile() {
  const { t } = useTranslation();
  return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.profile.none')} />;
}

function ProfileBody({ p, linked }: { p: DeviceProfile; linked: boolean }) {
  const { t } = useTranslation();
  const none = t('device.none');
  const version = (n: number | null) => (n ? t('device.profile.version', { n }) : none);
  const name = p.profile!.name;
  return (
    <Flex vertical gap={12}>
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2, xl: 3 }}
        items={[
          {
            key: 'profile',
            label: t('device.profile.profile'),
            children: linked ? (
              <Link to={`/systemCustom/bootAnimation?profile=${p.profile!.id}`} data-testid="device-profile-name">
                {name}
              </Link>
            ) : (
              <span data-testid="device-profile-name">{name}</span>
            ),
          },
          {
            key: 'source',
            label: t('device.profile.source'),
            children: (
              <span data-testid="device-profile-source">
                {p.source === 'group'
                  ? t('device.profile.fromGroup', { name: p.groupName ?? '' })
                  : t('device.profile.fromDevice')}
              </span>
            ),
          },
          {
            key: 'applied',
            label: t('device.profile.applied'),
            children: (
              <span data-testid="device-profile-applied">
                {version(p.appliedVersion)}
                {p.desiredVersion && p.desiredVersion !== p.appliedVersion
                  ? ` → ${t('device.profile.version', { n: p.desiredVersion })}`
                  : ''}
              </span>
            ),
          },
          {
            key: 'state',
            label: t('device.profile.state'),
            children: (
              <Flex gap={4} wrap align="center">
                <Tag color={STATE_COLORS[p.state]} data-testid="device-profile-state">
                  {t(`device.profile.states.${p.state}`)}
                </Tag>
                {p.state === 'failed' && p.reason && <Typography.Text type="danger">{p.reason}</Typography.Text>}
              </Flex>
            ),
          },
          {
            key: 'drift',
            label: t('device.profile.drift'),
            children: p.drift ? (
              <Tag color="warning" data-testid="device-profile-drift">
                {t('device.profile.drifted', {
                  fields: p.driftFields.map((f) => t(`device.profile.parts.${f}`)).join(t('device.profile.separator')),
                })}
              </Tag>
            ) : (
              <Tag data-testid="device-profile-drift">{t('device.profile.inLine')}</Tag>
            ),
          },
          {
            key: 'reportedAt',
            label: t('device.profile.reportedAt'),
            children: p.reportedAt ? formatDateTime(p.reportedAt) : none,
          },
        ]}
      />
      {p.candidates.length > 1 && (
        <Flex vertical gap={4}>
          <Typography.Text type="secondary">{t('device.profile.candidates')}</Typography.Text>
          {p.candidates.map((c, i) => (
            <Typography.Text
              key={`${c.source}:${c.groupId ?? 0}`}
              delete={i > 0}
              type={i > 0 ? 'secondary' : undefined}
            >
              {i + 1}.{' '}
              {c.source === 'group'
                ? t('device.profile.fromGroup', { name: c.groupName ?? '' })
                : t('device.profile.fromDevice')}{' '}
              · {c.profileName}
              {i === 0 ? ` (${t('device.profile.wins')})` : ''}
            </Typography.Text>
          ))}
        </Flex>
      )}
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('device.profile.rule')}
      </Typography.Text>
    </Flex>
  );
}
