/** The push module's public entry: push tasks and their per-device delivery (issue 16). */
export { PushService, PUSH_EVENT_MS, type PushCaller } from './service.ts';
export { pushRoutes } from './routes.ts';
export { pushUpkeep, PUSH_TICK_MS } from './upkeep.ts';
