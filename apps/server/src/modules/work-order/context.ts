import type { WorkOrderState } from '@cpc/contracts';
import type { PlainKey } from '@cpc/contracts/messages';
import type { ObjectStorage } from '../../lib/storage.ts';
import type { NewMessage } from '../inbox/index.ts';
import type { EventSink } from '../task/index.ts';
import type { OrderRow, WorkOrderRepository } from './repository/index.ts';

/** What every part of the work-order service works with. */
export interface WorkOrderContext {
  repo: WorkOrderRepository;
  storage: ObjectStorage;
  events: EventSink | undefined;
  /** Tells the order's tenant's consoles and staff's that it changed (a note only staff's). */
  announce(id: number, tenantId: number, state: WorkOrderState, staffOnly?: boolean): Promise<void>;
}

/** The live `workOrder` event of a change, to the consoles that may hear it. */
export class Announcer {
  private platformTenant: Promise<number | null> | undefined;

  constructor(
    private repo: WorkOrderRepository,
    private events: EventSink | undefined,
  ) {}

  /** Tells the order's tenant's consoles and staff's (a note only staff's). */
  async announce(id: number, tenantId: number, state: WorkOrderState, staffOnly = false): Promise<void> {
    const event = { type: 'workOrder' as const, data: { id, tenantId, state } };
    if (!staffOnly) {
      // heard by the tenant's consoles whose data scope reaches the order (as its list answers them)
      const row = await this.repo.filedOf(id);
      this.events?.publish(tenantId, event, {
        filed: { departmentId: row?.department_id ?? null, ownerId: row?.user_id ?? null },
      });
    }
    const platform = await this.platformTenantId();
    if (platform != null && (platform !== tenantId || staffOnly)) this.events?.publish(platform, event);
  }

  private platformTenantId(): Promise<number | null> {
    this.platformTenant ??= this.repo.crossings.platformTenantId();
    return this.platformTenant;
  }
}

/** A `state` event of the order's timeline, when the state changed. */
export async function stateEvent(
  repo: WorkOrderRepository,
  row: OrderRow,
  from: WorkOrderState | null,
  to: WorkOrderState,
  side: 'customer' | 'staff' | 'system',
  authorId: number | null,
): Promise<void> {
  if (from === to) return;
  await repo.insertEvent({
    work_order_id: row.id,
    tenant_id: row.tenant_id,
    kind: 'state',
    side,
    author_id: authorId,
    from_state: from,
    to_state: to,
  });
}

/** A message of the message centre about the order to one user (of its own tenant). */
export async function messageTo(
  repo: WorkOrderRepository,
  userId: number,
  row: OrderRow,
  kind: string,
  title: PlainKey,
): Promise<NewMessage> {
  const u = await repo.crossings.userTenant(userId);
  return {
    tenantId: u?.tenant_id ?? row.tenant_id,
    userId,
    kind,
    title,
    body: `${row.order_no} · ${row.title}`,
    link: `/workOrder/detail?id=${row.id}`,
  };
}
