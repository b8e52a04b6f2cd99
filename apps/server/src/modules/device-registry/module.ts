import { defineModule } from '../../plugins/module.ts';
import { deviceRegistryRoutes } from './index.ts';
import { DeviceRegistryService } from './service.ts';

/** The registry of manufactured devices and their bind keys (staff). */
export const deviceRegistryModule = defineModule({
  name: 'device-registry',
  api: async (api) => {
    await api.register(deviceRegistryRoutes, { registry: new DeviceRegistryService(api.core.db) });
  },
});
