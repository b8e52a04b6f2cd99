/** The device module's public entry: binding, groups, the fleet list, detail and map. */
export { deviceRoutes } from './routes.ts';
export { countDevicesOf, countGroupsOf } from './lookup.ts';
