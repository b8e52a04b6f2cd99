import { PlusOutlined, ReloadOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Flex, Grid, Progress, Select, Table, Tabs, Tag, Tooltip, Typography } from 'antd';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  DEPLOYMENT_STATES,
  type DeploymentKind,
  type DeploymentState,
  type DeploymentView,
} from '@cpc/contracts/application';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { formatDateTime } from '@/lib/format/relative-time';
import { useLiveEvents } from '@/lib/live-events';
import { usePermission } from '@/lib/session';
import { installKeys, useDeployments } from '../api/install';
import { InstallDetail, failedCount, openCount } from '../components/install-detail';
import { InstallDrawer } from '../components/install-drawer';
import { InstallPolicy } from '../components/install-policy';
import { InstallSearch } from '../components/install-search';

const LIVE_DEBOUNCE_MS = 800;
const STATE_COLOR: Record<DeploymentState, string> = { running: 'processing', done: 'success', canceled: 'default' };
const PACKAGE_TASKS = new Set(['install_app', 'uninstall_app', 'deploy_model']);

/**
 * Application installation (issue 15, `/application/applicationInstall`): installs and uninstalls of apps and AI
 * models to devices and groups with each device's progress live, "which devices run version X" and the
 * required-apps policy.
 */
export default function ApplicationInstallPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const narrow = !Grid.useBreakpoint().md;
  const canApp = usePermission(PERMISSIONS.applicationEdit);
  const canModel = usePermission(PERMISSIONS.aiLibraryEdit);
  const seeApp = usePermission(PERMISSIONS.applicationView);
  const seeModel = usePermission(PERMISSIONS.aiLibraryView);
  const editKinds: DeploymentKind[] = [...(canApp ? ['app' as const] : []), ...(canModel ? ['model' as const] : [])];
  const viewKinds: DeploymentKind[] = [...(seeApp ? ['app' as const] : []), ...(seeModel ? ['model' as const] : [])];
  const [kind, setKind] = useState<DeploymentKind | undefined>();
  const [state, setState] = useState<DeploymentState | undefined>();
  const [pageNo, setPageNo] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<number | null>(null);
  const list = useDeployments({ pageNo, pageSize, ...(kind ? { kind } : {}), ...(state ? { state } : {}) });

  // task progress and inventory changes: the list's counts read again, gathered over a short while
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refresh = () => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      void client.invalidateQueries({ queryKey: ['application-install', 'list'] });
      void client.invalidateQueries({ queryKey: ['application-install', 'installed'] });
      void client.invalidateQueries({ queryKey: installKeys.required });
    }, LIVE_DEBOUNCE_MS);
  };
  useLiveEvents({ task: (e) => PACKAGE_TASKS.has(e.type) && refresh(), application: refresh });

  const columns = [
    {
      title: t('application.install.column.package'),
      key: 'package',
      render: (_: unknown, r: DeploymentView) => (
        <Flex vertical>
          <Typography.Text strong>
            {r.name} {r.versionName}
          </Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {r.identifier}
          </Typography.Text>
        </Flex>
      ),
    },
    {
      title: t('application.install.column.action'),
      key: 'action',
      render: (_: unknown, r: DeploymentView) => (
        <Flex gap={4} wrap>
          <Tag>{t(`application.install.kind.${r.kind}`)}</Tag>
          <Tag color={r.action === 'install' ? 'blue' : 'orange'}>{t(`application.install.action.${r.action}`)}</Tag>
          {r.source === 'policy' && <Tag color="purple">{t('application.install.source.policy')}</Tag>}
        </Flex>
      ),
    },
    {
      title: t('application.install.column.target'),
      key: 'target',
      responsive: ['lg' as const],
      render: (_: unknown, r: DeploymentView) =>
        [
          r.targets.groupIds.length ? t('application.install.targetGroups', { n: r.targets.groupIds.length }) : '',
          r.targets.deviceIds.length ? t('application.install.targetDevices', { n: r.targets.deviceIds.length }) : '',
        ]
          .filter(Boolean)
          .join(' · '),
    },
    {
      title: t('application.install.column.progress'),
      key: 'progress',
      render: (_: unknown, r: DeploymentView) => {
        const done = r.counts.succeeded;
        const failed = failedCount(r);
        return (
          <Tooltip title={t('application.install.counts', { ok: done, failed, open: openCount(r), total: r.total })}>
            <Flex vertical style={{ minWidth: 140 }} data-testid={`install-progress-${r.id}`}>
              <Progress
                size="small"
                percent={r.total ? Math.round(((done + failed) / r.total) * 100) : 0}
                success={{ percent: r.total ? Math.round((done / r.total) * 100) : 0 }}
                status={failed ? 'exception' : undefined}
              />
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {done} / {r.total}
                {failed ? ` · ${t('application.install.taskState.failed')} ${failed}` : ''}
              </Typography.Text>
            </Flex>
          </Tooltip>
        );
      },
    },
    {
      title: t('application.install.column.state'),
      key: 'state',
      render: (_: unknown, r: DeploymentView) => (
        <Tag color={STATE_COLOR[r.state]}>{t(`application.install.state.${r.state}`)}</Tag>
      ),
    },
    {
      title: t('application.install.column.createdAt'),
      key: 'at',
      responsive: ['md' as const],
      render: (_: unknown, r: DeploymentView) => formatDateTime(r.createdAt),
    },
    {
      title: t('application.install.column.operations'),
      key: 'op',
      render: (_: unknown, r: DeploymentView) => (
        <Button type="link" size="small" onClick={() => setOpen(r.id)} data-testid={`install-open-${r.id}`}>
          {t('application.install.detail')}
        </Button>
      ),
    },
  ];

  const deployments = (
    <Flex vertical gap={12}>
      <Flex gap={8} wrap justify="space-between">
        <Flex gap={8} wrap>
          {viewKinds.length > 1 && (
            <Select
              allowClear
              style={{ width: 140 }}
              placeholder={t('application.install.filterKind')}
              aria-label={t('application.install.filterKind')}
              value={kind}
              onChange={(v: DeploymentKind | undefined) => {
                setKind(v);
                setPageNo(1);
              }}
              options={viewKinds.map((k) => ({ value: k, label: t(`application.install.kind.${k}`) }))}
            />
          )}
          <Select
            allowClear
            style={{ width: 140 }}
            placeholder={t('application.install.filterState')}
            aria-label={t('application.install.filterState')}
            value={state}
            onChange={(v: DeploymentState | undefined) => {
              setState(v);
              setPageNo(1);
            }}
            options={DEPLOYMENT_STATES.map((s) => ({ value: s, label: t(`application.install.state.${s}`) }))}
          />
        </Flex>
        <Flex gap={8}>
          <Button
            icon={<ReloadOutlined />}
            aria-label={t('application.install.refresh')}
            onClick={() => void client.invalidateQueries({ queryKey: installKeys.all })}
          />
          {editKinds.length > 0 && (
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="install-new">
              {t('application.install.newButton')}
            </Button>
          )}
        </Flex>
      </Flex>
      <Table<DeploymentView>
        rowKey="id"
        size={narrow ? 'small' : 'middle'}
        loading={list.isFetching && !list.data}
        dataSource={list.data?.list ?? []}
        columns={columns}
        scroll={{ x: narrow ? 560 : undefined }}
        onRow={(r) => ({ 'data-testid': `install-${r.id}`, 'data-state': r.state }) as never}
        pagination={{
          current: pageNo,
          pageSize,
          total: list.data?.total ?? 0,
          showSizeChanger: true,
          size: narrow ? 'small' : undefined,
          onChange: (p, s) => {
            setPageNo(s !== pageSize ? 1 : p);
            setPageSize(s);
          },
        }}
      />
    </Flex>
  );

  return (
    <Flex vertical gap={16} data-testid="application-install">
      <Card variant="borderless">
        <Typography.Title level={4} style={{ marginTop: 0 }}>
          {t('route.appInstall')}
        </Typography.Title>
        <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
          {t('application.install.subtitle')}
        </Typography.Paragraph>
      </Card>
      <Card variant="borderless">
        <Tabs
          items={[
            { key: 'deployments', label: t('application.install.tabs.deployments'), children: deployments },
            {
              key: 'installed',
              label: t('application.install.tabs.installed'),
              children: <InstallSearch kinds={viewKinds.length ? viewKinds : ['app']} />,
            },
            ...(seeApp
              ? [
                  {
                    key: 'required',
                    label: t('application.install.tabs.required'),
                    children: <InstallPolicy canEdit={canApp} />,
                  },
                ]
              : []),
          ]}
        />
      </Card>
      <InstallDrawer
        open={creating}
        kinds={editKinds.length ? editKinds : ['app']}
        onClose={() => setCreating(false)}
        onCreated={(id) => {
          setCreating(false);
          setOpen(id);
        }}
      />
      <InstallDetail id={open} onClose={() => setOpen(null)} />
    </Flex>
  );
}
