import {
  UPGRADE_DEVICE_STATES,
  type FirmwareHistoryItem,
  type Paged,
  type ReleaseDetail,
  type ReleaseDeviceItem,
  type ReleaseItem,
  type ReleaseState,
  type ReleaseTargets,
  type UpgradeDeviceState,
} from '@cpc/contracts';
import { isJsonObject } from '../../db/schema.ts';
import type { DataAccess } from '../../lib/data-scope.ts';
import { notFound } from '../../plugins/errors.ts';
import type { ReleaseRow, UpgradeReadRepository, WaveStateCount } from './repository/index.ts';

const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());

const emptyCounts = () =>
  Object.fromEntries(UPGRADE_DEVICE_STATES.map((s) => [s, 0])) as Record<UpgradeDeviceState, number>;

/** A release as the list shows it, with its devices counted by step. */
function item(r: ReleaseRow & { package_name: string; version_name: string }, rows: WaveStateCount[]): ReleaseItem {
  const counts = emptyCounts();
  let total = 0;
  for (const x of rows.filter((x) => Number(x.release_id) === Number(r.id))) {
    counts[x.state] += Number(x.n);
    total += Number(x.n);
  }
  return {
    id: Number(r.id),
    name: r.name,
    packageId: Number(r.package_id),
    packageName: r.package_name,
    version: r.version_name,
    state: r.state as ReleaseState,
    wave: r.wave,
    haltReason: r.halt_reason,
    canaryPercent: r.canary_percent,
    soakMinutes: r.soak_minutes,
    throttle: r.throttle,
    window: r.window_start && r.window_end ? { start: r.window_start, end: r.window_end } : null,
    failPercent: r.fail_percent,
    failMinCount: r.fail_min_count,
    expireAt: iso(r.expire_at)!,
    promoteAt:
      r.state === 'waiting' && r.waiting_since && r.soak_minutes != null
        ? iso(new Date(r.waiting_since.getTime() + r.soak_minutes * 60_000))
        : null,
    total,
    counts,
    createdAt: iso(r.created_at)!,
    finishedAt: iso(r.finished_at),
  };
}

/** What the consoles read of releases: every read pinned to the caller's tenant and data scope. */
export class ReleaseReads {
  constructor(private repo: UpgradeReadRepository) {}

  /** A release the caller sees: of its tenant, with at least one device inside its data scope; else 404. */
  async visible(access: DataAccess, id: number): Promise<void> {
    if (!(await this.repo.isVisible(access, id))) throw notFound('release');
  }

  /** Which of these releases a reader with this data scope sees, for its live events. */
  async visibleIds(access: DataAccess, ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    return new Set(await this.repo.visibleIds(access, ids));
  }

  private countsOf(ids: number[]): Promise<WaveStateCount[]> {
    if (!ids.length) return Promise.resolve([]);
    return this.repo.countsOf(ids);
  }

  async list(
    access: DataAccess,
    q: { pageNo: number; pageSize: number; state?: ReleaseState },
  ): Promise<Paged<ReleaseItem>> {
    const { rows, total } = await this.repo.listPage(access, q);
    const counts = await this.countsOf(rows.map((r) => Number(r.id)));
    return { list: rows.map((r) => item(r, counts)), total };
  }

  async detail(access: DataAccess, id: number): Promise<ReleaseDetail> {
    const r = await this.repo.findVisible(access, id);
    if (!r) throw notFound('release');
    const counts = await this.countsOf([id]);
    const waves = [1, 2].map((wave) => {
      const c = emptyCounts();
      let total = 0;
      for (const x of counts.filter((x) => x.wave === wave)) {
        c[x.state] += Number(x.n);
        total += Number(x.n);
      }
      return { wave, total, counts: c };
    });
    const reasons = await this.repo.failureReasons(access.tenantId, id);
    return {
      ...item(r, counts),
      timeline: await this.timeline(r),
      waves,
      reasons: reasons.map((x) => ({ reason: x.reason || 'failed', count: Number(x.n) })),
      targets: (isJsonObject(r.targets) ? r.targets : {}) as ReleaseTargets,
    };
  }

  /** The progress chart: finished devices by when they finished, in up to 60 steps since the start. */
  private async timeline(r: ReleaseRow): Promise<ReleaseDetail['timeline']> {
    const started = r.created_at.getTime();
    const end = r.finished_at ? r.finished_at.getTime() : Date.now();
    const step = Math.max(1, Math.ceil((end - started) / 1000 / 60));
    const steps = await this.repo.finishedBySteps(Number(r.id), r.created_at, step);
    let verified = 0;
    let failed = 0;
    const timeline = [{ at: iso(r.created_at)!, verified: 0, failed: 0 }];
    for (const x of steps) {
      verified += Number(x.verified);
      failed += Number(x.failed);
      timeline.push({ at: new Date(started + (Number(x.b) + 1) * step * 1000).toISOString(), verified, failed });
    }
    return timeline;
  }

  async devices(
    access: DataAccess,
    q: { id: number; pageNo: number; pageSize: number; state?: UpgradeDeviceState },
  ): Promise<Paged<ReleaseDeviceItem>> {
    await this.visible(access, q.id);
    const { rows, total } = await this.repo.devicesPage(access, q);
    return {
      list: rows.map((x) => ({
        deviceId: Number(x.device_id),
        sn: x.sn,
        name: x.name,
        wave: x.wave,
        state: x.state as UpgradeDeviceState,
        progress: x.progress,
        reason: x.reason,
        fromVersion: x.from_version,
        taskId: x.task_id,
        updatedAt: iso(x.updated_at)!,
      })),
      total,
    };
  }

  async history(
    access: DataAccess,
    q: { deviceId: number; pageNo: number; pageSize: number },
  ): Promise<Paged<FirmwareHistoryItem>> {
    if (!(await this.repo.deviceVisible(access, q.deviceId))) throw notFound('device');
    const { rows, total } = await this.repo.historyPage(access.tenantId, q);
    return {
      list: rows.map((x) => ({
        id: Number(x.id),
        fromVersion: x.from_version,
        toVersion: x.to_version,
        source: x.source as 'release' | 'hello',
        releaseId: x.release_id == null ? null : Number(x.release_id),
        releaseName: x.release_name,
        at: iso(x.at)!,
      })),
      total,
    };
  }
}
