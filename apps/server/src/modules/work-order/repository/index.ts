/**
 * The work-order repository: one class, WorkOrderRepository, whose statements are split by table group over a
 * chain of links — crossings.ts (other sections' tables) ← settings.ts (targets, canned replies) ← orders.ts (the
 * orders, their events and attachments). Services construct it from the `db` they are given.
 */
export { WorkOrderRepository } from './orders.ts';
export { escapeLike, type ListQuery, type NamedOrder, type OrderRow, type Priority, type Reach } from './types.ts';
