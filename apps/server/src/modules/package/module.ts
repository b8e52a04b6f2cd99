import { defineModule } from '../../plugins/module.ts';
import {
  ChunkedUploads,
  chunkedUploadRoutes,
  deviceDownloadRoutes,
  deviceDownloadUrl,
  packageRoutes,
  packageUpkeep,
} from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    packageUploads: ChunkedUploads;
  }
}

/**
 * Software packages: the catalogue, chunked uploads, and the signed links devices download them by — a package
 * task carries, at each delivery, a fresh link; devices reach the server at PUBLIC_URL, else at this node.
 */
export const packageModule = defineModule({
  name: 'package',
  dependencies: ['task'],
  async setup(app, { storage, origin }) {
    app.tasks.addAtDelivery(['upgrade', 'install_app', 'deploy_model'], (row) => ({
      url: deviceDownloadUrl(storage, row.id, new Date(row.expire_at), origin()),
    }));
    const uploads = new ChunkedUploads(storage);
    app.decorate('packageUploads', uploads);
    await app.register(packageUpkeep, { uploads });
  },
  api: async (api) => {
    const { db, storage, events } = api.core;
    const uploads = api.packageUploads;
    await api.register(deviceDownloadRoutes, { db, storage });
    await api.register(chunkedUploadRoutes, { db, storage, uploads });
    await api.register(packageRoutes, { db, storage, uploads, events });
  },
});
