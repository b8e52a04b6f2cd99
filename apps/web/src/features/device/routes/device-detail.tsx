import { DeleteOutlined, DragOutlined, EditOutlined, PoweroffOutlined, ReloadOutlined } from '@ant-design/icons';
import {
  App,
  Button,
  Card,
  Col,
  Descriptions,
  Empty,
  Flex,
  Grid,
  Progress,
  Result,
  Row,
  Skeleton,
  Space,
  Tag,
  Timeline,
  Typography,
} from 'antd';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import type { DeviceDetail, DeviceUnbindResult, SimView, StatusChange } from '@cpc/contracts/device';
import { PERMISSIONS } from '@cpc/contracts/permissions';
import { formatDateTime } from '@/lib/format/relative-time';
import { usePageTitle } from '@/lib/page-title';
import { usePermission } from '@/lib/session';
import { useDevice, useUnbindDevice } from '../api/devices';
import { useTasks } from '../api/tasks';
import {
  BatteryCell,
  DataLeftCell,
  PaperTag,
  SeenAt,
  SignalCell,
  StatusBadge,
  formatMb,
} from '../components/device-cells';
import { EditModal } from '../components/edit-modal';
import { InstalledSoftware } from '../components/installed-software';
import { LiveIndicator } from '../components/live-indicator';
import { LocationMap } from '../components/location-map';
import { MoveModal } from '../components/move-modal';
import { useShowNewBindKeys } from '../components/new-bind-keys';
import { TelemetryChart } from '../components/telemetry-chart';
import { useDeviceCommand } from '../hooks/use-device-command';
import { useLiveDevices } from '../hooks/use-live-devices';
import { RELATIVE_TIME_INTERVAL, useNow } from '@/lib/use-now';
import { deviceLabel } from '../utils/command-confirm';
import { provinceLabel } from '../utils/provinces';
import { FirmwareHistoryCard } from '../components/firmware-history';
import { DeviceProfileCard } from '../components/device-profile';
import { DeviceFencesCard } from '../components/device-fences';
import { withChunkTimeout } from '@/lib/lazy-chunk';

// the task list sits below the fold: antd's Table comes with it, after the device itself is on screen
const TaskTable = lazy(
  withChunkTimeout(() => import('../components/task-table').then((m) => ({ default: m.TaskTable }))),
);

const LIST_PATH = '/device/index';
const TASK_PAGE_SIZE = 10;
const REASONS = ['hello', 'bound', 'lost', 'disconnect', 'reboot', 'shutdown'];

const idOf = (v: string | null): number => (v && /^\d{1,15}$/.test(v) ? Number(v) : 0);

/** One device (`/device/detail?id=…`, a tab per device): live status, telemetry, location, SIM, history, tasks, actions. */
export default function DeviceDetailPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const id = idOf(search.get('id'));
  useLiveDevices();
  const device = useDevice(id);

  if (!id || device.isError) {
    const missing = !id || Number((device.error as { code?: unknown } | null)?.code) === 404;
    return (
      <Card variant="borderless">
        <Result
          status={missing ? '404' : 'error'}
          title={!id ? t('device.detail.noId') : missing ? t('device.detail.notFound') : device.error?.message}
          subTitle={id && missing ? t('device.detail.notFoundHint') : undefined}
          extra={
            <Space>
              {id > 0 && !missing && <Button onClick={() => void device.refetch()}>{t('device.list.refresh')}</Button>}
              <Button type="primary" onClick={() => navigate(LIST_PATH)}>
                {t('device.detail.back')}
              </Button>
            </Space>
          }
        />
      </Card>
    );
  }
  if (!device.data) {
    return (
      <Card variant="borderless">
        <Skeleton active paragraph={{ rows: 8 }} />
      </Card>
    );
  }
  return <DeviceDetailView device={device.data} />;
}

function DeviceDetailView({ device }: { device: DeviceDetail }) {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const navigate = useNavigate();
  const screens = Grid.useBreakpoint();
  const now = useNow(RELATIVE_TIME_INTERVAL);
  const [editing, setEditing] = useState(false);
  const [moving, setMoving] = useState(false);
  const [taskPage, setTaskPage] = useState(1);
  const command = useDeviceCommand();
  const unbind = useUnbindDevice();
  const showNewBindKeys = useShowNewBindKeys();
  const tasks = useTasks({ deviceId: device.id, pageNo: taskPage, pageSize: TASK_PAGE_SIZE });
  const allowed = {
    reboot: usePermission(PERMISSIONS.deviceReboot),
    shutdown: usePermission(PERMISSIONS.deviceShutdown),
    edit: usePermission(PERMISSIONS.deviceEdit),
    bind: usePermission(PERMISSIONS.deviceBind),
    tasks: usePermission(PERMISSIONS.deviceTask),
  };
  const label = deviceLabel(device);
  usePageTitle(label);
  const none = t('device.none');

  const confirmUnbind = () =>
    modal.confirm({
      title: t('device.unbind.title', { name: label }),
      content: t('device.unbind.content'),
      okText: t('device.unbind.ok'),
      cancelText: t('device.unbind.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        let result: DeviceUnbindResult;
        try {
          result = await unbind.mutateAsync(device.id);
        } catch {
          return;
        }
        message.success(t('device.unbind.done'));
        void navigate(LIST_PATH);
        showNewBindKeys([result]);
      },
    });

  const actions = (
    <Space wrap size={8}>
      {allowed.reboot && (
        <Button icon={<ReloadOutlined />} onClick={() => command.confirm('reboot', [device])}>
          {t('device.list.action.reboot')}
        </Button>
      )}
      {allowed.shutdown && (
        <Button danger icon={<PoweroffOutlined />} onClick={() => command.confirm('shutdown', [device])}>
          {t('device.list.action.shutdown')}
        </Button>
      )}
      {allowed.edit && (
        <Button icon={<EditOutlined />} onClick={() => setEditing(true)}>
          {t('device.list.action.edit')}
        </Button>
      )}
      {allowed.edit && (
        <Button icon={<DragOutlined />} onClick={() => setMoving(true)}>
          {t('device.list.action.move')}
        </Button>
      )}
      {allowed.bind && (
        <Button danger type="text" icon={<DeleteOutlined />} onClick={confirmUnbind}>
          {t('device.list.action.unbind')}
        </Button>
      )}
    </Space>
  );

  const fields = [
    {
      key: 'connectedAt',
      label: t('device.detail.fields.connectedAt'),
      children: device.connectedAt ? <SeenAt at={device.connectedAt} now={now} /> : none,
    },
    {
      key: 'lastSeen',
      label: t('device.detail.fields.lastSeen'),
      children: <SeenAt at={device.lastSeenAt} now={now} />,
    },
    { key: 'paper', label: t('device.detail.fields.paper'), children: <PaperTag paper={device.paper} /> },
    { key: 'battery', label: t('device.detail.fields.battery'), children: <BatteryCell value={device.battery} /> },
    { key: 'signal', label: t('device.detail.fields.signal'), children: <SignalCell value={device.signal} /> },
    { key: 'firmware', label: t('device.detail.fields.firmware'), children: device.firmware || none },
    {
      key: 'model',
      label: t('device.detail.fields.model'),
      children: `${device.model.name} (${t(`device.kind.${device.model.kind}`)})`,
    },
    { key: 'group', label: t('device.detail.fields.group'), children: device.groupName ?? t('device.ungrouped') },
    { key: 'imei', label: t('device.detail.fields.imei'), children: device.imei || none },
    {
      key: 'heartbeat',
      label: t('device.detail.fields.heartbeat'),
      children: t('device.detail.heartbeatValue', { seconds: device.heartbeatS }),
    },
    {
      key: 'province',
      label: t('device.detail.fields.province'),
      children: device.province ? provinceLabel(device.province, t) : none,
    },
    {
      key: 'boundAt',
      label: t('device.detail.fields.boundAt'),
      children: device.boundAt ? formatDateTime(device.boundAt) : none,
    },
    ...(device.remark
      ? [{ key: 'remark', label: t('device.detail.fields.remark'), children: device.remark, span: 'filled' as const }]
      : []),
  ];

  return (
    <Flex vertical gap={16} data-testid="device-detail" data-device-id={device.id} data-status={device.status}>
      <Card variant="borderless">
        <Flex vertical gap={16}>
          <Flex justify="space-between" align="flex-start" gap={12} wrap>
            <Flex vertical gap={4} style={{ minWidth: 0, flex: '1 1 280px' }}>
              <Flex align="center" gap={12} wrap>
                <Typography.Title level={4} style={{ margin: 0 }} ellipsis>
                  {label}
                </Typography.Title>
                <StatusBadge status={device.status} />
                <LiveIndicator />
              </Flex>
              <Typography.Text type="secondary" copyable={{ text: device.sn }}>
                {t('device.detail.fields.sn')}: {device.sn}
              </Typography.Text>
            </Flex>
            {actions}
          </Flex>
          <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 3, xl: 4 }} items={fields} />
        </Flex>
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={15}>
          <Card variant="borderless" title={t('device.detail.telemetry.title')} style={{ height: '100%' }}>
            <TelemetryChart deviceId={device.id} />
          </Card>
        </Col>
        <Col xs={24} xl={9}>
          <Card variant="borderless" title={t('device.detail.location.title')} style={{ height: '100%' }}>
            <LocationMap
              location={device.location}
              status={device.status}
              province={device.province ? provinceLabel(device.province, t) : ''}
            />
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <Card variant="borderless" title={t('device.detail.sim.title')} style={{ height: '100%' }}>
            <SimCard sim={device.sim} />
          </Card>
        </Col>
        <Col xs={24} lg={12}>
          <Card variant="borderless" title={t('device.detail.history.title')} style={{ height: '100%' }}>
            <StatusHistory changes={device.recentStatus} />
          </Card>
        </Col>
        <InstalledSoftware deviceId={device.id} />
      </Row>
      <FirmwareHistoryCard deviceId={device.id} />
      <DeviceProfileCard deviceId={device.id} />
      <DeviceFencesCard deviceId={device.id} />
      {allowed.tasks && (
        <Card variant="borderless" title={t('device.task.listTitle')}>
          <Suspense fallback={<Skeleton active paragraph={{ rows: 3 }} />}>
            <TaskTable
              tasks={tasks.data?.list ?? []}
              loading={tasks.isPending}
              now={now}
              show="type"
              compact={!screens.md}
              pagination={{
                current: taskPage,
                pageSize: TASK_PAGE_SIZE,
                total: tasks.data?.total ?? 0,
                onChange: setTaskPage,
                hideOnSinglePage: true,
                size: 'small',
              }}
            />
          </Suspense>
        </Card>
      )}
      <EditModal device={editing ? device : null} onClose={() => setEditing(false)} />
      <MoveModal ids={moving ? [device.id] : null} currentGroupId={device.groupId} onClose={() => setMoving(false)} />
      {command.drawer}
    </Flex>
  );
}

function SimCard({ sim }: { sim: SimView | null }) {
  const { t, i18n } = useTranslation();
  if (!sim) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.detail.sim.none')} />;
  const carrierKey = `device.detail.sim.carriers.${sim.carrier || 'unknown'}`;
  const percent = sim.planTotalMb > 0 ? Math.min(100, Math.round((sim.usedMb / sim.planTotalMb) * 100)) : 0;
  return (
    <Flex vertical gap={12}>
      <Flex vertical gap={4}>
        <Flex justify="space-between" wrap gap={8}>
          <Flex align="center" gap={8}>
            <Typography.Text type="secondary">{t('device.detail.sim.left')}</Typography.Text>
            <Typography.Text strong style={{ fontSize: 16 }}>
              <DataLeftCell mb={sim.leftMb} plan={sim.planTotalMb} state={sim.state} />
            </Typography.Text>
          </Flex>
          {sim.planTotalMb > 0 && (
            <Typography.Text type="secondary">{t('device.detail.sim.usage', { percent })}</Typography.Text>
          )}
        </Flex>
        {/* without a plan there is nothing to be a share of */}
        {sim.planTotalMb > 0 && (
          <Progress percent={percent} showInfo={false} status={sim.state === 'active' ? 'normal' : 'exception'} />
        )}
      </Flex>
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2 }}
        items={[
          {
            key: 'iccid',
            label: t('device.detail.sim.iccid'),
            children: <Typography.Text copyable>{sim.iccid}</Typography.Text>,
            span: 'filled',
          },
          { key: 'msisdn', label: t('device.detail.sim.msisdn'), children: sim.msisdn || t('device.none') },
          {
            key: 'carrier',
            label: t('device.detail.sim.carrier'),
            children: i18n.exists(carrierKey) ? t(carrierKey) : sim.carrier,
          },
          {
            key: 'plan',
            label: t('device.detail.sim.plan'),
            children: sim.planTotalMb > 0 ? formatMb(sim.planTotalMb) : t('device.noPlan'),
          },
          { key: 'used', label: t('device.detail.sim.used'), children: formatMb(sim.usedMb) },
          {
            key: 'expiry',
            label: t('device.detail.sim.expiry'),
            children: sim.expiresAt ? formatDateTime(sim.expiresAt) : t('device.none'),
          },
          {
            key: 'state',
            label: t('device.detail.sim.state'),
            children: (
              <Tag color={sim.state === 'active' ? 'success' : sim.state === 'low' ? 'warning' : 'error'}>
                {t(`device.simState.${sim.state}`)}
              </Tag>
            ),
          },
        ]}
      />
    </Flex>
  );
}

function StatusHistory({ changes }: { changes: StatusChange[] }) {
  const { t } = useTranslation();
  if (!changes.length)
    return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('device.detail.history.empty')} />;
  const reason = (r: string) =>
    REASONS.includes(r)
      ? t(`device.detail.history.reason.${r}`)
      : r === 'heartbeat timeout'
        ? t('device.detail.history.reason.heartbeatTimeout')
        : r === 'no-data'
          ? t('device.detail.history.reason.noData')
          : r || t('device.detail.history.reason.other');
  return (
    <div style={{ maxHeight: 300, overflow: 'auto', paddingTop: 8 }}>
      <Timeline
        items={changes.map((c, i) => ({
          key: `${c.at}-${i}`,
          color: c.status === 'online' ? 'green' : 'gray',
          content: (
            <Flex vertical>
              <Typography.Text>
                {t(`device.status.${c.status}`)} · {reason(c.reason)}
              </Typography.Text>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {formatDateTime(c.at)}
              </Typography.Text>
            </Flex>
          ),
        }))}
      />
    </div>
  );
}
