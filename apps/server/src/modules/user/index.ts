/** The user module's public entry: the signed-in user's account and the tenant's sub-accounts. */
export { UserService } from './service.ts';
export { userRoutes } from './routes.ts';
export { SubAccountService } from './sub-account-service.ts';
export { subAccountRoutes } from './sub-account-routes.ts';
