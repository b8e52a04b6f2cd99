/** Work orders (issue 14): the public entry of the section. */
export { workOrderRoutes } from './routes.ts';
export { WorkOrderService, callerOf } from './service.ts';
export { closeResolvedOrders } from './sla.ts';
export { workOrderUpkeep } from './upkeep.ts';
