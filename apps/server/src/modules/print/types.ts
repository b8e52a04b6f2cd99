import type { PrintMsg } from '@cpc/contracts/device-protocol';

/** Where print messages go: this node's link to the devices. */
export interface PrintDownlink {
  /** Publishes now (used while handling the device's own hello, in its order). */
  print(sn: string, msg: PrintMsg): Promise<void>;
  /** Publishes after whatever is already being sent to or handled for the device (its hello's resends). */
  printAfterPending(sn: string, msg: PrintMsg): void;
}
/** Where new webhook deliveries are announced (the webhook sender queues them). */
export interface WebhookOutbox {
  enqueue(deliveryIds: string[]): void;
}
export interface PrintOptions {
  /** A sent job without an ack for this long times out. */
  ackTimeoutS: number;
  /** Back-off before the n-th resend of a timed-out job: base × 2^(n−1) seconds. */
  retryBackoffS: number;
  /** Deliveries an online printer may leave unacknowledged before the job fails. */
  maxAttempts: number;
  /**
   * How long the printers' acks, progress and results wait for others to share their transaction (ms; default
   * 5). Submits wait for no window: they share a commit only with those that arrived while one was in flight.
   */
  deviceWindowMs?: number;
  /**
   * How long positive acks and progress, which nobody waits on, wait for others (ms; default 50): a printer's
   * `delivered` and `printing` show up to this much later, and printers reporting one by one share commits.
   */
  deviceLazyWindowMs?: number;
  /**
   * A job an online printer took (delivered, printing) without a word since for this long is sent again: the
   * printer reports its result again (a result lost with a server node that died holding it) and never prints
   * it twice. Default 60.
   */
  resultTimeoutS?: number;
}
/** The app key a call is signed with. */
export interface PrintKey {
  id: number;
  tenantId: number;
}
export interface SubmitInput {
  deviceSn: string;
  content: string;
  copies: number;
  originId: string;
  expireInSec?: number;
}
