import { defineModule } from '../../plugins/module.ts';
import { FileAcquisitionService, deviceUploadRoutes, fileAcquisitionRoutes, fileAcquisitionUpkeep } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    files: FileAcquisitionService;
  }
}

/** File requests: a fetch_file task carries, at each delivery, a fresh signed upload link bound to its request. */
export const fileAcquisitionModule = defineModule({
  name: 'file-acquisition',
  dependencies: ['task'],
  async setup(app, { db, storage, events, origin }) {
    const files = new FileAcquisitionService(db, storage, app.tasks, events);
    app.tasks.addAtDelivery(['fetch_file'], (row) => ({
      uploadUrl: files.uploadUrl(
        Number((row.params as { requestId?: unknown } | null)?.requestId),
        new Date(row.expire_at),
        origin(),
      ),
    }));
    app.tasks.onChange((row) => files.onTask(row));
    app.decorate('files', files);
    await app.register(fileAcquisitionUpkeep, { files });
  },
  api: async (api) => {
    await api.register(deviceUploadRoutes, { files: api.files });
    await api.register(fileAcquisitionRoutes, { files: api.files });
  },
});
