import { defineModule } from '../../plugins/module.ts';
import { deviceModelRoutes } from './index.ts';

/** Device models (staff). */
export const deviceModelModule = defineModule({
  name: 'device-model',
  api: async (api) => {
    await api.register(deviceModelRoutes, { db: api.core.db });
  },
});
