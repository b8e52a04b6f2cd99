import type { CannedReply, WorkOrderDetail, WorkOrderItem, WorkOrderState, WorkOrderTarget } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import type { EventSink } from '../task/index.ts';
import type { Caller } from './caller.ts';
import { Announcer, type WorkOrderContext } from './context.ts';
import { WorkOrderConversation, type ReplyBody } from './conversation.ts';
import { WorkOrderLifecycle, type CreateBody, type EditBody } from './lifecycle.ts';
import { WorkOrderQueue } from './queue.ts';
import { WorkOrderRepository, type ListQuery } from './repository/index.ts';
import { WorkOrderSla } from './sla.ts';

export { callerOf, type Caller } from './caller.ts';

/**
 * Work orders: the one service the routes and the upkeep call. Its use cases live by theme — queue.ts (lists,
 * the detail, taking and assigning), lifecycle.ts (a customer's order from opening to rating), conversation.ts
 * (replies, read marks, canned replies), sla.ts (targets, the sweep) — over one WorkOrderRepository.
 */
export class WorkOrderService {
  private readonly queue: WorkOrderQueue;
  private readonly lifecycle: WorkOrderLifecycle;
  private readonly conversation: WorkOrderConversation;
  private readonly sla: WorkOrderSla;
  private readonly announcer: Announcer;

  constructor(db: Db, storage: ObjectStorage, events: EventSink | undefined) {
    const repo = new WorkOrderRepository(db);
    this.announcer = new Announcer(repo, events);
    const ctx: WorkOrderContext = {
      repo,
      storage,
      events,
      announce: (id, tenantId, state, staffOnly) => this.announcer.announce(id, tenantId, state, staffOnly),
    };
    this.queue = new WorkOrderQueue(ctx);
    this.lifecycle = new WorkOrderLifecycle(ctx);
    this.conversation = new WorkOrderConversation(ctx);
    this.sla = new WorkOrderSla(repo);
  }

  // reading
  list(c: Caller, q: ListQuery): Promise<{ list: WorkOrderItem[]; total: number }> {
    return this.queue.list(c, q);
  }
  detail(c: Caller, id: number): Promise<WorkOrderDetail> {
    return this.queue.detail(c, id);
  }
  read(c: Caller, id: number): Promise<void> {
    return this.conversation.read(c, id);
  }

  // a customer's order
  create(c: Caller, body: CreateBody): Promise<number> {
    return this.lifecycle.create(c, body);
  }
  update(c: Caller, body: EditBody): Promise<void> {
    return this.lifecycle.update(c, body);
  }
  /** A state change without a text: withdraw, reopen, close (customer), take (staff). */
  change(c: Caller, id: number, action: 'withdraw' | 'reopen' | 'close' | 'take'): Promise<void> {
    return action === 'take' ? this.queue.take(c, id) : this.lifecycle.change(c, id, action);
  }
  rate(c: Caller, id: number, rating: number, comment: string): Promise<void> {
    return this.lifecycle.rate(c, id, rating, comment);
  }
  options(c: Caller, keyword: string | undefined) {
    return this.lifecycle.options(c, keyword);
  }

  // the conversation
  reply(c: Caller, body: ReplyBody): Promise<void> {
    return this.conversation.reply(c, body);
  }

  // staff
  assign(c: Caller, id: number, assigneeId: number | null): Promise<void> {
    return this.queue.assign(c, id, assigneeId);
  }
  assignees(ids?: number[]): Promise<Array<{ id: number; name: string }>> {
    return this.queue.assignees(ids);
  }
  targets(): Promise<WorkOrderTarget[]> {
    return this.sla.targets();
  }
  setTargets(c: Caller, targets: WorkOrderTarget[]): Promise<WorkOrderTarget[]> {
    return this.sla.setTargets(c, targets);
  }
  cannedList(c: Caller): Promise<CannedReply[]> {
    return this.conversation.cannedList(c);
  }
  cannedCreate(c: Caller, body: { title: string; bodyHtml: string; shared: boolean }): Promise<CannedReply> {
    return this.conversation.cannedCreate(c, body);
  }
  cannedUpdate(c: Caller, body: { id: number; title?: string; bodyHtml?: string }): Promise<CannedReply> {
    return this.conversation.cannedUpdate(c, body);
  }
  cannedDelete(c: Caller, id: number): Promise<void> {
    return this.conversation.cannedDelete(c, id);
  }

  /** Tells the order's tenant's consoles and staff's (a note only staff's). */
  announce(id: number, tenantId: number, state: WorkOrderState, staffOnly = false): Promise<void> {
    return this.announcer.announce(id, tenantId, state, staffOnly);
  }
}
