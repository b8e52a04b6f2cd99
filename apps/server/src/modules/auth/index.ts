/** The auth module's public entry: signing in and out. */
export { AuthService } from './service.ts';
export { authRoutes } from './routes.ts';
