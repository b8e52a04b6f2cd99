import { FENCE_MAX_PER_TENANT, type FenceCreateParams, type FenceShape, type FenceUpdateParams } from '@cpc/contracts';
import { changedFields } from '../../lib/audit.ts';
import { AppError, badRequest, notFound } from '../../plugins/errors.ts';
import type { EventSink } from '../task/index.ts';
import type { FenceEvaluator } from './evaluation.ts';
import { bboxOf, normalizeShape } from './geometry.ts';
import type { FenceReader } from './reading.ts';
import type { FenceChanges, FenceRepository, FenceRow } from './repository/index.ts';
import type { FenceCaller } from './types.ts';

/** A unique-name violation as a 400 naming the name. */
const nameTaken =
  (name: string) =>
  (e: unknown): never => {
    if ((e as { code?: string }).code === '23505') throw badRequest('name', 'fence.nameTaken', { name });
    throw e;
  };

/** The columns an edit sets, in the order of the statement. */
function changesOf(body: FenceUpdateParams, shape: FenceShape | undefined): FenceChanges {
  const box = shape ? bboxOf(shape) : undefined;
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(shape && box
      ? {
          shape: JSON.stringify(shape),
          min_lng: box[0],
          min_lat: box[1],
          max_lng: box[2],
          max_lat: box[3],
        }
      : {}),
    ...(body.schedule ? { schedule: JSON.stringify(body.schedule) } : {}),
    ...(body.alertOn ? { alert_on: body.alertOn } : {}),
    ...(body.dwellS !== undefined ? { dwell_s: body.dwellS } : {}),
    ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
  };
}

/** What the system log shows of an edit: the fields it gives. */
function editedView(body: FenceUpdateParams, shape: FenceShape | undefined): Record<string, unknown> {
  const after: Record<string, unknown> = {};
  if (body.name !== undefined) after.name = body.name;
  if (shape) after.shape = shape;
  if (body.schedule) after.schedule = body.schedule;
  if (body.alertOn) after.alertOn = body.alertOn;
  if (body.dwellS !== undefined) after.dwellS = body.dwellS;
  if (body.enabled !== undefined) after.enabled = body.enabled;
  if (body.deviceIds) after.deviceIds = body.deviceIds;
  if (body.groupIds) after.groupIds = body.groupIds;
  return after;
}

/**
 * Creating, editing and deleting fences (each with its system-log entry and a live `fence` event); after a
 * create or an edit the fence's target devices are judged against it at once from their last known positions.
 */
export class FenceEditor {
  constructor(
    private repo: FenceRepository,
    private reader: FenceReader,
    private evaluator: FenceEvaluator,
    private events: EventSink | undefined,
  ) {}

  /** The explicit devices (each in the caller's reach, else 404 naming `deviceIds`) and groups (else 404). */
  private async checkTargets(u: FenceCaller, deviceIds: number[], groupIds: number[]): Promise<void> {
    if (deviceIds.length) {
      const found = await this.repo.countDevicesInReach(u.tenantId, u.access, deviceIds);
      if (found !== deviceIds.length)
        throw new AppError(404, 'http.notFound', { what: 'device' }, { field: 'deviceIds' });
    }
    if (groupIds.length) {
      const found = await this.repo.countGroups(u.tenantId, groupIds);
      if (found !== groupIds.length) throw new AppError(404, 'http.notFound', { what: 'group' }, { field: 'groupIds' });
    }
  }

  private async writeTargets(
    repo: FenceRepository,
    u: FenceCaller,
    fenceId: number,
    deviceIds: number[] | undefined,
    groupIds: number[] | undefined,
  ): Promise<void> {
    if (deviceIds) await repo.replaceDeviceTargets(u.tenantId, u.access, fenceId, deviceIds);
    if (groupIds) await repo.replaceGroupTargets(u.tenantId, fenceId, groupIds);
  }

  async create(u: FenceCaller, body: FenceCreateParams): Promise<{ id: number }> {
    const shape = normalizeShape(body.shape);
    const [minLng, minLat, maxLng, maxLat] = bboxOf(shape);
    await this.checkTargets(u, body.deviceIds, body.groupIds);
    const id = await this.repo
      .transaction(async (tx) => {
        // one creation at a time per tenant: the count below stays true until the insert commits
        await tx.lockCreation(u.tenantId);
        const n = await tx.countLive(u.tenantId);
        if (n >= FENCE_MAX_PER_TENANT) throw new AppError(409, 'fence.tooMany', { max: FENCE_MAX_PER_TENANT });
        const fenceId = await tx.insertFence(u.tenantId, {
          name: body.name,
          shape: JSON.stringify(shape),
          min_lng: minLng,
          min_lat: minLat,
          max_lng: maxLng,
          max_lat: maxLat,
          schedule: JSON.stringify(body.schedule),
          alert_on: body.alertOn,
          dwell_s: body.dwellS,
          enabled: body.enabled,
          created_by: u.userId,
        });
        await this.writeTargets(tx, u, fenceId, body.deviceIds, body.groupIds);
        const { name, schedule, alertOn, dwellS, enabled, deviceIds, groupIds } = body;
        await tx.audit({
          ...this.entry(u, 'fence.create', fenceId, body.name),
          changes: changedFields({}, { name, shape, schedule, alertOn, dwellS, enabled, deviceIds, groupIds }),
        });
        return fenceId;
      })
      .catch(nameTaken(body.name));
    // the targets' last known positions give each device its side at once (a baseline: no event)
    await this.evaluator.reevaluate(id, false);
    this.events?.publish(u.tenantId, { type: 'fence', data: { id } });
    return { id };
  }

  /** A system-log entry of a change to the fence `id` named `subject`. */
  private entry(u: FenceCaller, action: string, id: number, subject: string) {
    return {
      tenantId: u.tenantId,
      userId: u.userId,
      ip: u.ip,
      action,
      resource: 'fence',
      resourceId: id,
      result: 'ok' as const,
      subject,
    };
  }

  async update(u: FenceCaller, body: FenceUpdateParams): Promise<{ id: number; version: number }> {
    const before = await this.repo.findFence(u.tenantId, body.id);
    if (!before) throw notFound('fence');
    if (body.version !== undefined && body.version !== before.version) throw new AppError(409, 'fence.stale');
    const shape = body.shape ? normalizeShape(body.shape) : undefined;
    await this.checkTargets(u, body.deviceIds ?? [], body.groupIds ?? []);
    const beforeView = await this.storedView(u, body.id, before);
    const version = await this.repo
      .transaction(async (tx) => {
        const next = await tx.updateFence(u.tenantId, body.id, before.version, changesOf(body, shape));
        if (next === undefined) throw new AppError(409, 'fence.stale');
        await this.writeTargets(tx, u, body.id, body.deviceIds, body.groupIds);
        // devices no longer targeted lose their state in the fence
        await tx.dropUntargetedState(u.tenantId, u.access, body.id);
        // pending changes of a new shape or dwell are judged again from the next report
        if (shape || body.dwellS !== undefined) await tx.clearPending(body.id);
        await tx.audit({
          ...this.entry(u, 'fence.update', body.id, body.name ?? before.name),
          changes: changedFields(beforeView, editedView(body, shape)),
        });
        return next;
      })
      .catch(nameTaken(body.name ?? before.name));
    // the targets' current positions against the fence as it is now: a device on the other side of the new edge
    // is confirmed there at once (an edit is deliberate; the dwell time is for GPS jitter)
    await this.evaluator.reevaluate(body.id, true);
    this.events?.publish(u.tenantId, { type: 'fence', data: { id: body.id } });
    return { id: body.id, version };
  }

  /** What the system log shows of the fence before an edit (its targets as far as the caller sees them). */
  private async storedView(u: FenceCaller, id: number, before: FenceRow): Promise<Record<string, unknown>> {
    const targets = (await this.reader.targetsOf(u, [id])).get(id)!;
    return {
      name: before.name,
      shape: before.shape,
      schedule: before.schedule,
      alertOn: before.alert_on,
      dwellS: before.dwell_s,
      enabled: before.enabled,
      deviceIds: targets.deviceIds,
      groupIds: targets.groupIds,
    };
  }

  async remove(u: FenceCaller, ids: number[]): Promise<{ deleted: number }> {
    const rows = await this.repo.liveNames(u.tenantId, ids);
    if (rows.length !== new Set(ids).size) throw notFound('fence');
    await this.repo.transaction(async (tx) => {
      await tx.softDelete(u.tenantId, ids);
      for (const r of rows)
        await tx.audit({
          ...this.entry(u, 'fence.delete', Number(r.id), r.name),
          changes: { deleted: { before: false, after: true } },
        });
    });
    for (const r of rows) this.events?.publish(u.tenantId, { type: 'fence', data: { id: Number(r.id) } });
    return { deleted: rows.length };
  }
}
