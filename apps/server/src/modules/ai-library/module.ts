import { defineModule } from '../../plugins/module.ts';
import { Periodic } from '../../lib/periodic.ts';
import { OcrPool, OcrService, aiLibraryRoutes, openOcrRoutes } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The AI library's cloud OCR jobs (tests run its sweep). */
    ocr: OcrService;
  }
}

/** The AI library: models, and cloud OCR on a durable queue (ocr_jobs) with a tesseract.js pool started on demand. */
export const aiLibraryModule = defineModule({
  name: 'ai-library',
  dependencies: ['print', 'open-api'],
  setup(app, { db, storage, events, config }) {
    const ocr = new OcrService(
      db,
      storage,
      events,
      app.prints,
      new OcrPool(config.OCR_WORKERS),
      {
        tenantLimit: config.OCR_TENANT_LIMIT,
        pollMs: config.OCR_POLL_MS,
        leaseS: config.OCR_LEASE_S,
        maxAttempts: 3,
      },
      app.log.child({ module: 'ai-library' }),
    );
    const upkeep = new Periodic((err, job) => app.log.warn({ err }, `ocr: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'ocr',
    });
    app.addHook('onReady', async () => {
      ocr.start();
      upkeep.every(Math.max(config.OCR_POLL_MS, 1000), 'sweep', () => ocr.sweep(), 'cluster');
    });
    app.addHook('onClose', async () => {
      await upkeep.stop();
      await ocr.stop();
    });
    app.decorate('ocr', ocr);
    // OCR is also offered to integrators, inside the open API's signature checks
    app.openApiMore.push(async (open) => open.register(openOcrRoutes, { ocr }));
  },
  api: async (api) => {
    await api.register(aiLibraryRoutes, { ocr: api.ocr });
  },
});
