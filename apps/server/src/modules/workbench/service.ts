import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import {
  AUTH_STATUS,
  PERMISSIONS,
  SIM_EXPIRY_REMIND_DAYS,
  WORKBENCH_ITEMS,
  type WorkbenchItem,
  type WorkbenchSection,
  type WorkbenchSectionKey,
  type WorkbenchSummary,
} from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { dataAccessOf, deviceInScope, inDataScope, type DataAccess } from '../../lib/data-scope.ts';
import { hasPermission, type AuthUser } from '../../plugins/auth.ts';
import { latestUnreadNotices, unreadNoticeCount } from '../notice/index.ts';

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** Work orders still open: somebody has something to do (resolved ones wait only for the customer's close). */
const OPEN_STATES = ['submitted', 'processing', 'waiting'] as const;
/** The SIM states the traffic page's "needs attention" filter lists. */
const SIM_ATTENTION = ['low', 'exhausted', 'suspended'] as const;

/**
 * Work orders in the caller's data scope. They carry their author (`user_id`) rather than an `owner_id`, so the
 * `own` scope is the orders the user opened; `department` and `all` are as for devices.
 */
function workOrderInScope(a: DataAccess): RawBuilder<boolean> {
  if (a.scope === 'own') return sql<boolean>`work_orders.user_id = ${a.userId}`;
  return inDataScope(a, 'work_orders');
}

/**
 * What needs the caller now (issue 14, SPEC §2): customers see their account's waiting work orders, SIMs, devices
 * and announcements; platform staff see the review, work-order and refund queues of every account. Each section
 * is there only with the permission that opens its page, and counts exactly the rows its link lists.
 */
export class WorkbenchService {
  constructor(private db: Db) {}

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
      if (may(PERMISSIONS.workOrderView)) jobs.push(this.workOrderWaiting(user, a), this.workOrderUnread(user, a));
      if (may(PERMISSIONS.flowRateView)) jobs.push(this.simLow(user, a), this.simExpiring(user, a));
      if (may(PERMISSIONS.deviceView)) jobs.push(this.deviceOffline(user, a), this.deviceFault(user, a));
      jobs.push(this.notices(user));
    }
    return { role: staff ? 'staff' : 'customer', sections: await Promise.all(jobs) };
  }

  // ---- customer ----

  private customerWorkOrders(user: AuthUser, a: DataAccess) {
    return user.scope.selectFrom('work_orders').where(workOrderInScope(a));
  }

  private async workOrderWaiting(user: AuthUser, a: DataAccess): Promise<WorkbenchSection> {
    const q = () => this.customerWorkOrders(user, a).where('work_orders.state', '=', 'waiting');
    return this.section('workOrderWaiting', '/workOrder/workOrderIndex?state=waiting', q, async (base) => {
      const rows = await base
        .select(['id', 'order_no', 'title', 'priority', 'last_staff_at', 'updated_at'])
        .orderBy(sql`coalesce(last_staff_at, updated_at)`, 'desc')
        .orderBy('id', 'desc')
        .limit(WORKBENCH_ITEMS)
        .execute();
      return rows.map((r) => ({
        id: String(r.id),
        title: r.title,
        subtitle: r.order_no,
        tag: r.priority,
        at: iso(r.last_staff_at ?? r.updated_at),
        link: `/workOrder/detail?id=${r.id}`,
      }));
    });
  }

  private async workOrderUnread(user: AuthUser, a: DataAccess): Promise<WorkbenchSection> {
    const q = () =>
      this.customerWorkOrders(user, a)
        .where('work_orders.state', 'not in', ['closed', 'withdrawn'])
        .where(sql<boolean>`work_orders.last_staff_at > coalesce(work_orders.customer_read_at, 'epoch'::timestamptz)`);
    return this.section('workOrderUnread', '/workOrder/workOrderIndex?unread=true', q, async (base) => {
      const rows = await base
        .select(['id', 'order_no', 'title', 'state', 'last_staff_at'])
        .orderBy('last_staff_at', 'desc')
        .orderBy('id', 'desc')
        .limit(WORKBENCH_ITEMS)
        .execute();
      return rows.map((r) => ({
        id: String(r.id),
        title: r.title,
        subtitle: r.order_no,
        tag: r.state,
        at: iso(r.last_staff_at),
        link: `/workOrder/detail?id=${r.id}`,
      }));
    });
  }

  private sims(user: AuthUser, a: DataAccess) {
    return user.scope
      .selectFrom('sims')
      .leftJoin('devices', (j) =>
        j.onRef('devices.id', '=', 'sims.device_id').on('devices.tenant_id', '=', user.tenantId),
      )
      .where(deviceInScope(a, 'sims.device_id'));
  }

  private simItems(
    rows: Array<{ iccid: string; sn: string | null; name: string | null; state: string; expires_at: Date | null }>,
    tag: boolean,
  ): WorkbenchItem[] {
    return rows.map((r) => ({
      id: r.iccid,
      title: r.iccid,
      subtitle: r.name || r.sn || '',
      tag: tag ? r.state : '',
      at: iso(r.expires_at),
      link: `/flowRate/flowRateSearch?keyword=${encodeURIComponent(r.iccid)}`,
    }));
  }

  private async simLow(user: AuthUser, a: DataAccess): Promise<WorkbenchSection> {
    const q = () => this.sims(user, a).where('sims.state', 'in', SIM_ATTENTION);
    return this.section('simLow', `/flowRate/flowRateSearch?state=${SIM_ATTENTION.join(',')}`, q, async (base) =>
      this.simItems(
        await base
          .select(['sims.iccid', 'devices.sn', 'devices.name', 'sims.state', 'sims.expires_at'])
          .orderBy(sql`sims.plan_total_mb - sims.used_mb`, 'asc')
          .orderBy('sims.iccid')
          .limit(WORKBENCH_ITEMS)
          .execute(),
        true,
      ),
    );
  }

  private async simExpiring(user: AuthUser, a: DataAccess): Promise<WorkbenchSection> {
    // the same condition as the traffic page's `expiringDays` filter
    const q = () =>
      this.sims(user, a)
        .where('sims.expires_at', '>', sql<Date>`now()`)
        .where('sims.expires_at', '<=', sql<Date>`now() + make_interval(days => ${SIM_EXPIRY_REMIND_DAYS})`);
    return this.section(
      'simExpiring',
      `/flowRate/flowRateSearch?expiringDays=${SIM_EXPIRY_REMIND_DAYS}`,
      q,
      async (base) =>
        this.simItems(
          await base
            .select(['sims.iccid', 'devices.sn', 'devices.name', 'sims.state', 'sims.expires_at'])
            .orderBy('sims.expires_at', 'asc')
            .orderBy('sims.iccid')
            .limit(WORKBENCH_ITEMS)
            .execute(),
          false,
        ),
    );
  }

  private devices(user: AuthUser, a: DataAccess) {
    return user.scope.selectFrom('devices').where(inDataScope(a));
  }

  private deviceItems(
    rows: Array<{ id: number; sn: string; name: string; paper: string; last_seen_at: Date | null }>,
    tag: boolean,
  ): WorkbenchItem[] {
    return rows.map((r) => ({
      id: String(r.id),
      title: r.name || r.sn,
      subtitle: r.name ? r.sn : '',
      tag: tag ? r.paper : '',
      at: iso(r.last_seen_at),
      link: `/device/detail?id=${r.id}`,
    }));
  }

  private async deviceOffline(user: AuthUser, a: DataAccess): Promise<WorkbenchSection> {
    const q = () => this.devices(user, a).where('devices.status', '=', 'offline');
    return this.section('deviceOffline', '/device/index?status=offline', q, async (base) =>
      this.deviceItems(
        await base
          .select(['devices.id', 'devices.sn', 'devices.name', 'devices.paper', 'devices.last_seen_at'])
          .orderBy(sql`devices.last_seen_at desc nulls last`)
          .orderBy('devices.id')
          .limit(WORKBENCH_ITEMS)
          .execute(),
        false,
      ),
    );
  }

  private async deviceFault(user: AuthUser, a: DataAccess): Promise<WorkbenchSection> {
    const q = () => this.devices(user, a).where('devices.paper', '<>', 'ok');
    // the device list filters one paper state at a time: the section opens the most common fault
    const [items, top] = await Promise.all([
      q()
        .select(['devices.id', 'devices.sn', 'devices.name', 'devices.paper', 'devices.last_seen_at'])
        .orderBy(sql`devices.last_seen_at desc nulls last`)
        .orderBy('devices.id')
        .limit(WORKBENCH_ITEMS)
        .execute(),
      q()
        .select(['devices.paper', sql<number>`count(*)::int`.as('n')])
        .groupBy('devices.paper')
        .orderBy(sql`count(*)`, 'desc')
        .orderBy('devices.paper')
        .execute(),
    ]);
    return {
      key: 'deviceFault',
      count: top.reduce((s, r) => s + r.n, 0),
      link: `/device/index?paper=${top[0]?.paper ?? 'out'}`,
      items: this.deviceItems(items, true),
    };
  }

  private async notices(user: AuthUser): Promise<WorkbenchSection> {
    const reader = { id: user.id, tenantId: user.tenantId, tenantKind: user.tenantKind };
    const [count, rows] = await Promise.all([
      unreadNoticeCount(this.db, reader),
      latestUnreadNotices(this.db, reader, WORKBENCH_ITEMS),
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

  private async identityWaiting(): Promise<WorkbenchSection> {
    const q = () =>
      this.db
        .selectFrom('identity_submissions as s')
        .innerJoin('tenants as t', 't.id', 's.tenant_id')
        .where('s.status', '=', AUTH_STATUS.waiting);
    return this.section('identityWaiting', '/system/identity', q, async (base) => {
      const rows = await base
        .select(['s.id', 's.kind', 's.company_name', 't.name as tenant_name', 's.created_at'])
        .orderBy('s.created_at', 'asc')
        .orderBy('s.id')
        .limit(WORKBENCH_ITEMS)
        .execute();
      return rows.map((r) => ({
        id: String(r.id),
        title: r.company_name || r.tenant_name,
        subtitle: r.company_name ? r.tenant_name : '',
        tag: r.kind,
        at: iso(r.created_at),
        link: '/system/identity',
      }));
    });
  }

  private staffWorkOrders() {
    return this.db
      .selectFrom('work_orders')
      .innerJoin('tenants as t', 't.id', 'work_orders.tenant_id')
      .where('work_orders.state', 'in', OPEN_STATES);
  }

  private workOrderItems(
    rows: Array<{ id: number; title: string; order_no: string; tenant_name: string; priority: string; at: Date }>,
  ): WorkbenchItem[] {
    return rows.map((r) => ({
      id: String(r.id),
      title: r.title,
      subtitle: `${r.order_no} · ${r.tenant_name}`,
      tag: r.priority,
      at: iso(r.at),
      link: `/workOrder/detail?id=${r.id}`,
    }));
  }

  private async workOrderUnassigned(): Promise<WorkbenchSection> {
    const q = () => this.staffWorkOrders().where('work_orders.assignee_id', 'is', null);
    return this.section(
      'workOrderUnassigned',
      `/workOrder/workOrderIndex?assignee=none&state=${OPEN_STATES.join(',')}`,
      q,
      async (base) =>
        this.workOrderItems(
          await base
            .select([
              'work_orders.id',
              'work_orders.title',
              'work_orders.order_no',
              't.name as tenant_name',
              'work_orders.priority',
              'work_orders.created_at as at',
            ])
            // the most urgent first: the first response falls due soonest
            .orderBy('work_orders.response_due_at', 'asc')
            .orderBy('work_orders.id')
            .limit(WORKBENCH_ITEMS)
            .execute(),
        ),
    );
  }

  private async workOrderOverdue(): Promise<WorkbenchSection> {
    // past the first-response target without a response, or past the resolution target
    const due = sql<Date>`case when work_orders.first_response_at is null
      and work_orders.response_due_at < work_orders.resolve_due_at
      then work_orders.response_due_at else work_orders.resolve_due_at end`;
    const q = () =>
      this.staffWorkOrders().where(
        sql<boolean>`((work_orders.first_response_at is null and now() > work_orders.response_due_at) or now() > work_orders.resolve_due_at)`,
      );
    return this.section('workOrderOverdue', '/workOrder/workOrderIndex?overdue=true', q, async (base) =>
      this.workOrderItems(
        await base
          .select([
            'work_orders.id',
            'work_orders.title',
            'work_orders.order_no',
            't.name as tenant_name',
            'work_orders.priority',
            due.as('at'),
          ])
          .orderBy(due, 'asc')
          .orderBy('work_orders.id')
          .limit(WORKBENCH_ITEMS)
          .execute(),
      ),
    );
  }

  private async refundPending(): Promise<WorkbenchSection> {
    // paid, but the data never reached the SIMs: staff fulfil it by hand or refund it (nothing else marks a
    // refund to decide; late payments of closed orders are refunded automatically)
    const q = () =>
      this.db
        .selectFrom('orders')
        .innerJoin('tenants as t', 't.id', 'orders.tenant_id')
        .where('orders.state', '=', 'paid');
    return this.section('refundPending', '/flowRate/flowRateLog?state=paid', q, async (base) => {
      const rows = await base
        .select(['orders.id', 'orders.order_no', 'orders.total_fen', 't.name as tenant_name', 'orders.paid_at'])
        .orderBy('orders.paid_at', 'asc')
        .orderBy('orders.id')
        .limit(WORKBENCH_ITEMS)
        .execute();
      return rows.map((r) => ({
        id: String(r.id),
        title: r.order_no,
        subtitle: r.tenant_name,
        tag: '',
        at: iso(r.paid_at),
        link: `/flowRate/flowRateLog?state=paid&orderNo=${encodeURIComponent(r.order_no)}`,
      }));
    });
  }

  /** A section: the count of every matching row and the first few items, from one query. */
  private async section<Q extends SelectQueryBuilder<Database, any, any>>(
    key: WorkbenchSectionKey,
    link: string,
    query: () => Q,
    items: (q: Q) => Promise<WorkbenchItem[]>,
  ): Promise<WorkbenchSection> {
    const [count, list] = await Promise.all([
      query()
        .select(sql<string>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
      items(query()),
    ]);
    return { key, count: Number((count as { n: string }).n), link, items: list };
  }
}
