import type { FenceAlertOn, FenceEventKind, FenceWebhookPayload } from '@cpc/contracts';
import { MESSAGES } from '@cpc/contracts/messages';
import type { LocationMsg } from '@cpc/contracts/device-protocol';
import type { EventSink } from '../task/index.ts';
import { contains, scheduleActive } from './geometry.ts';
import type { DeviceFenceRow, FenceStateRepository } from './repository/index.ts';
import type { WebhookQueue } from './types.ts';

type Side = 'inside' | 'outside';
type Position = { lat: number; lng: number };

const alerts = (rule: FenceAlertOn, kind: FenceEventKind) =>
  rule === 'both' || (rule === 'leave') === (kind === 'leave');

/** What one report changes in the device's state rows, batched; confirmed changes run after. */
interface ReportWrites {
  baselines: Array<{ fence: number; tenant: number; side: Side }>;
  forgotten: number[];
  pending: Array<{ fence: number; side: Side }>;
  confirmed: Array<() => Promise<void>>;
}

/**
 * The evaluation of location reports: each report of a device is judged against the fences that target it and
 * apply now (enabled, schedule active): a side change counts once the device stayed on the new side for the
 * fence's dwell time — the state row keeps the pending side and since when, a later report or the periodic check
 * (`confirmDue`) confirms it. A confirmed change is a `fence_events` row; when the fence's rule asks for it, also
 * a message to the tenant's readers, a live `fence` event and a signed webhook.
 */
export class FenceEvaluator {
  constructor(
    private repo: FenceStateRepository,
    private events: EventSink | undefined,
    private webhooks: WebhookQueue | undefined,
  ) {}

  /**
   * A location report (after `Presence.location` stored it on the device): the track, then each fence of the
   * device that applies now. Cost per report: one statement for the track, one for the device's fences (the bbox
   * decides most of them in SQL), a Turf test per fence whose box holds the point, and a write only when
   * something changed.
   */
  async onLocation(deviceId: number, m: Pick<LocationMsg, 'lat' | 'lng' | 'accuracyM'>): Promise<void> {
    await this.storePosition(deviceId, m.lat, m.lng, m.accuracyM ?? null);
    await this.evaluate(deviceId, m.lng, m.lat, { immediate: false });
  }

  /**
   * A position is stored when the device moved at least POSITION_MIN_MOVE_M from its last stored one
   * (equirectangular distance, exact enough at 10 m) or POSITION_MIN_INTERVAL_S passed since it.
   */
  storePosition(deviceId: number, lat: number, lng: number, accuracyM: number | null): Promise<void> {
    return this.repo.storePosition(deviceId, lat, lng, accuracyM);
  }

  /**
   * The device's side of each of its fences that applies now. `immediate` (an edited fence): a change is
   * confirmed at once; otherwise after the fence's dwell time. A device's first side in a fence is a baseline,
   * no event. `onlyFence` limits it to one fence.
   */
  async evaluate(
    deviceId: number,
    lng: number,
    lat: number,
    opts: { immediate: boolean; onlyFence?: number },
  ): Promise<void> {
    const now = new Date();
    const fences = await this.repo.fencesOfDevice(deviceId, undefined, lng, lat);
    // the writes of one report, batched: first sides (baselines), forgotten flaps, new pending sides
    const writes: ReportWrites = { baselines: [], forgotten: [], pending: [], confirmed: [] };
    for (const f of fences) {
      if (opts.onlyFence !== undefined && Number(f.id) !== opts.onlyFence) continue;
      if (!f.enabled || !scheduleActive(f.schedule, now)) continue;
      this.judge(f, deviceId, { lng, lat }, now, opts.immediate, writes);
    }
    if (writes.baselines.length) await this.repo.insertBaselines(deviceId, writes.baselines);
    if (writes.forgotten.length) await this.repo.forgetPending(deviceId, writes.forgotten);
    if (writes.pending.length) await this.repo.setPending(deviceId, writes.pending, now, { lat, lng });
    for (const c of writes.confirmed) await c();
  }

  /** The device's side of one fence that applies now, and what it changes (added to `writes`). */
  private judge(
    f: DeviceFenceRow,
    deviceId: number,
    { lng, lat }: Position,
    now: Date,
    immediate: boolean,
    writes: ReportWrites,
  ): void {
    const side: Side = f.in_box && contains(f.shape, lng, lat) ? 'inside' : 'outside';
    const fenceId = Number(f.id);
    if (f.side === null) {
      writes.baselines.push({ fence: fenceId, tenant: Number(f.tenant_id), side });
      return;
    }
    if (f.side === side) {
      // back on its side before the dwell passed: the flap is forgotten
      if (f.pending_side !== null) writes.forgotten.push(fenceId);
      return;
    }
    const waiting = f.pending_side === side && f.pending_since !== null;
    const crossedAt = waiting ? new Date(f.pending_since!) : now;
    const dueAt = crossedAt.getTime() + f.dwell_s * 1000;
    if (immediate || f.dwell_s === 0 || dueAt <= now.getTime()) {
      const at = immediate ? now : crossedAt;
      const pos = waiting && !immediate ? { lat: f.pending_lat ?? lat, lng: f.pending_lng ?? lng } : { lat, lng };
      writes.confirmed.push(() => this.confirm(f, deviceId, side, at, pos));
    } else if (!waiting) {
      writes.pending.push({ fence: fenceId, side });
    }
  }

  /**
   * A confirmed side change: the state and the event in one statement that only one node can win (the state must
   * still be on the other side), then the alerts the fence's rule asks for.
   */
  private async confirm(
    f: Pick<DeviceFenceRow, 'id' | 'tenant_id' | 'name' | 'alert_on'>,
    deviceId: number,
    side: Side,
    at: Date,
    pos: Position,
  ): Promise<void> {
    const fenceId = Number(f.id);
    const kind: FenceEventKind = side === 'inside' ? 'enter' : 'leave';
    if (!(await this.repo.confirmChange(fenceId, deviceId, side, at, pos))) return;
    const tenantId = Number(f.tenant_id);
    if (!alerts(f.alert_on, kind)) {
      this.events?.publish(tenantId, { type: 'fence', data: { id: fenceId, deviceId } });
      return;
    }
    await this.alert(tenantId, { id: fenceId, name: f.name }, deviceId, kind, at, pos);
  }

  /** The message to the readers, the live event and the webhook of a confirmed change. */
  private async alert(
    tenantId: number,
    fence: { id: number; name: string },
    deviceId: number,
    kind: FenceEventKind,
    at: Date,
    pos: Position,
  ): Promise<void> {
    const device = await this.repo.deviceLabel(deviceId);
    if (!device) return;
    const title = MESSAGES[kind === 'enter' ? 'fence.enteredTitle' : 'fence.leftTitle'].en;
    const body = `${fence.name} · ${device.sn}${device.name ? ` · ${device.name}` : ''} · ${pos.lng.toFixed(6)}, ${pos.lat.toFixed(6)} · ${at.toISOString()}`;
    const readers = await this.repo.insertReaderMessages(deviceId, title, body, `/fence/index?id=${fence.id}`);
    for (const r of readers) this.events?.publish(r.tenant_id, { type: 'message', data: { userId: r.user_id } });
    this.events?.publish(tenantId, { type: 'fence', data: { id: fence.id, deviceId, event: kind } });
    if (this.webhooks) {
      const payload: FenceWebhookPayload = {
        event: kind === 'enter' ? 'fence.enter' : 'fence.leave',
        fence,
        device: { id: deviceId, sn: device.sn, name: device.name },
        position: pos,
        at: at.toISOString(),
      };
      const ids = await this.repo.webhookDeliveries(tenantId, payload.event, { ...payload });
      if (ids.length) this.webhooks.enqueue(ids);
    }
  }

  /**
   * Every target device of a fence with a known position, evaluated against the fence as it is now (after a
   * create: baselines; after an edit: `immediate`).
   */
  async reevaluate(fenceId: number, immediate: boolean): Promise<void> {
    const rows = await this.repo.targetsWithPosition(fenceId);
    for (const d of rows) await this.evaluate(Number(d.id), d.lng, d.lat, { immediate, onlyFence: fenceId });
  }

  /**
   * Pending changes whose dwell time passed without a new report: confirmed with the position where the device
   * crossed (the periodic check; safe on several nodes: the confirming statement has one winner).
   */
  async confirmDue(): Promise<number> {
    const rows = await this.repo.dueChanges();
    let n = 0;
    const now = new Date();
    for (const r of rows) {
      if (!scheduleActive(r.schedule, now)) continue;
      await this.confirm(r, Number(r.device_id), r.pending_side, new Date(r.pending_since), {
        lat: r.pending_lat ?? 0,
        lng: r.pending_lng ?? 0,
      });
      n++;
    }
    return n;
  }

  /** Positions older than POSITION_KEEP_DAYS, in batches, by one node at a time (advisory lock). */
  prunePositions(): Promise<number> {
    return this.repo.prunePositions();
  }
}
