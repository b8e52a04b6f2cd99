/** The role module's public entry: the tenant's roles, their permissions and members (issue 12). */
export { RoleService, checkCanGiveRoles, isPrivileged, tellPermissionsChanged } from './service.ts';
export { roleRoutes } from './routes.ts';
export { checkPlacement, checkWithinReach, standingsOf, type Placement, type Standing } from './grant-scope.ts';
export { DEFAULT_CUSTOMER_ROLES, ensureDefaultRoles } from './defaults.ts';
