import { defineModule } from '../../plugins/module.ts';
import { systemRoutes } from './index.ts';

/** The system's own facts for the console. */
export const systemModule = defineModule({
  name: 'system',
  api: async (api) => {
    await api.register(systemRoutes);
  },
});
