import type { UserInfo } from '@cpc/contracts';
import type { WorkOrderDetail, WorkOrderItem } from '@cpc/contracts/work-order';

/** Test data of the work-order pages (imported by tests only). */
export const item = (over: Partial<WorkOrderItem> = {}): WorkOrderItem => ({
  id: 7,
  orderNo: 'WO202611260001',
  tenantId: 2,
  tenantName: 'Acme',
  type: 'device',
  priority: 'high',
  state: 'submitted',
  title: '打印机卡纸',
  openedBy: { id: 3, name: 'ann' },
  assignee: null,
  createdAt: '2026-11-26T08:00:00.000Z',
  updatedAt: '2026-11-26T08:00:00.000Z',
  responseDueAt: '2026-11-26T09:00:00.000Z',
  resolveDueAt: '2026-11-27T08:00:00.000Z',
  firstResponseAt: null,
  resolvedAt: null,
  overdue: false,
  unread: false,
  rating: null,
  ...over,
});

export const NO_CAN: WorkOrderDetail['can'] = {
  edit: false,
  withdraw: false,
  reply: false,
  reopen: false,
  close: false,
  rate: false,
  take: false,
  assign: false,
  resolve: false,
};

export const detail = (
  over: Partial<Omit<WorkOrderDetail, 'can'>> & { can?: Partial<WorkOrderDetail['can']> } = {},
): WorkOrderDetail => ({
  ...item(),
  descriptionHtml: '<p>第二层纸盒卡纸</p>',
  devices: [{ id: 11, sn: 'SN-11', name: '前台' }],
  orders: [],
  attachments: [],
  events: [],
  ratingComment: '',
  closedAt: null,
  reopenUntil: null,
  ...over,
  can: { ...NO_CAN, ...over.can },
});

export const user = (permissions: string[], tenantKind: UserInfo['tenantKind'] = 'enterprise'): UserInfo => ({
  id: 3,
  username: 'ann',
  mobile: null,
  avatar: '',
  is_super: 2,
  status: 1,
  is_authenticate: 1,
  attest_name: '',
  tenantKind,
  dataScope: 'all',
  departmentId: null,
  admin: false,
  roles: [],
  permissions,
});
