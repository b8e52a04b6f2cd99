import { defineModule } from '../../plugins/module.ts';
import { IdentityService, identityRoutes } from './index.ts';

/** Identity verification: individual and enterprise, reviewed by staff. */
export const identityModule = defineModule({
  name: 'identity',
  api: async (api) => {
    const { db, storage, events } = api.core;
    await api.register(identityRoutes, { identity: new IdentityService(db, storage, events) });
  },
});
