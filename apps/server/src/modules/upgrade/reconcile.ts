import type { Updateable } from 'kysely';
import { DEFAULT_TIME_ZONE } from '@cpc/contracts/device-constants';
import { FINAL_UPGRADE_DEVICE_STATES, type ReleaseState, type UpgradeDeviceState } from '@cpc/contracts';
import type { UpgradeReleases } from '../../db/generated.ts';
import { changedFields } from '../../lib/audit.ts';
import type { ChangedTask } from '../task/index.ts';
import type { PackageRow, ReleaseRow, UpgradeRepository } from './repository/index.ts';
import { inWindow } from './window.ts';

const FINAL = FINAL_UPGRADE_DEVICE_STATES as readonly string[];

/** Where a reconcile takes the release: what to set on it, its state and wave, and the tasks it started. */
interface Advance {
  set: Updateable<UpgradeReleases> & { waiting_since?: Date | null; halt_reason?: string };
  state: ReleaseState;
  wave: number;
  started: ChangedTask[];
}

/** What one reconcile did: the release's tenant and state, whether anything changed, the tasks it started. */
export interface Reconciled {
  tenantId: number;
  state: ReleaseState;
  changed: boolean;
  started: ChangedTask[];
}

/**
 * Brings one release up to date inside one transaction (under the release's advisory lock): each device's step
 * from its task; past its expiry the devices not started are skipped; the wave's halt check; the wave's end
 * (soak, promote, completion); and new tasks up to the throttle for devices inside their window. All state is read
 * from the database, so it is safe to run anywhere, any time. Null: no such release, or canceled.
 */
export async function reconcileRelease(repo: UpgradeRepository, id: number, now: Date): Promise<Reconciled | null> {
  return repo.transaction(async (tx) => {
    await tx.lockRelease(id);
    const r = await tx.findById(id);
    if (!r || r.state === 'canceled') return null;
    const pkg = await tx.getPackage(r.package_id);
    // 1. each device's step, from its task
    const synced = await tx.syncDeviceSteps(id, pkg.version_name);
    let changed = synced.length > 0;
    // 2. past its expiry, no device starts: those not started are skipped
    if (now >= r.expire_at && (await tx.skipUnstarted(id, now)) > 0) changed = true;
    const a = await advance(tx, r, pkg, now);
    if (Object.keys(a.set).length) {
      changed = true;
      await record(tx, r, a, now);
    }
    if (a.started.length) changed = true;
    return { tenantId: Number(r.tenant_id), state: a.state, changed, started: a.started };
  });
}

/** Stores where the release went, and audits a change of state (by the system). */
async function record(tx: UpgradeRepository, r: ReleaseRow, a: Advance, now: Date): Promise<void> {
  const { set, state, wave } = a;
  await tx.updateRelease(Number(r.id), { ...set, updated_at: now });
  if (set.state && set.state !== r.state)
    await tx.audit({
      tenantId: Number(r.tenant_id),
      userId: null,
      ip: '',
      action: `upgrade.${set.state === 'halted' ? 'halt' : set.state === 'running' ? 'promote' : set.state}`,
      resource: 'upgrade_release',
      resourceId: Number(r.id),
      result: 'ok',
      details: set.halt_reason ? { reason: set.halt_reason } : undefined,
      changes: changedFields({ state: r.state, wave: r.wave }, { state, wave }),
    });
}

/** The release's waves moved on, at most three steps (a soak ended, a wave ended, devices started). */
async function advance(tx: UpgradeRepository, r: ReleaseRow, pkg: PackageRow, now: Date): Promise<Advance> {
  const a: Advance = { set: {}, state: r.state as ReleaseState, wave: r.wave, started: [] };
  for (let step = 0; step < 3; step++) {
    if (a.state === 'waiting' && r.soak_minutes != null) {
      const since = a.set.waiting_since ?? r.waiting_since ?? now;
      if (now.getTime() >= since.getTime() + r.soak_minutes * 60_000) {
        a.state = 'running';
        a.wave = 2;
        Object.assign(a.set, { state: a.state, wave: a.wave, waiting_since: null });
      }
    }
    if (a.state !== 'running') break;
    if (!(await waveStep(tx, r, pkg, a, now))) break;
  }
  return a;
}

/**
 * One step of a running wave: halts it past the failure threshold, ends it when every device is at a final step
 * (the canary waits for its soak, or promote; the last wave completes), else starts devices up to the throttle.
 * True when the next step should look again (a canary ended and its soak time counts).
 */
async function waveStep(tx: UpgradeRepository, r: ReleaseRow, pkg: PackageRow, a: Advance, now: Date) {
  const id = Number(r.id);
  const counts = await tx.waveCounts(id, a.wave);
  const c = (pred: (s: UpgradeDeviceState, started: boolean) => boolean) =>
    counts.filter((x) => pred(x.state, x.started)).reduce((n, x) => n + Number(x.n), 0);
  const total = c(() => true);
  const failed = c((s) => s === 'failed');
  const finished = c((s) => s === 'failed' || s === 'verified');
  const final = c((s) => FINAL.includes(s));
  const active = c((s, started) => started && !FINAL.includes(s));
  if (failed >= r.fail_min_count && failed * 100 >= r.fail_percent * finished) {
    a.state = 'halted';
    Object.assign(a.set, {
      state: a.state,
      halt_reason: `wave ${a.wave}: ${failed} of ${finished} finished devices failed (threshold ${r.fail_percent}%, at least ${r.fail_min_count})`,
    });
    return false;
  }
  if (final === total) {
    const rest = a.wave === 1 ? await tx.waveSize(id, 2) : 0;
    if (a.wave === 1 && rest > 0) {
      a.state = 'waiting';
      Object.assign(a.set, { state: a.state, waiting_since: now });
      return r.soak_minutes != null;
    }
    a.state = 'completed';
    Object.assign(a.set, { state: a.state, finished_at: now });
    return false;
  }
  const slots = r.throttle - active;
  if (slots <= 0 || now >= r.expire_at) return false;
  a.started = await start(tx, r, pkg, a.wave, slots, now);
  return false;
}

/** New tasks for up to `slots` queued devices of the wave that are inside their maintenance window now. */
async function start(
  tx: UpgradeRepository,
  r: ReleaseRow,
  pkg: PackageRow,
  wave: number,
  slots: number,
  now: Date,
): Promise<ChangedTask[]> {
  const window = r.window_start && r.window_end ? { start: r.window_start, end: r.window_end } : null;
  let zones: string[] | null = null;
  if (window) {
    const all = await tx.queuedZones(Number(r.id), wave);
    zones = all.filter((z) => inWindow(window, z || DEFAULT_TIME_ZONE, now));
    if (!zones.length) return [];
  }
  const next = await tx.nextQueued(r, wave, zones, slots);
  if (!next.length) return [];
  const params = {
    releaseId: Number(r.id),
    packageId: Number(pkg.id),
    kind: pkg.kind,
    identifier: pkg.identifier,
    versionName: pkg.version_name,
    versionCode: Number(pkg.version_code),
    size: Number(pkg.size),
    sha256: pkg.sha256,
  };
  const rows = await tx.enqueueTasks(
    Number(r.tenant_id),
    next.map((deviceId) => ({
      deviceId,
      type: 'upgrade' as const,
      params,
      expireAt: r.expire_at,
      createdBy: r.created_by == null ? null : Number(r.created_by),
    })),
  );
  await tx.attachTasks(Number(r.id), rows);
  return rows;
}
