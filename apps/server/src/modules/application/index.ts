/** The application module's public entry: deployments of apps and models, inventories, required apps (issue 15). */
export { ApplicationService, type AppCaller } from './service.ts';
export { applicationRoutes } from './routes.ts';
export { applicationUpkeep, POLICY_RECONCILE_MS } from './upkeep.ts';
