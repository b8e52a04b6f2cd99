import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { Badge, Button, Card, Flex, Popconfirm, Select, Space, Table, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import {
  PROFILE_APPLY_STATES,
  SYSTEM_CUSTOM_PARTS,
  type ProfileApplyState,
  type ProfileDetail,
  type ProfileDeviceItem,
  type ProfileVersion,
} from '@cpc/contracts/system-custom';
import { messageApi } from '@/lib/feedback';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePermission } from '@/lib/session';
import { useAssignProfile, useProfileDevices } from '../api/system-custom';
import { AssignDrawer } from './assign-drawer';
import { ApplyStateTag, DriftTag } from './state-tags';

const PAGE_SIZE = 10;

/** Below the editor: the devices the profile governs (live), its assignments, its versions. */
export function ProfileTabs({ profile }: { profile: ProfileDetail }) {
  const { t } = useTranslation();
  return (
    <Card variant="borderless" styles={{ body: { paddingTop: 4 } }}>
      <Tabs
        items={[
          {
            key: 'devices',
            label: t('systemCustom.devices.tab', { n: profile.devices }),
            children: <ProfileDevices profile={profile} />,
          },
          {
            key: 'targets',
            label: t('systemCustom.targets.tab', { n: profile.assignments.length }),
            children: <Assignments profile={profile} />,
          },
          {
            key: 'versions',
            label: t('systemCustom.versions.tab', { n: profile.history.length }),
            children: <Versions profile={profile} />,
          },
        ]}
      />
    </Card>
  );
}

function ProfileDevices({ profile }: { profile: ProfileDetail }) {
  const { t } = useTranslation();
  const [pageNo, setPageNo] = useState(1);
  const [state, setState] = useState<ProfileApplyState | undefined>();
  const [drift, setDrift] = useState<boolean | undefined>();
  const devices = useProfileDevices(profile.id, { pageNo, pageSize: PAGE_SIZE, state, drift });
  const none = t('systemCustom.none');
  return (
    <Flex vertical gap={12}>
      <Flex gap={8} wrap align="center">
        <Space size={12} wrap>
          <Badge
            status="success"
            text={t('systemCustom.devices.applied', { n: profile.applied, of: profile.devices })}
          />
          {profile.failed > 0 && <Badge status="error" text={t('systemCustom.list.failed', { n: profile.failed })} />}
          {profile.drifted > 0 && (
            <Badge status="warning" text={t('systemCustom.list.drifted', { n: profile.drifted })} />
          )}
        </Space>
        <Flex gap={8} wrap style={{ marginInlineStart: 'auto' }}>
          <Select<ProfileApplyState | ''>
            style={{ width: 150 }}
            value={state ?? ''}
            onChange={(v) => {
              setState(v || undefined);
              setPageNo(1);
            }}
            options={[
              { value: '', label: t('systemCustom.devices.allStates') },
              ...PROFILE_APPLY_STATES.map((s) => ({ value: s, label: t(`systemCustom.state.${s}`) })),
            ]}
          />
          <Select<'' | 'true' | 'false'>
            style={{ width: 150 }}
            value={drift === undefined ? '' : (String(drift) as 'true' | 'false')}
            onChange={(v) => {
              setDrift(v === '' ? undefined : v === 'true');
              setPageNo(1);
            }}
            options={[
              { value: '', label: t('systemCustom.devices.anyDrift') },
              { value: 'true', label: t('systemCustom.devices.drifted') },
              { value: 'false', label: t('systemCustom.devices.inLine') },
            ]}
          />
        </Flex>
      </Flex>
      <Table<ProfileDeviceItem>
        rowKey="deviceId"
        size="small"
        data-testid="profile-devices"
        scroll={{ x: 'max-content' }}
        loading={devices.isLoading}
        dataSource={devices.data?.list ?? []}
        locale={{ emptyText: t('systemCustom.devices.empty') }}
        onRow={(d) => ({ 'data-sn': d.sn, 'data-state': d.state }) as React.HTMLAttributes<HTMLElement>}
        pagination={{
          current: pageNo,
          pageSize: PAGE_SIZE,
          total: devices.data?.total ?? 0,
          onChange: setPageNo,
          hideOnSinglePage: true,
          size: 'small',
        }}
        columns={[
          {
            key: 'device',
            title: t('systemCustom.devices.device'),
            render: (_, d) => (
              <Flex vertical>
                <Link to={`/device/detail?id=${d.deviceId}`}>{d.name || d.sn}</Link>
                {d.name && (
                  <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                    {d.sn}
                  </Typography.Text>
                )}
              </Flex>
            ),
          },
          {
            key: 'online',
            title: t('systemCustom.devices.online'),
            render: (_, d) => (
              <Badge
                status={d.online ? 'success' : 'default'}
                text={d.online ? t('systemCustom.devices.isOnline') : t('systemCustom.devices.isOffline')}
              />
            ),
          },
          {
            key: 'source',
            title: t('systemCustom.devices.source'),
            render: (_, d) =>
              d.source === 'device'
                ? t('systemCustom.source.device')
                : t('systemCustom.source.group', { name: d.groupName ?? '' }),
          },
          {
            key: 'version',
            title: t('systemCustom.devices.version'),
            render: (_, d) => (
              <span data-testid="applied-version">
                {d.appliedVersion ? t('systemCustom.version.n', { n: d.appliedVersion }) : none}
                {d.desiredVersion && d.desiredVersion !== d.appliedVersion
                  ? ` → ${t('systemCustom.version.n', { n: d.desiredVersion })}`
                  : ''}
              </span>
            ),
          },
          {
            key: 'state',
            title: t('systemCustom.devices.state'),
            render: (_, d) => (
              <Flex vertical gap={2}>
                <ApplyStateTag state={d.state} reason={d.reason} />
                {d.state === 'failed' && d.reason && (
                  <Typography.Text type="danger" style={{ fontSize: 12 }}>
                    {d.reason}
                  </Typography.Text>
                )}
              </Flex>
            ),
          },
          {
            key: 'drift',
            title: t('systemCustom.devices.drift'),
            render: (_, d) => <DriftTag drift={d.drift} fields={d.driftFields} />,
          },
          {
            key: 'reportedAt',
            title: t('systemCustom.devices.reportedAt'),
            render: (_, d) => (d.reportedAt ? formatDateTime(d.reportedAt) : none),
          },
        ]}
      />
    </Flex>
  );
}

function Assignments({ profile }: { profile: ProfileDetail }) {
  const { t } = useTranslation();
  const canEdit = usePermission(PERMISSIONS.systemCustomEdit);
  const [assigning, setAssigning] = useState(false);
  const assign = useAssignProfile();
  const unassign = async (target: 'device' | 'group', id: number) => {
    await assign.mutateAsync({
      id: profile.id,
      unassign: true,
      deviceIds: target === 'device' ? [id] : [],
      groupIds: target === 'group' ? [id] : [],
    });
    messageApi().success(t('systemCustom.targets.removed'));
  };
  return (
    <Flex vertical gap={12}>
      <Flex justify="space-between" align="center" gap={8} wrap>
        <Typography.Text type="secondary">{t('systemCustom.rule.text')}</Typography.Text>
        {canEdit && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setAssigning(true)}
            data-testid="profile-assign"
          >
            {t('systemCustom.targets.assign')}
          </Button>
        )}
      </Flex>
      <Table
        rowKey={(a) => `${a.target}:${a.id}`}
        size="small"
        data-testid="profile-targets"
        scroll={{ x: 'max-content' }}
        dataSource={profile.assignments}
        pagination={false}
        locale={{ emptyText: t('systemCustom.targets.empty') }}
        columns={[
          {
            key: 'target',
            title: t('systemCustom.targets.kind'),
            render: (_, a) => (
              <Tag color={a.target === 'device' ? 'purple' : 'geekblue'}>{t(`systemCustom.targets.${a.target}`)}</Tag>
            ),
          },
          {
            key: 'name',
            title: t('systemCustom.targets.name'),
            render: (_, a) =>
              a.target === 'device' ? <Link to={`/device/detail?id=${a.id}`}>{a.name || a.sn}</Link> : a.name,
          },
          { key: 'at', title: t('systemCustom.targets.at'), render: (_, a) => formatDateTime(a.at) },
          ...(canEdit
            ? [
                {
                  key: 'op',
                  title: '',
                  render: (_: unknown, a: ProfileDetail['assignments'][number]) => (
                    <Popconfirm
                      title={t('systemCustom.targets.removeTitle', { name: a.name || a.sn })}
                      description={t('systemCustom.targets.removeText')}
                      okText={t('systemCustom.targets.remove')}
                      cancelText={t('systemCustom.form.cancel')}
                      onConfirm={() => unassign(a.target, a.id).catch(() => {})}
                    >
                      <Button type="text" danger size="small" icon={<DeleteOutlined />}>
                        {t('systemCustom.targets.remove')}
                      </Button>
                    </Popconfirm>
                  ),
                },
              ]
            : []),
        ]}
      />
      <AssignDrawer profileId={profile.id} open={assigning} onClose={() => setAssigning(false)} />
    </Flex>
  );
}

function Versions({ profile }: { profile: ProfileDetail }) {
  const { t } = useTranslation();
  const rows = [...(profile.draft ? [profile.draft] : []), ...profile.history];
  const parts = (v: ProfileVersion) => SYSTEM_CUSTOM_PARTS.filter((p) => v.settings[p]);
  return (
    <Table<ProfileVersion>
      rowKey="id"
      size="small"
      data-testid="profile-versions"
      scroll={{ x: 'max-content' }}
      dataSource={rows}
      pagination={false}
      locale={{ emptyText: t('systemCustom.versions.empty') }}
      columns={[
        {
          key: 'version',
          title: t('systemCustom.versions.version'),
          render: (_, v) =>
            v.state === 'draft' ? (
              <Tag color="gold">{t('systemCustom.version.draft')}</Tag>
            ) : (
              <Space size={4}>
                <Tag color="blue">{t('systemCustom.version.n', { n: v.version })}</Tag>
                {v.id === profile.current?.id && <Tag color="green">{t('systemCustom.versions.current')}</Tag>}
              </Space>
            ),
        },
        {
          key: 'parts',
          title: t('systemCustom.versions.parts'),
          render: (_, v) =>
            parts(v).length
              ? parts(v)
                  .map((p) => t(`systemCustom.part.${p}`))
                  .join(t('systemCustom.listSeparator'))
              : t('systemCustom.versions.noParts'),
        },
        {
          key: 'published',
          title: t('systemCustom.versions.published'),
          render: (_, v) =>
            v.publishedAt
              ? `${formatDateTime(v.publishedAt)}${v.publishedBy ? ` · ${v.publishedBy}` : ''}`
              : t('systemCustom.versions.unpublished'),
        },
        {
          key: 'hash',
          title: t('systemCustom.versions.hash'),
          render: (_, v) => <Typography.Text code>{v.hash.slice(0, 12)}</Typography.Text>,
        },
      ]}
    />
  );
}
