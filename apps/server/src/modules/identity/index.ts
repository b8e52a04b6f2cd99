/** The identity module's public entry: identity authentication and its review. */
export { IdentityService } from './service.ts';
export { identityRoutes } from './routes.ts';
