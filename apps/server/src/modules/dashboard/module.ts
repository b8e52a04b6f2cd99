import { defineModule } from '../../plugins/module.ts';
import { dashboardRoutes } from './index.ts';

/** The dashboard's figures. */
export const dashboardModule = defineModule({
  name: 'dashboard',
  api: async (api) => {
    await api.register(dashboardRoutes, { db: api.core.db });
  },
});
