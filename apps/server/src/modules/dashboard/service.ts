import {
  OFFLINE_REMIND_HOURS,
  RANK_SIZE,
  TREND_DAYS,
  type DashboardOverview,
  type GroupRank,
  type RankedDevice,
  type RemindDevice,
  type Trend,
  type TrendUnit,
} from '@cpc/contracts/dashboard';
import type { Db } from '../../db/database.ts';
import { dataAccessOf, type DataAccess } from '../../lib/data-scope.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import { orderWidget } from './orders.ts';
import { planWidget } from './plan.ts';
import { DashboardRepository, type RemindList, type RemindRow } from './repository/index.ts';
import { DashboardWidgetRepository } from './repository/widgets.ts';
import { projectWidget, setTarget, targetWidget } from './target.ts';

const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
const mb = (v: string | number | null) => Math.round(Number(v ?? 0) * 100) / 100;

/**
 * The home dashboard from the tenant's own rows (SPEC §2 widgets). Every statement (repository/) is pinned to the
 * caller's tenant and data scope.
 */
export class DashboardService {
  private repo: DashboardRepository;
  private widgets: DashboardWidgetRepository;

  constructor(db: Db) {
    this.repo = new DashboardRepository(db);
    this.widgets = new DashboardWidgetRepository(db);
  }

  /** Sets (or with null clears) the account's monthly print-job target (the main account's). */
  setTarget(user: AuthUser, monthlyJobs: number | null, ip: string): Promise<void> {
    return setTarget(this.widgets, user, monthlyJobs, ip);
  }

  /** Every figure counts only the devices of the caller's data scope (issue 12), and their tasks and history. */
  async overview(user: AuthUser, tz: string, unit: TrendUnit): Promise<DashboardOverview> {
    const a = dataAccessOf(user);
    const [cards, provinces, trend, byTasks, data, groupRanking, installs, remind, versions, plan] = await Promise.all([
      this.cards(user, a, tz),
      this.provinces(user, a),
      this.trend(user, tz, unit),
      this.rankByTasks(user, a, tz),
      this.dataThisMonth(user, a, tz),
      this.groupRanking(user, a),
      this.installs(user, a, tz),
      this.remind(user, a),
      this.versions(user, a),
      planWidget(this.widgets, user, a),
    ]);
    const [orders, target, projects] = await Promise.all([
      orderWidget(this.widgets, user, a, tz),
      targetWidget(this.widgets, user, a, tz),
      projectWidget(this.widgets, user, a, tz),
    ]);
    const byData = [...data.perDevice]
      .sort((a, b) => b.value - a.value || a.id - b.id)
      .filter((d) => d.value > 0)
      .slice(0, RANK_SIZE);
    return {
      cards: { ...cards, dataUsedMonthMb: mb(data.total) },
      provinces,
      trend,
      deviceRanking: { byTasks, byData },
      groupRanking,
      installs,
      remind,
      versions,
      orders,
      plan,
      target,
      projects,
    };
  }

  private async cards(user: AuthUser, a: DataAccess, tz: string) {
    const [devices, tasks] = await Promise.all([
      this.repo.deviceCounts(user.tenantId, a),
      this.repo.tasksToday(user.tenantId, a, tz),
    ]);
    return { devices: Number(devices.n), online: Number(devices.online), tasksToday: Number(tasks.n) };
  }

  private async provinces(user: AuthUser, a: DataAccess) {
    const rows = await this.repo.provinces(user.tenantId, a);
    return rows.map((r) => ({ province: r.province, total: Number(r.total), online: Number(r.online) }));
  }

  /**
   * Online devices per bucket = the peak of a running count of online devices, replayed from the status history
   * (each device's state at the window's start, then its changes); tasks = rows created in the bucket.
   */
  async trend(user: AuthUser, tz: string, unit: TrendUnit): Promise<Trend> {
    const a = dataAccessOf(user);
    const n = unit === 'hour' ? TREND_DAYS * 24 : TREND_DAYS;
    const rows = await this.repo.trend(user.tenantId, a, tz, unit, n);
    const live = await this.repo.onlineNow(user.tenantId, a);
    // A bucket without changes keeps the count the previous bucket ended with.
    let carried = 0;
    const points = rows.map((r, i) => {
      let online = Math.max(carried, Number(r.peak ?? 0));
      // the bucket under way includes now: never fewer than the online card, whatever history is missing
      if (i === rows.length - 1) online = Math.max(online, Number(live.n));
      if (r.last_n !== null) carried = Number(r.last_n);
      return { at: new Date(r.b_start).toISOString(), online, tasks: Number(r.tasks) };
    });
    return { unit, points };
  }

  private async rankByTasks(user: AuthUser, a: DataAccess, tz: string): Promise<RankedDevice[]> {
    const rows = await this.repo.rankByTasks(user.tenantId, a, tz);
    return rows.map((r) => ({ id: r.id, sn: r.sn, name: r.name, value: Number(r.n) }));
  }

  /** Per device: the used counter's last value this month minus its first (or the value since a reset). */
  private async dataThisMonth(
    user: AuthUser,
    a: DataAccess,
    tz: string,
  ): Promise<{ total: number; perDevice: RankedDevice[] }> {
    const rows = await this.repo.dataThisMonth(user.tenantId, a, tz);
    const perDevice = rows.map((r) => ({ id: r.id, sn: r.sn, name: r.name, value: mb(r.used) }));
    return { total: rows.reduce((s, r) => s + Number(r.used), 0), perDevice };
  }

  /** Top-level groups with the devices of every group below them, and the ungrouped devices. */
  private async groupRanking(user: AuthUser, a: DataAccess): Promise<GroupRank[]> {
    const [groups, counts] = await Promise.all([
      this.repo.groups(user.tenantId),
      this.repo.devicesPerGroup(user.tenantId, a),
    ]);
    const parent = new Map(groups.map((g) => [g.id, g.parent_id]));
    const rootOf = (id: number): number => {
      let r = id;
      for (let p = parent.get(r); p !== null && p !== undefined; p = parent.get(r)) r = p;
      return r;
    };
    const ranks = new Map<number | null, GroupRank>(
      groups.filter((g) => g.parent_id === null).map((g) => [g.id, { id: g.id, name: g.name, devices: 0, online: 0 }]),
    );
    for (const c of counts) {
      const key = c.group_id === null ? null : rootOf(c.group_id);
      const r = ranks.get(key) ?? { id: null, name: '', devices: 0, online: 0 };
      r.devices += Number(c.n);
      r.online += Number(c.online);
      ranks.set(key, r);
    }
    // ties: groups by name, the ungrouped devices after them
    const order = (a: GroupRank, b: GroupRank) =>
      b.devices - a.devices || Number(a.id === null) - Number(b.id === null) || a.name.localeCompare(b.name);
    return [...ranks.values()]
      .filter((r) => r.devices > 0)
      .sort(order)
      .slice(0, RANK_SIZE);
  }

  private async installs(user: AuthUser, a: DataAccess, tz: string) {
    const rows = await this.repo.installs(user.tenantId, a, tz);
    return rows.map((r) => ({ date: r.date, count: Number(r.count) }));
  }

  private async remind(user: AuthUser, a: DataAccess): Promise<DashboardOverview['remind']> {
    const staleBefore = new Date(Date.now() - OFFLINE_REMIND_HOURS * 3600_000);
    const toDevice = (r: RemindRow): RemindDevice => ({
      id: r.id,
      sn: r.sn,
      name: r.name,
      status: r.status,
      paper: r.paper,
      lastSeenAt: iso(r.last_seen_at),
      simDataLeftMb: r.left === null ? null : mb(r.left),
    });
    const run = async (list: RemindList) => {
      const { rows, count } = await this.repo.remind(user.tenantId, a, list, staleBefore);
      return { count, devices: rows.map(toDevice) };
    };
    const [paper, offline, simLow] = await Promise.all([run('paper'), run('offline'), run('simLow')]);
    return { paper, offline, simLow };
  }

  private async versions(user: AuthUser, a: DataAccess) {
    const rows = await this.repo.versions(user.tenantId, a);
    return rows.map((r) => ({ firmware: r.firmware, count: Number(r.n), online: Number(r.online) }));
  }
}
