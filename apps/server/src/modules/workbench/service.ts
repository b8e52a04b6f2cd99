import {
  PERMISSIONS,
  SIM_EXPIRY_REMIND_DAYS,
  WORKBENCH_ITEMS,
  type WorkbenchItem,
  type WorkbenchSection,
  type WorkbenchSectionKey,
  type WorkbenchSummary,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { dataAccessOf, type DataAccess } from '../../lib/data-scope.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import type { NoticeReader } from '../notice/index.ts';
import { OPEN_STATES, SIM_ATTENTION, WorkbenchRepository, type Counted } from './repository.ts';

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** What the workbench reads of the notice module: the reader's unread live notices. */
export interface NoticeReads {
  unreadCount(reader: NoticeReader): Promise<number>;
  latestUnread(
    reader: NoticeReader,
    limit: number,
  ): Promise<Array<{ id: number; title: string; published_at: Date | string | null }>>;
}

type SimRow = { iccid: string; sn: string | null; name: string | null; state: string; expires_at: Date | null };
type DeviceRow = { id: number; sn: string; name: string; paper: string; last_seen_at: Date | null };
type StaffOrderRow = { id: number; title: string; order_no: string; tenant_name: string; priority: string; at: Date };

const simItems = (rows: SimRow[], tag: boolean): WorkbenchItem[] =>
  rows.map((r) => ({
    id: r.iccid,
    title: r.iccid,
    subtitle: r.name || r.sn || '',
    tag: tag ? r.state : '',
    at: iso(r.expires_at),
    link: `/flowRate/flowRateSearch?keyword=${encodeURIComponent(r.iccid)}`,
  }));

const deviceItems = (rows: DeviceRow[], tag: boolean): WorkbenchItem[] =>
  rows.map((r) => ({
    id: String(r.id),
    title: r.name || r.sn,
    subtitle: r.name ? r.sn : '',
    tag: tag ? r.paper : '',
    at: iso(r.last_seen_at),
    link: `/device/detail?id=${r.id}`,
  }));

const workOrderItems = (rows: StaffOrderRow[]): WorkbenchItem[] =>
  rows.map((r) => ({
    id: String(r.id),
    title: r.title,
    subtitle: `${r.order_no} · ${r.tenant_name}`,
    tag: r.priority,
    at: iso(r.at),
    link: `/workOrder/detail?id=${r.id}`,
  }));

/** A section: the count of every matching row, the page listing them, and the first few as items. */
async function section<R>(
  key: WorkbenchSectionKey,
  link: string,
  read: Promise<Counted<R>>,
  items: (rows: R[]) => WorkbenchItem[],
): Promise<WorkbenchSection> {
  const { count, rows } = await read;
  return { key, count, link, items: items(rows) };
}

/**
 * What needs the caller now (SPEC §2): customers see their account's waiting work orders, SIMs, devices and
 * announcements; platform staff see the review, work-order and refund queues of every account. Each section
 * is there only with the permission that opens its page, and counts exactly the rows its link lists.
 */
export class WorkbenchService {
  private repo: WorkbenchRepository;

  constructor(
    db: Db,
    private notices: NoticeReads,
  ) {
    this.repo = new WorkbenchRepository(db);
  }

  async summary(user: AuthUser): Promise<WorkbenchSummary> {
    const staff = user.tenantKind === 'platform';
    const may = (p: string) => hasPermission(user, p);
    const jobs: Array<Promise<WorkbenchSection>> = [];
    if (staff) {
      if (may(PERMISSIONS.identityReview)) jobs.push(this.identityWaiting());
      if (may(PERMISSIONS.workOrderHandle)) jobs.push(this.workOrderUnassigned(), this.workOrderOverdue());
      if (may(PERMISSIONS.flowRateRefund)) jobs.push(this.refundPending());
    } else {
      const a = dataAccessOf(user);
      const t = user.tenantId;
      if (may(PERMISSIONS.workOrderView)) jobs.push(this.workOrderWaiting(t, a), this.workOrderUnread(t, a));
      if (may(PERMISSIONS.flowRateView)) jobs.push(this.simLow(t, a), this.simExpiring(t, a));
      if (may(PERMISSIONS.deviceView)) jobs.push(this.deviceOffline(t, a), this.deviceFault(t, a));
      jobs.push(this.noticesOf(user));
    }
    return { role: staff ? 'staff' : 'customer', sections: await Promise.all(jobs) };
  }

  // ---- customer ----

  private workOrderWaiting(t: number, a: DataAccess): Promise<WorkbenchSection> {
    return section(
      'workOrderWaiting',
      '/workOrder/workOrderIndex?state=waiting',
      this.repo.workOrdersWaiting(t, a),
      (rows) =>
        rows.map((r) => ({
          id: String(r.id),
          title: r.title,
          subtitle: r.order_no,
          tag: r.priority,
          at: iso(r.last_staff_at ?? r.updated_at),
          link: `/workOrder/detail?id=${r.id}`,
        })),
    );
  }

  private workOrderUnread(t: number, a: DataAccess): Promise<WorkbenchSection> {
    return section(
      'workOrderUnread',
      '/workOrder/workOrderIndex?unread=true',
      this.repo.workOrdersUnread(t, a),
      (rows) =>
        rows.map((r) => ({
          id: String(r.id),
          title: r.title,
          subtitle: r.order_no,
          tag: r.state,
          at: iso(r.last_staff_at),
          link: `/workOrder/detail?id=${r.id}`,
        })),
    );
  }

  private simLow(t: number, a: DataAccess): Promise<WorkbenchSection> {
    return section(
      'simLow',
      `/flowRate/flowRateSearch?state=${SIM_ATTENTION.join(',')}`,
      this.repo.simsLow(t, a),
      (rows) => simItems(rows, true),
    );
  }

  private simExpiring(t: number, a: DataAccess): Promise<WorkbenchSection> {
    return section(
      'simExpiring',
      `/flowRate/flowRateSearch?expiringDays=${SIM_EXPIRY_REMIND_DAYS}`,
      this.repo.simsExpiring(t, a),
      (rows) => simItems(rows, false),
    );
  }

  private deviceOffline(t: number, a: DataAccess): Promise<WorkbenchSection> {
    return section('deviceOffline', '/device/index?status=offline', this.repo.devicesOffline(t, a), (rows) =>
      deviceItems(rows, false),
    );
  }

  private async deviceFault(t: number, a: DataAccess): Promise<WorkbenchSection> {
    const { rows, perPaper } = await this.repo.deviceFaults(t, a);
    // the device list filters one paper state at a time: the section opens the most common fault
    return {
      key: 'deviceFault',
      count: perPaper.reduce((s, r) => s + r.n, 0),
      link: `/device/index?paper=${perPaper[0]?.paper ?? 'out'}`,
      items: deviceItems(rows, true),
    };
  }

  private async noticesOf(user: AuthUser): Promise<WorkbenchSection> {
    const reader = { id: user.id, tenantId: user.tenantId, tenantKind: user.tenantKind };
    const [count, rows] = await Promise.all([
      this.notices.unreadCount(reader),
      this.notices.latestUnread(reader, WORKBENCH_ITEMS),
    ]);
    return {
      key: 'notices',
      count,
      link: '/notice/noticeIndex',
      items: rows.map((r) => ({
        id: String(r.id),
        title: r.title,
        subtitle: '',
        tag: '',
        at: iso(r.published_at),
        link: `/notice/detail?id=${r.id}`,
      })),
    };
  }

  // ---- platform staff: every account ----

  private identityWaiting(): Promise<WorkbenchSection> {
    return section('identityWaiting', '/system/identity', this.repo.identityWaiting(), (rows) =>
      rows.map((r) => ({
        id: String(r.id),
        title: r.company_name || r.tenant_name,
        subtitle: r.company_name ? r.tenant_name : '',
        tag: r.kind,
        at: iso(r.created_at),
        link: '/system/identity',
      })),
    );
  }

  private workOrderUnassigned(): Promise<WorkbenchSection> {
    return section(
      'workOrderUnassigned',
      `/workOrder/workOrderIndex?assignee=none&state=${OPEN_STATES.join(',')}`,
      this.repo.workOrdersUnassigned(),
      workOrderItems,
    );
  }

  private workOrderOverdue(): Promise<WorkbenchSection> {
    return section(
      'workOrderOverdue',
      '/workOrder/workOrderIndex?overdue=true',
      this.repo.workOrdersOverdue(),
      workOrderItems,
    );
  }

  private refundPending(): Promise<WorkbenchSection> {
    // paid, but the data never reached the SIMs: staff fulfil it by hand or refund it (nothing else marks a
    // refund to decide; late payments of closed orders are refunded automatically)
    return section('refundPending', '/flowRate/flowRateLog?state=paid', this.repo.refundsPending(), (rows) =>
      rows.map((r) => ({
        id: String(r.id),
        title: r.order_no,
        subtitle: r.tenant_name,
        tag: '',
        at: iso(r.paid_at),
        link: `/flowRate/flowRateLog?state=paid&orderNo=${encodeURIComponent(r.order_no)}`,
      })),
    );
  }
}
