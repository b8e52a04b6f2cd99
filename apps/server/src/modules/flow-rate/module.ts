import { defineModule } from '../../plugins/module.ts';
import { flowRateRoutes, simUpkeep } from './index.ts';

/** Data traffic: SIM usage, low-data and expiry alerts. */
export const flowRateModule = defineModule({
  name: 'flow-rate',
  async setup(app, { db, events }) {
    await app.register(simUpkeep, { db, events });
  },
  api: async (api) => {
    await api.register(flowRateRoutes, { db: api.core.db });
  },
});
