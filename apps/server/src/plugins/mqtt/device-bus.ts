import type {
  AckMsg,
  EventMsg,
  InventoryMsg,
  LocationMsg,
  ProfileMsg,
  ProgressMsg,
  ResultMsg,
} from '@cpc/contracts/device-protocol';

/**
 * What the device gateway hears from devices and tells the modules, by name, with what each carries. The
 * protocol's `ack`, `progress` and `result` are split by their `kind`: a print job's (kind "print") and a
 * device task's (any other kind) belong to different modules.
 */
export interface DeviceBusEvents {
  /** A device said hello (after presence stored it): whether tasks or print jobs wait to be sent again. */
  hello: { sn: string; tasksOpen: boolean; printsOpen: boolean };
  /** A location report, after presence stored it. */
  location: LocationMsg;
  /** The paper state of a device of an account changed (from `previous`, null when unknown). */
  paper: { paper: string | null; previous: string | null };
  'task.ack': AckMsg;
  'task.progress': ProgressMsg;
  'task.result': ResultMsg;
  'print.ack': AckMsg;
  'print.progress': ProgressMsg;
  'print.result': ResultMsg;
  /** A device's software inventory. */
  inventory: InventoryMsg;
  /** A device's effective customization. */
  profile: ProfileMsg;
  /** A device's `event` message (e.g. a push clicked). */
  event: EventMsg;
}
export type DeviceBusKind = keyof DeviceBusEvents;
export type DeviceListener<K extends DeviceBusKind> = (deviceId: number, body: DeviceBusEvents[K]) => unknown;

/**
 * The typed in-process bus between the device gateway and the modules (docs/architecture.md): the gateway
 * publishes what devices say and imports no module; a module subscribes to what it handles. Unlike an event
 * emitter, `emit` waits for every listener, one after the other in the order they subscribed, so a device's
 * messages are still handled in order and `settled()` still means written. A listener's failure is its
 * caller's (the gateway logs it); the listeners after it still run.
 *
 * The gateway's periodic sweep and its "everything heard so far is written" wait reach the modules the same way
 * (`onSweep`, `onSettle`).
 */
export class DeviceBus {
  private listeners = new Map<DeviceBusKind, Array<DeviceListener<never>>>();
  private sweeps: Array<() => Promise<unknown>> = [];
  private settles: Array<() => Promise<unknown>> = [];

  /** Subscribes; answers the unsubscribe. */
  on<K extends DeviceBusKind>(kind: K, listener: DeviceListener<K>): () => void {
    const list = this.listeners.get(kind) ?? [];
    list.push(listener as DeviceListener<never>);
    this.listeners.set(kind, list);
    return () => {
      const at = list.indexOf(listener as DeviceListener<never>);
      if (at >= 0) list.splice(at, 1);
    };
  }

  async emit<K extends DeviceBusKind>(kind: K, deviceId: number, body: DeviceBusEvents[K]): Promise<void> {
    const list = this.listeners.get(kind);
    if (!list?.length) return;
    let failure: { err: unknown } | undefined;
    for (const listener of [...list]) {
      try {
        await (listener as DeviceListener<K>)(deviceId, body);
      } catch (err) {
        failure ??= { err };
      }
    }
    if (failure) throw failure.err;
  }

  /** Work run at each of the gateway's sweeps, after presence's (timeouts of what was sent to devices). */
  onSweep(work: () => Promise<unknown>): void {
    this.sweeps.push(work);
  }

  async sweep(): Promise<void> {
    for (const work of this.sweeps) await work();
  }

  /** What to wait for before "everything heard so far is handled and written" holds. */
  onSettle(wait: () => Promise<unknown>): void {
    this.settles.push(wait);
  }

  async settled(): Promise<void> {
    for (const wait of this.settles) await wait();
  }
}
