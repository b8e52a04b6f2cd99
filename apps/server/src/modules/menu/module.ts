import { defineModule } from '../../plugins/module.ts';
import { menuRoutes } from './index.ts';

/** The menu: route records per role, managed by staff. */
export const menuModule = defineModule({
  name: 'menu',
  api: async (api) => {
    await api.register(menuRoutes, { db: api.core.db, events: api.core.events });
  },
});
