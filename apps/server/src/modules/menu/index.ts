/** The menu module's public entry: the route records of the console's menu, and their management (staff). */
export { menuRoutes } from './routes.ts';
export { MenuService } from './service.ts';
export { MENU, MENU_SEED_VERSION, seedMenus } from './seed.ts';
