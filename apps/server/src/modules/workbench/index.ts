/** The workbench module's public entry: what needs the caller now (issue 14). */
export { workbenchRoutes } from './routes.ts';
