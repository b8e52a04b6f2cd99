import type { LiveEvent } from '@cpc/contracts';
import { reachInView, type DataAccess, type Reach, type ScopeView } from '../lib/data-scope.ts';

/**
 * The data scope of live events: which events of its account a console narrower than the account (scope `own`
 * or `department`) may hear, judged in memory against its `ScopeView` by the rule the lists apply in SQL
 * (lib/data-scope.ts). Every event type has a rule here, so a new one cannot be added without deciding:
 * - `account`: about the account as a whole (menus, notices, packages, the department tree…): every console;
 * - a function: the event as this reader may see it (a list narrowed to its devices), or null for none of it;
 * - `entity`: about a thing whose visibility the owning module answers (a push, an upgrade release), asked once
 *   per stream and thing, through `EntityReach`.
 * An event whose rule needs its `Reach` and has none is heard by nobody narrower than the account.
 */
type Rule<T extends LiveEvent['type']> =
  | 'account'
  | 'entity'
  | ((data: Extract<LiveEvent, { type: T }>['data'], reach: Reach | undefined, view: ScopeView) => unknown);

/** Keeps the ids of a list that the view holds; the event goes only when some remain (or the list was empty). */
function narrowed<D, K extends keyof D>(data: D, key: K, keep: (v: never) => boolean): D | null {
  const list = data[key] as unknown as never[];
  if (!list.length) return data;
  const kept = list.filter(keep);
  return kept.length ? { ...data, [key]: kept } : null;
}

const byReach = <D>(data: D, reach: Reach | undefined, view: ScopeView): D | null =>
  reachInView(view, reach) ? data : null;

export const SCOPE_RULES: { [T in LiveEvent['type']]: Rule<T> } = {
  device: (d, _r, v) => (v.devices.has(d.id) ? d : null),
  task: (d, _r, v) => (v.devices.has(d.deviceId) ? d : null),
  // a change of the fence itself is the account's; an enter or leave names its device
  fence: (d, _r, v) => (d.deviceId === undefined || v.devices.has(d.deviceId) ? d : null),
  application: (d, _r, v) => narrowed(d, 'deviceIds', (id: number) => v.devices.has(id)),
  systemCustom: (d, _r, v) => narrowed(d, 'deviceIds', (id: number) => v.devices.has(id)),
  sim: (d, _r, v) => narrowed(d, 'iccids', (iccid: string) => v.iccids.has(iccid)),
  fileAcquisition: byReach,
  // a recognition job is the account's (its list is not a device list)
  aiLibrary: 'account',
  order: byReach,
  workOrder: byReach,
  push: 'entity',
  upgrade: 'entity',
  identity: 'account',
  permissions: 'account',
  menu: 'account',
  message: 'account',
  department: 'account',
  notice: 'account',
  package: 'account',
};

/** The id of the thing an `entity` event is about. */
export const ENTITY_ID: { [T in LiveEvent['type']]?: (data: Extract<LiveEvent, { type: T }>['data']) => number } = {
  push: (d) => d.id,
  upgrade: (d) => d.releaseId,
};

/** Which of these things (by id) a reader with this data scope sees: answered by the module that owns them. */
export type EntityReach = (access: DataAccess, ids: number[]) => Promise<Set<number>>;

/** The rule of an event type, for the stream. */
export const ruleOf = (type: LiveEvent['type']) => SCOPE_RULES[type] as Rule<LiveEvent['type']>;

/**
 * The event as a reader with `view` may hear it, or null. `entityVisible` holds what the owning modules said of
 * the things of `entity` events (asked before; absent: not visible).
 */
export function narrowEvent(
  event: LiveEvent,
  reach: Reach | undefined,
  view: ScopeView | null,
  entityVisible: (type: LiveEvent['type'], id: number) => boolean,
): LiveEvent | null {
  if (!view) return event;
  const rule = ruleOf(event.type);
  if (rule === 'account') return event;
  if (rule === 'entity') {
    const id = ENTITY_ID[event.type]?.(event.data as never);
    return id !== undefined && entityVisible(event.type, id) ? event : null;
  }
  const data = rule(event.data as never, reach, view);
  return data === null ? null : ({ type: event.type, data } as LiveEvent);
}
