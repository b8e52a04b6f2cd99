import { defineModule } from '../../plugins/module.ts';
import { uploadRoutes } from './index.ts';

/** Uploads to object storage. */
export const uploadModule = defineModule({
  name: 'upload',
  api: async (api) => {
    await api.register(uploadRoutes, { storage: api.core.storage, db: api.core.db });
  },
});
