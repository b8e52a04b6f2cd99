import type { LiveDeviceEvent, LiveTaskEvent, TaskItem } from '@cpc/contracts';
import type { DeviceDetail, DeviceListItem } from '@cpc/contracts/device';

/** Rows and events as the server sends them, for the feature's tests. */

export const deviceRow = (over: Partial<DeviceListItem> = {}): DeviceListItem => ({
  id: 1,
  sn: 'CP58-00001',
  name: 'Front desk',
  remark: '',
  modelId: 1,
  modelName: 'Cloud printer 58',
  modelKind: 'printer',
  groupId: null,
  groupName: null,
  departmentId: null,
  departmentName: null,
  status: 'offline',
  paper: 'ok',
  battery: 80,
  signal: 70,
  firmware: '1.4.2',
  simDataLeftMb: 512.5,
  simPlanMb: 1024,
  simState: 'active',
  lastSeenAt: '2026-01-01T08:00:00.000Z',
  connectedAt: null,
  province: '上海',
  boundAt: '2026-01-01T07:00:00.000Z',
  ...over,
});

export const deviceDetail = (over: Partial<DeviceDetail> = {}): DeviceDetail => ({
  ...deviceRow(),
  imei: '860000000000001',
  iccid: '89860000000000000001',
  heartbeatS: 30,
  model: {
    id: 1,
    code: 'CP58',
    name: 'Cloud printer 58',
    kind: 'printer',
    paperWidthMm: 58,
    capabilities: ['print', 'reboot', 'shutdown'],
  },
  location: { lat: 31.23, lng: 121.47, at: '2026-01-01T08:00:00.000Z' },
  sim: {
    iccid: '89860000000000000001',
    msisdn: '14800000001',
    carrier: 'cmcc',
    planTotalMb: 1024,
    usedMb: 511.5,
    leftMb: 512.5,
    expiresAt: '2026-12-31T00:00:00.000Z',
    state: 'active',
  },
  recentStatus: [],
  ...over,
});

export const deviceEvent = (over: Partial<LiveDeviceEvent> = {}): LiveDeviceEvent => ({
  id: 1,
  sn: 'CP58-00001',
  status: 'online',
  paper: 'ok',
  battery: 80,
  signal: 70,
  firmware: '1.4.2',
  lastSeenAt: '2026-01-01T09:00:00.000Z',
  connectedAt: '2026-01-01T09:00:00.000Z',
  lat: 31.23,
  lng: 121.47,
  province: '上海',
  ...over,
});

export const taskRow = (over: Partial<TaskItem> = {}): TaskItem => ({
  id: '00000000-0000-4000-8000-000000000001',
  deviceId: 1,
  deviceSn: 'CP58-00001',
  deviceName: 'Front desk',
  batchId: null,
  type: 'reboot',
  state: 'queued',
  progress: 0,
  stage: '',
  error: '',
  attempts: 0,
  maxAttempts: 3,
  createdAt: '2026-01-01T09:00:00.000Z',
  sentAt: null,
  deliveredAt: null,
  startedAt: null,
  finishedAt: null,
  expireAt: '2026-01-02T09:00:00.000Z',
  ...over,
});

export const taskEvent = (over: Partial<LiveTaskEvent> = {}): LiveTaskEvent => ({
  id: '00000000-0000-4000-8000-000000000001',
  deviceId: 1,
  batchId: null,
  type: 'reboot',
  state: 'sent',
  progress: 0,
  stage: '',
  error: '',
  ...over,
});
