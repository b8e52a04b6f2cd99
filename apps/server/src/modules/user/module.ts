import { defineModule } from '../../plugins/module.ts';
import { SubAccountService, UserService, subAccountRoutes, userRoutes } from './index.ts';

/** Users: one's own account, sub-accounts (customers) and staff users (the platform). */
export const userModule = defineModule({
  name: 'user',
  api: async (api) => {
    const { db, config, storage, events } = api.core;
    await api.register(userRoutes, { users: new UserService(db, config, storage) });
    const subAccounts = new SubAccountService(db, events);
    await api.register(subAccountRoutes, { subAccounts, base: '/system/subAccount' });
    await api.register(subAccountRoutes, { subAccounts, base: '/system/user', staff: true });
  },
});
