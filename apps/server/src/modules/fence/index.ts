/** The fence module's public entry: geofencing (issue 16) — fences, evaluation of location reports, tracks. */
export { FenceService, defaultTileCrs, type FenceCaller } from './service.ts';
export { fenceRoutes } from './routes.ts';
export { fenceUpkeep, FENCE_DWELL_CHECK_MS } from './upkeep.ts';
export { contains, scheduleActive, normalizeShape, bboxOf } from './geometry.ts';
