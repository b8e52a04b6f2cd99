/**
 * The work-order repository, split by table group: WorkOrderRepository (orders.ts: the orders, their events and
 * attachments) holds the other two on its own connection — `settings` (settings.ts: targets, canned replies) and
 * `crossings` (crossings.ts: the statements on other sections' tables). Services construct it from their `db`.
 */
export { WorkOrderRepository } from './orders.ts';
export { WorkOrderCrossingsRepository } from './crossings.ts';
export { WorkOrderSettingsRepository } from './settings.ts';
export { escapeLike, type ListQuery, type NamedOrder, type OrderRow, type Priority, type Reach } from './types.ts';
