import { defineModule } from '../../plugins/module.ts';
import { UploadService, uploadRoutes } from './index.ts';

/** Uploads to object storage. */
export const uploadModule = defineModule({
  name: 'upload',
  api: async (api) => {
    const { storage, db } = api.core;
    await api.register(uploadRoutes, { storage, uploads: new UploadService(db, storage) });
  },
});
