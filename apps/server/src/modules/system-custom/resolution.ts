import type { ChangedTask, EventSink, TaskService, TaskSpec } from '../task/index.ts';
import type { ProfileStateRepository, StateUpsert, SystemCustomRepository } from './repository/index.ts';
import { deviceSettingsOfVersion } from './settings.ts';
import { APPLY_EXPIRE_S, EMPTY, num, type VersionRow } from './types.ts';

type Resolved = Awaited<ReturnType<ProfileStateRepository['resolveAssignments']>>[number];
type State = Awaited<ReturnType<ProfileStateRepository['resolvedStates']>>[number];

/** A device whose desired version changed: it is sent `version` (null: the empty configuration). */
interface ToSend {
  deviceId: number;
  version: VersionRow | null;
  profileId: number | null;
}

/** What a resolution changes: the state rows to write (task ids filled in later) and the devices to send. */
interface Plan {
  upserts: Array<Omit<StateUpsert, 'task_id'>>;
  toSend: ToSend[];
}

/**
 * Compares each device's winning assignment (and its profile's latest published version) with its state row.
 * A device whose state changed gets a new state; one whose desired version changed is also sent it, except a device
 * that was never sent anything and has nothing to run yet. `stale`: devices whose configuration is gone (their
 * profile was deleted), sent the defaults if nothing else applies.
 */
function plan(resolved: Resolved[], latest: Map<number, VersionRow>, states: State[], stale: Set<number>): Plan {
  const want = new Map(resolved.map((r) => [Number(r.device_id), r]));
  const have = new Map(states.map((s) => [Number(s.device_id), s]));
  const out: Plan = { upserts: [], toSend: [] };
  for (const deviceId of new Set([...want.keys(), ...have.keys()])) {
    const s = have.get(deviceId);
    if (s && !s.mine) continue;
    const r = want.get(deviceId);
    const profileId = r ? Number(r.profile_id) : null;
    const version = profileId != null ? (latest.get(profileId) ?? null) : null;
    const desired = version ? Number(version.id) : null;
    const source = r ? (r.depth === 0 ? 'device' : 'group') : null;
    const groupId = r?.group_id != null ? Number(r.group_id) : null;
    const before = stale.has(deviceId) ? -1 : s ? num(s.desired_version_id) : null;
    const same =
      s &&
      num(s.profile_id) === profileId &&
      s.source === source &&
      num(s.source_group_id) === groupId &&
      before === desired;
    if (same || (!s && !r)) continue;
    out.upserts.push({
      device_id: deviceId,
      profile_id: profileId,
      source,
      source_group_id: groupId,
      desired_version_id: desired,
    });
    // a device that was never sent anything and has nothing to run yet needs no task
    if (before !== desired && (desired != null || s)) out.toSend.push({ deviceId, version, profileId });
  }
  return out;
}

/** The apply_profile task that sends a device its version (or the empty configuration). */
function applyTask({ deviceId, version, profileId }: ToSend, expireAt: Date, createdBy: number | null): TaskSpec {
  return {
    deviceId,
    type: 'apply_profile' as const,
    params: {
      profileId: version ? profileId : null,
      versionId: version ? Number(version.id) : null,
      version: version?.version ?? null,
      hash: version ? version.hash : EMPTY.hash,
      settings: deviceSettingsOfVersion(version),
    },
    expireAt,
    createdBy,
  };
}

/**
 * Resolution: which version each device should run, re-derived from the assignments (device beats group, nearest
 * group beats farther), and the apply_profile tasks that send it.
 */
export class Resolution {
  constructor(
    private repo: SystemCustomRepository,
    private tasks: TaskService,
    private events: EventSink,
  ) {}

  /**
   * Resolves every device of the tenant (inside the caller's transaction — `repo` bound to it — one resolution per
   * tenant at a time): its own assignment, else its group's, else its parent group's, …; the profile's latest
   * published version is what it should run. A device whose desired version changed gets an apply_profile task (its
   * open one, now stale, is canceled); one left with no profile is sent an empty configuration (the system's
   * defaults). Answers the tasks made or canceled, and the devices whose state changed.
   */
  async reconcile(
    repo: SystemCustomRepository,
    tenantId: number,
    createdBy: number | null,
    stale: Set<number> = new Set(),
  ): Promise<{ rows: ChangedTask[]; changed: number[] }> {
    await repo.states.lockResolution(tenantId);
    const resolved = await repo.states.resolveAssignments(tenantId);
    const latest = new Map<number, VersionRow>();
    (await repo.states.latestPublished(tenantId)).forEach((v) => latest.set(Number(v.profile_id), v));
    const states = await repo.states.resolvedStates(tenantId);
    const gone = states.filter((s) => !s.mine).map((s) => Number(s.device_id));
    if (gone.length) await repo.states.deleteStates(tenantId, gone);

    const { upserts, toSend } = plan(resolved, latest, states, stale);
    // devices with nothing sent before and nothing to send (an unpublished profile) keep a state row without a task
    const rows: ChangedTask[] = [];
    const sendIds = toSend.map((x) => x.deviceId);
    if (sendIds.length) rows.push(...(await repo.states.cancelOpenApplyTasks(tenantId, sendIds)));
    const expireAt = new Date(Date.now() + APPLY_EXPIRE_S * 1000);
    const made = await repo.states.enqueueTasks(
      tenantId,
      toSend.map((x) => applyTask(x, expireAt, createdBy)),
    );
    rows.push(...made);
    const taskOf = new Map(made.map((m) => [Number(m.device_id), m.id]));
    await repo.states.upsertStates(
      tenantId,
      upserts.map((x) => ({ ...x, task_id: taskOf.get(x.device_id) ?? null })),
    );
    return { rows, changed: upserts.map((x) => x.device_id) };
  }

  /** Resolves again every tenant that has assignments or device states (the periodic reconcile, one node at a time). */
  async reconcileAll(): Promise<number> {
    let sent = 0;
    for (const tenantId of await this.repo.states.tenantsToReconcile()) {
      const { rows, changed } = await this.repo.transaction((tx) => this.reconcile(tx, tenantId, null));
      if (changed.length) await this.afterCommit(tenantId, null, rows, changed);
      sent += rows.filter((r) => r.state === 'queued').length;
    }
    return sent;
  }

  /** Once a change committed: the consoles hear of it, and the tasks it made are announced and dispatched. */
  async afterCommit(tenantId: number, profileId: number | null, rows: ChangedTask[], deviceIds: number[]) {
    this.events.publish(tenantId, { type: 'systemCustom', data: { profileId, deviceIds } });
    if (!rows.length) return;
    this.tasks.announce(rows);
    await this.tasks.dispatch(rows.filter((r) => r.state === 'queued').map((r) => r.id));
  }
}
