/** The auth module's public entry: signing in and out. */
export { AuthService } from './service.ts';
export { authRoutes, socialCallbackRoute } from './routes.ts';
export { SocialLogin } from './social.ts';
