/** The system-custom module's public entry: customization profiles, their resolution and drift (issue 16). */
export { SystemCustomService, APPLY_EXPIRE_S, type CustomCaller } from './service.ts';
export { systemCustomRoutes } from './routes.ts';
export { profileMediaRoutes, profileMediaUrl } from './download.ts';
export { systemCustomUpkeep, PROFILE_RECONCILE_MS } from './upkeep.ts';
export { customMediaType, zipFrames } from './media.ts';
