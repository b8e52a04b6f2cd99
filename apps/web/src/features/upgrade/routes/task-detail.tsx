import {
  Alert,
  Button,
  Card,
  Col,
  Descriptions,
  Empty,
  Flex,
  List,
  Popconfirm,
  Progress,
  Result,
  Row,
  Select,
  Skeleton,
  Space,
  Statistic,
  Table,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { UPGRADE_DEVICE_STATES, type ReleaseDeviceItem, type UpgradeDeviceState } from '@cpc/contracts/upgrade';
import { formatDateTime } from '@/lib/format/relative-time';
import { messageApi } from '@/lib/feedback';
import { usePageTitle } from '@/lib/page-title';
import { usePermission } from '@/lib/session';
import { useRelease, useReleaseAction, useReleaseDevices, type ReleaseAction } from '../api/upgrade';
import { useUpgradeLive } from '../components/live';
import { ProgressChart } from '../components/progress-chart';
import { DeviceStateTag, ReleaseStateTag } from '../components/tags';
import { actionsFor, percentDone } from '../utils/release';

const LIST_PATH = '/upgrade/upgradeTask';
const idOf = (v: string | null): number => (v && /^\d{1,15}$/.test(v) ? Number(v) : 0);

/** One release's dashboard: counts per state, failure reasons, a live progress chart and every device's step. */
export default function TaskDetail() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = idOf(params.get('id'));
  useUpgradeLive();
  const release = useRelease(id);
  const r = release.data;
  usePageTitle(r ? r.name : undefined);
  const canEdit = usePermission(PERMISSIONS.upgradeEdit);
  const act = useReleaseAction();
  const [page, setPage] = useState({ pageNo: 1, pageSize: 20 });
  const [state, setState] = useState<UpgradeDeviceState | undefined>();
  const devices = useReleaseDevices(id, { ...page, state });

  if (release.isLoading) return <Skeleton active />;
  if (!r)
    return (
      <Result
        status="404"
        title={t('upgrade.detail.notFound')}
        extra={
          <Link to={LIST_PATH}>
            <Button>{t('upgrade.detail.back')}</Button>
          </Link>
        }
      />
    );

  const run = (action: ReleaseAction) =>
    act.mutateAsync({ id, action }).then(
      () => messageApi().success(t('upgrade.action.done')),
      () => {},
    );

  return (
    <Flex vertical gap={16}>
      <Card variant="borderless">
        <Flex justify="space-between" align="flex-start" gap={12} wrap>
          <div style={{ minWidth: 0, flex: '1 1 260px' }}>
            <Space wrap>
              <Typography.Title level={4} style={{ margin: 0 }}>
                {r.name}
              </Typography.Title>
              <ReleaseStateTag state={r.state} />
            </Space>
            <Descriptions
              size="small"
              style={{ marginTop: 8 }}
              column={{ xs: 1, sm: 2, lg: 3 }}
              items={[
                { key: 'fw', label: t('upgrade.releases.firmware'), children: `${r.packageName} ${r.version}` },
                {
                  key: 'wave',
                  label: t('upgrade.releases.wave'),
                  children: t('upgrade.releases.waveN', { n: r.wave }),
                },
                {
                  key: 'rules',
                  label: t('upgrade.detail.rules'),
                  children: [
                    t('upgrade.detail.canary', { n: r.canaryPercent }),
                    t('upgrade.detail.throttle', { n: r.throttle }),
                    ...(r.window ? [t('upgrade.detail.window', r.window)] : []),
                  ].join(' · '),
                },
                { key: 'created', label: t('upgrade.releases.createdAt'), children: formatDateTime(r.createdAt) },
                { key: 'expire', label: t('upgrade.drawer.expireAt'), children: formatDateTime(r.expireAt) },
              ]}
            />
          </div>
          {canEdit && (
            <Space wrap data-testid="release-actions">
              {actionsFor(r.state, r.counts.failed).map((a) => (
                <Popconfirm
                  key={a}
                  title={t('upgrade.action.confirm', { action: t(`upgrade.action.${a}`) })}
                  onConfirm={() => run(a)}
                >
                  <Button
                    type={a === 'promote' || a === 'retry' ? 'primary' : 'default'}
                    danger={a === 'cancel'}
                    loading={act.isPending && act.variables?.action === a}
                    data-testid={`release-${a}`}
                  >
                    {t(`upgrade.action.${a}`)}
                  </Button>
                </Popconfirm>
              ))}
            </Space>
          )}
        </Flex>
        {r.state === 'halted' && r.haltReason && (
          <Alert
            style={{ marginTop: 12 }}
            type="error"
            showIcon
            message={t('upgrade.detail.haltReason', { reason: r.haltReason })}
          />
        )}
        {r.state === 'waiting' && (
          <Alert
            style={{ marginTop: 12 }}
            type="warning"
            showIcon
            message={
              r.promoteAt
                ? t('upgrade.detail.promoteAt', { at: formatDateTime(r.promoteAt) })
                : t('upgrade.detail.waitingManual')
            }
          />
        )}
        <Progress
          style={{ marginTop: 12 }}
          percent={percentDone(r)}
          status={r.state === 'halted' ? 'exception' : r.state === 'completed' ? 'success' : 'active'}
          data-testid="release-progress"
        />
      </Card>
      <Card variant="borderless" title={t('upgrade.detail.counts')}>
        <Row gutter={[16, 16]} data-testid="release-counts">
          {UPGRADE_DEVICE_STATES.map((s) => (
            <Col key={s} xs={12} sm={8} md={6} xl={3}>
              <Statistic title={t(`upgrade.deviceState.${s}`)} value={r.counts[s]} data-testid={`count-${s}`} />
            </Col>
          ))}
        </Row>
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={16}>
          <Card variant="borderless" title={t('upgrade.detail.chart')}>
            <ProgressChart release={r} />
          </Card>
        </Col>
        <Col xs={24} lg={8}>
          <Card variant="borderless" title={t('upgrade.detail.reasons')} style={{ height: '100%' }}>
            {r.reasons.length ? (
              <List
                size="small"
                dataSource={r.reasons}
                renderItem={(x) => (
                  <List.Item extra={<Typography.Text type="danger">{x.count}</Typography.Text>}>{x.reason}</List.Item>
                )}
              />
            ) : (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('upgrade.detail.noFailures')} />
            )}
          </Card>
        </Col>
      </Row>
      <Card
        variant="borderless"
        title={t('upgrade.detail.devices')}
        extra={
          <Select<UpgradeDeviceState | ''>
            style={{ width: 160 }}
            value={state ?? ''}
            onChange={(v) => {
              setState(v || undefined);
              setPage((p) => ({ ...p, pageNo: 1 }));
            }}
            options={[
              { value: '', label: t('upgrade.releases.allStates') },
              ...UPGRADE_DEVICE_STATES.map((s) => ({ value: s, label: t(`upgrade.deviceState.${s}`) })),
            ]}
          />
        }
      >
        <Table<ReleaseDeviceItem>
          rowKey="deviceId"
          size="small"
          data-testid="release-devices"
          scroll={{ x: 'max-content' }}
          loading={devices.isLoading}
          dataSource={devices.data?.list ?? []}
          pagination={{
            current: page.pageNo,
            pageSize: page.pageSize,
            total: devices.data?.total ?? 0,
            onChange: (pageNo, pageSize) => setPage({ pageNo, pageSize }),
          }}
          columns={[
            { key: 'sn', title: t('upgrade.detail.sn'), dataIndex: 'sn' },
            { key: 'name', title: t('upgrade.detail.deviceName'), dataIndex: 'name' },
            {
              key: 'wave',
              title: t('upgrade.releases.wave'),
              render: (_, d) => t('upgrade.releases.waveN', { n: d.wave }),
            },
            { key: 'stage', title: t('upgrade.detail.stage'), render: (_, d) => <DeviceStateTag state={d.state} /> },
            {
              key: 'percent',
              title: t('upgrade.detail.percent'),
              render: (_, d) => (
                <Progress
                  style={{ width: 120 }}
                  size="small"
                  percent={d.progress}
                  status={d.state === 'failed' ? 'exception' : undefined}
                />
              ),
            },
            { key: 'reason', title: t('upgrade.detail.reason'), render: (_, d) => d.reason || '–' },
            { key: 'from', title: t('upgrade.detail.fromVersion'), render: (_, d) => d.fromVersion || '–' },
            { key: 'updated', title: t('upgrade.detail.updatedAt'), render: (_, d) => formatDateTime(d.updatedAt) },
          ]}
        />
      </Card>
    </Flex>
  );
}
