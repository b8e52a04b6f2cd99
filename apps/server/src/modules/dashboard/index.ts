/** The dashboard module's public entry: the home page's figures. */
export { dashboardRoutes } from './routes.ts';
