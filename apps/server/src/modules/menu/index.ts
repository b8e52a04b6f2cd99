/** The menu module's public entry: the route records of the console's menu. */
export { menuRoutes, routeRecord } from './routes.ts';
export { seedMenus } from './seed.ts';
