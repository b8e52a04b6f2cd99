import {
  DELIVERY_STATES,
  type DeliveryCounts,
  type DeliveryItem,
  type DeliveryListQuery,
  type DeliveryState,
  type Paged,
  type PushItem,
  type PushListQuery,
  type PushState,
  type PushTargets,
} from '@cpc/contracts';
import type { TenantScope } from '../../db/tenant-scope.ts';
import { isJsonObject } from '../../db/schema.ts';
import type { DataAccess } from '../../lib/data-scope.ts';
import { notFound } from '../../plugins/errors.ts';
import type { PushRepository, PushWithCreator } from './repository.ts';

export const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());
const emptyCounts = (): DeliveryCounts =>
  Object.fromEntries(DELIVERY_STATES.map((s) => [s, 0])) as Record<DeliveryState, number>;

/**
 * Reading pushes: those a reader sees (made by them, or with a device inside their data scope), their counts per
 * delivery state and their deliveries (devices in the data scope only).
 */
export class PushReader {
  constructor(private repo: PushRepository) {}

  /** Which of these pushes a reader with this data scope sees (`visible`), for its live events. */
  async visibleIds(access: DataAccess, ids: number[]): Promise<Set<number>> {
    if (!ids.length) return new Set();
    return new Set(await this.repo.visibleIds(access, ids));
  }

  private async counts(ids: number[], access: DataAccess) {
    if (!ids.length) return new Map<number, DeliveryCounts>();
    const out = new Map<number, DeliveryCounts>();
    for (const r of await this.repo.counts(ids, access)) {
      const c = out.get(Number(r.push_id)) ?? emptyCounts();
      c[r.state] = Number(r.n);
      out.set(Number(r.push_id), c);
    }
    return out;
  }

  private toItem(r: PushWithCreator, counts: DeliveryCounts | undefined, signed: (k: string) => string): PushItem {
    const c = counts ?? emptyCounts();
    return {
      id: Number(r.id),
      kind: r.kind as PushItem['kind'],
      title: r.title,
      body: r.body,
      imageUrl: r.image_key ? signed(r.image_key) : null,
      link: r.link,
      noticeSeconds: r.notice_seconds,
      targets: (isJsonObject(r.targets) ? r.targets : {}) as PushTargets,
      state: r.state as PushState,
      scheduledAt: iso(r.scheduled_at),
      startedAt: iso(r.started_at),
      expireAt: iso(r.expire_at)!,
      createdAt: iso(r.created_at)!,
      createdBy: r.creator,
      total: Object.values(c).reduce((a, n) => a + n, 0),
      counts: c,
    };
  }

  async list(
    scope: TenantScope,
    access: DataAccess,
    q: PushListQuery,
    signed: (k: string) => string,
  ): Promise<Paged<PushItem>> {
    const { rows, total } = await this.repo.listPage(scope.tenantId, access, q);
    const counts = await this.counts(
      rows.map((r) => Number(r.id)),
      access,
    );
    return { list: rows.map((r) => this.toItem(r, counts.get(Number(r.id)), signed)), total };
  }

  /** The push if the caller sees it, else 404. */
  async row(tenantId: number, access: DataAccess, id: number): Promise<PushWithCreator> {
    const r = await this.repo.findVisible(tenantId, access, id);
    if (!r) throw notFound('push');
    return r;
  }

  async detail(scope: TenantScope, access: DataAccess, id: number, signed: (k: string) => string): Promise<PushItem> {
    const r = await this.row(scope.tenantId, access, id);
    const counts = await this.counts([id], access);
    return this.toItem(r, counts.get(id), signed);
  }

  async deliveries(scope: TenantScope, access: DataAccess, q: DeliveryListQuery): Promise<Paged<DeliveryItem>> {
    await this.row(scope.tenantId, access, q.id);
    const { rows, total } = await this.repo.deliveryPage(scope.tenantId, access, q);
    return {
      list: rows.map((r) => ({
        deviceId: Number(r.device_id),
        sn: r.sn,
        deviceName: r.name,
        online: r.status === 'online',
        taskId: r.task_id,
        state: r.state,
        error: r.error ?? '',
        attempts: r.attempts ?? 0,
        sentAt: iso(r.sent_at),
        deliveredAt: iso(r.delivered_at),
        displayedAt: iso(r.displayed_at),
        clickedAt: iso(r.clicked_at),
        updatedAt: iso(r.updated_at),
      })),
      total,
    };
  }
}
