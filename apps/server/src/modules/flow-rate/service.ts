import type { SimItem, SimSummary, SimUsage, SimUsageRange } from '@cpc/contracts';
import { SIM_STATES } from '@cpc/contracts/device-constants';
import type { Db } from '../../db/database.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { notFound } from '../../plugins/errors.ts';
import { FlowRateRepository, type SimCursor, type SimFilter, type SimRow, type UsageRow } from './repository.ts';

export type { SimFilter } from './repository.ts';

const MB = 1024 * 1024;
const mb2 = (v: string | number | null) => Math.round(Number(v ?? 0) * 100) / 100;
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

export function toSimItem(r: SimRow): SimItem {
  const plan = Number(r.plan_total_mb);
  const used = Number(r.used_mb);
  const left = plan > 0 ? Math.max(plan - used, 0) : 0;
  return {
    iccid: r.iccid,
    msisdn: r.msisdn,
    carrier: r.carrier,
    deviceId: r.device_id,
    deviceSn: r.sn,
    deviceName: r.name,
    groupName: r.group_name,
    planMb: mb2(plan),
    usedMb: mb2(used),
    leftMb: mb2(left),
    leftPercent: plan > 0 ? Math.round((left / plan) * 1000) / 10 : null,
    usedMonthMb: mb2(Number(r.month_bytes) / MB),
    expiresAt: iso(r.expires_at),
    state: r.state,
    reportedAt: iso(r.counted_at),
  };
}

/**
 * The traffic query (issue 13): the account's SIMs through their devices. Every query is pinned to the caller's
 * tenant and to its data scope through the SIM's device: a SIM of a device outside the scope, like another
 * tenant's, is not found.
 */
export class FlowRateService {
  private repo: FlowRateRepository;

  constructor(db: Db) {
    this.repo = new FlowRateRepository(db);
  }

  async list(user: AuthUser, f: SimFilter & { pageNo: number; pageSize: number }) {
    const { rows, total } = await this.repo.listPage(dataAccessOf(user), f, f.pageSize, (f.pageNo - 1) * f.pageSize);
    return { list: rows.map(toSimItem), total };
  }

  /** Every SIM of the filter in the list's order, in batches by a (key, iccid) cursor: never all in memory. */
  async *all(user: AuthUser, f: SimFilter, max: number, batch = 1000): AsyncGenerator<SimItem> {
    const a = dataAccessOf(user);
    let after: SimCursor | null = null;
    let left = max;
    while (left > 0) {
      const n = Math.min(batch, left);
      const rows = await this.repo.pageAfter(a, f, n, after);
      for (const r of rows) yield toSimItem(r);
      left -= rows.length;
      const end = rows.at(-1);
      if (rows.length < n || !end) return;
      after = { k: end.k, iccid: end.iccid };
    }
  }

  /** The SIM's id when the caller reaches it; another tenant's or outside the data scope: 404. */
  private async simId(user: AuthUser, iccid: string): Promise<number> {
    const id = await this.repo.findSimId(dataAccessOf(user), iccid);
    if (id === undefined) throw notFound('SIM');
    return id;
  }

  /** Up and down bytes per day of the last 30 or 90 days, or per month of the last 12, oldest first, zero-filled. */
  async usage(user: AuthUser, iccid: string, range: SimUsageRange): Promise<SimUsage> {
    const id = await this.simId(user, iccid);
    if (range === '12m') {
      const rows = await this.repo.usageByMonth(id);
      return { iccid, range, unit: 'month', points: rows.map((r) => point(r)) };
    }
    const rows = await this.repo.usageByDay(id, range === '90d' ? 90 : 30);
    return { iccid, range, unit: 'day', points: rows.map((r) => point(r)) };
  }

  /** The account's SIMs by state, this month's use and its projection, and the plans expiring soon. */
  async summary(user: AuthUser): Promise<SimSummary> {
    const a = dataAccessOf(user);
    const [counts, recent] = await Promise.all([this.repo.stateCounts(a), this.repo.recentUse(a)]);
    const byState = Object.fromEntries(SIM_STATES.map((s) => [s, 0])) as SimSummary['byState'];
    let total = 0;
    let monthBytes = 0;
    let expiringSoon = 0;
    for (const r of counts) {
      byState[r.state] = Number(r.n);
      total += Number(r.n);
      monthBytes += Number(r.month ?? 0);
      expiringSoon += Number(r.expiring);
    }
    const perDay = Number(recent?.bytes ?? 0) / 7;
    const daysLeft = Number(recent?.days_left ?? 0);
    return {
      total,
      byState,
      usedMonthMb: mb2(monthBytes / MB),
      projectedMonthMb: mb2((monthBytes + perDay * daysLeft) / MB),
      expiringSoon,
    };
  }
}

const point = (r: UsageRow) => ({
  date: r.date,
  txBytes: Number(r.tx),
  rxBytes: Number(r.rx),
});
