import type { DeliveryCounts, DeliveryState, PushState } from '@cpc/contracts/push';

/** Shown on the screen: displayed or clicked. */
export const shownCount = (c: DeliveryCounts): number => c.displayed + c.clicked;

/** The share of a push's devices that have shown it, in whole percent (0 for none). */
export function percentShown(p: { total: number; counts: DeliveryCounts }): number {
  return p.total ? Math.floor((shownCount(p.counts) * 100) / p.total) : 0;
}

/** Not (yet) shown on the device: what "retry undelivered" sends again. */
export const undeliveredCount = (c: DeliveryCounts): number => c.queued + c.sent + c.expired + c.failed;

export const PUSH_STATE_COLOR: Record<PushState, string> = {
  scheduled: 'default',
  sending: 'processing',
  done: 'success',
  canceled: 'default',
};

export const DELIVERY_STATE_COLOR: Record<DeliveryState, string> = {
  queued: 'default',
  sent: 'blue',
  delivered: 'cyan',
  displayed: 'green',
  clicked: 'purple',
  expired: 'orange',
  failed: 'red',
};
