/** The file-acquisition module's public entry (issue 15): file requests to devices, their uploads, the files. */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Periodic } from '../../lib/periodic.ts';
import type { FileAcquisitionService } from './service.ts';

export { FileAcquisitionService, deviceUploadUrl, parseContentRange } from './service.ts';
export { deviceUploadRoutes, fileAcquisitionRoutes } from './routes.ts';

/** Deletes files past their keeping time and stale partial uploads, every `everyMs` (once across nodes). */
export const fileAcquisitionUpkeep = fp<{ files: FileAcquisitionService; everyMs?: number }>(
  async (app: FastifyInstance, { files, everyMs = 10 * 60_000 }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `file acquisition: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'file acquisition',
    });
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'sweep', () => files.sweep(), 'cluster');
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'file-acquisition-upkeep' },
);
