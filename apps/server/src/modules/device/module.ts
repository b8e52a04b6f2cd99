import { defineModule } from '../../plugins/module.ts';
import { deviceRoutes } from './index.ts';

/** Devices: binding, lists, detail, groups and commands. */
export const deviceModule = defineModule({
  name: 'device',
  dependencies: ['task'],
  api: async (api) => {
    await api.register(deviceRoutes, { db: api.core.db, tasks: api.tasks });
  },
});
