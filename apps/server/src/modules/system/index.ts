/** The system module's public entry. */
export { systemRoutes } from './routes.ts';
