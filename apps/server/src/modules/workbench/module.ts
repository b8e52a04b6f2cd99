import { defineModule } from '../../plugins/module.ts';
import { workbenchRoutes } from './index.ts';

/** The workbench: what needs the reader's attention. */
export const workbenchModule = defineModule({
  name: 'workbench',
  api: async (api) => {
    await api.register(workbenchRoutes, { db: api.core.db });
  },
});
