import { defineModule } from '../../plugins/module.ts';
import { MenuService, menuRoutes } from './index.ts';

/** The menu: route records per role, managed by staff. */
export const menuModule = defineModule({
  name: 'menu',
  api: async (api) => {
    const { db, events } = api.core;
    await api.register(menuRoutes, { db, menus: new MenuService(db), events });
  },
});
