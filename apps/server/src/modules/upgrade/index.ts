/** The upgrade module's public entry: firmware releases in waves, and each device's firmware history (issue 15). */
export { UpgradeService, type UpgradeCaller } from './service.ts';
export { upgradeRoutes } from './routes.ts';
export { upgradeUpkeep, UPGRADE_RECONCILE_MS } from './upkeep.ts';
export { inWindow } from './window.ts';
