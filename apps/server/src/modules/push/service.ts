import type { FastifyBaseLogger } from 'fastify';
import { PUSH_CLICKED_EVENT, type PushState } from '@cpc/contracts';
import type { EventMsg } from '@cpc/contracts/device-protocol';
import type { Db } from '../../db/database.ts';
import { isJsonObject } from '../../db/schema.ts';
import type { ChangedTask, EventSink, TaskService } from '../task/index.ts';
import { PushReader } from './reading.ts';
import { PushRepository } from './repository.ts';
import { PushSender } from './sending.ts';

export type { PushCaller } from './sending.ts';

/** Live `push` events of one push are sent at most this often (a 10,000-device push: not one per device). */
export const PUSH_EVENT_MS = 500;

/**
 * Push tasks (issue 16). A push's deliveries are `push_message` device tasks (the task framework queues them for
 * offline devices and sends them again on reconnect until the push's expiry); a scheduled push is started by a
 * periodic on whichever node claims it first (`FOR UPDATE SKIP LOCKED`), and a push is `done` once none of its
 * tasks is open (a guarded UPDATE, safe on N nodes). Live `push` events are coalesced per push.
 *
 * Reading is in reading.ts (`PushReader`), sending, scheduling, retries and cancels in sending.ts
 * (`PushSender`), the statements in repository/; this class keeps what devices say and the live events.
 */
export class PushService {
  private pending = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private repo: PushRepository;
  private reader: PushReader;
  private sender: PushSender;

  constructor(
    db: Db,
    tasks: TaskService,
    private events: EventSink,
    private log: FastifyBaseLogger,
    private eventMs = PUSH_EVENT_MS,
  ) {
    this.repo = new PushRepository(db);
    this.reader = new PushReader(this.repo);
    this.sender = new PushSender(this.repo, this.reader, tasks, events);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Sending (sending.ts)

  preview(...a: Parameters<PushSender['preview']>) {
    return this.sender.preview(...a);
  }

  create(...a: Parameters<PushSender['create']>) {
    return this.sender.create(...a);
  }

  startDue() {
    return this.sender.startDue();
  }

  finishDone() {
    return this.sender.finishDone();
  }

  cancel(...a: Parameters<PushSender['cancel']>) {
    return this.sender.cancel(...a);
  }

  retry(...a: Parameters<PushSender['retry']>) {
    return this.sender.retry(...a);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading (reading.ts)

  visibleIds(...a: Parameters<PushReader['visibleIds']>) {
    return this.reader.visibleIds(...a);
  }

  list(...a: Parameters<PushReader['list']>) {
    return this.reader.list(...a);
  }

  detail(...a: Parameters<PushReader['detail']>) {
    return this.reader.detail(...a);
  }

  deliveries(...a: Parameters<PushReader['deliveries']>) {
    return this.reader.deliveries(...a);
  }

  // -------------------------------------------------------------------------------------------------------------
  // The devices' side

  /** A device says its user tapped a push (`event` kind push.clicked, data {taskId}). */
  async onEvent(deviceId: number, m: EventMsg): Promise<void> {
    if (m.kind !== PUSH_CLICKED_EVENT) return;
    const taskId = m.data?.taskId;
    if (typeof taskId !== 'string' || !/^[0-9a-f-]{36}$/i.test(taskId)) return;
    const row = await this.repo.markClicked(deviceId, taskId, new Date());
    if (row) this.touch(Number(row.tenant_id), Number(row.push_id));
  }

  /** A task of a push changed on this node: tell the consoles, at most once per push every `eventMs`. */
  onTaskChange(row: ChangedTask): void {
    if (row.type !== 'push_message' || !isJsonObject(row.params)) return;
    const id = row.params.pushId;
    if (typeof id === 'number') this.touch(Number(row.tenant_id), id);
  }

  private touch(tenantId: number, id: number): void {
    this.pending.set(id, tenantId);
    if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.eventMs);
  }

  private async flush(): Promise<void> {
    const batch = [...this.pending];
    this.pending.clear();
    try {
      await this.finishDone();
      const rows = batch.length ? await this.repo.states(batch.map(([id]) => id)) : [];
      const state = new Map(rows.map((r) => [Number(r.id), r.state as PushState]));
      for (const [id, tenantId] of batch)
        if (state.has(id)) this.events.publish(tenantId, { type: 'push', data: { id, state: state.get(id)! } });
    } catch (err) {
      this.log.warn({ err }, 'push: live events failed');
    } finally {
      this.timer = null;
      if (this.pending.size) this.timer = setTimeout(() => void this.flush(), this.eventMs);
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
