/** The notice module's public entry. */
export { noticeRoutes } from './routes.ts';
