import { defineModule } from '../../plugins/module.ts';
import { dashboardRoutes } from './index.ts';
import { DashboardService } from './service.ts';

/** The dashboard's figures. */
export const dashboardModule = defineModule({
  name: 'dashboard',
  api: async (api) => {
    await api.register(dashboardRoutes, { dashboard: new DashboardService(api.core.db) });
  },
});
