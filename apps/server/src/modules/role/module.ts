import { defineModule } from '../../plugins/module.ts';
import { RoleService, roleRoutes } from './index.ts';

/** Roles and their permissions. */
export const roleModule = defineModule({
  name: 'role',
  api: async (api) => {
    await api.register(roleRoutes, { roles: new RoleService(api.core.db, api.core.events) });
  },
});
