import { defineModule } from '../../plugins/module.ts';
import { ensureSecret } from '../../lib/secrets.ts';
import { OpenAuth, RequestLog, openApiRoutes, openApiUpkeep } from './index.ts';
import { OPEN_API_PREFIX } from '@cpc/contracts/open-api';
import type { FastifyPluginAsync } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    openAuth: OpenAuth;
    requestLog: RequestLog;
    /** Routes other modules add to the open API, inside its signature checks (registered with it). */
    openApiMore: FastifyPluginAsync[];
  }
}

/** The signed API integrators print through: its signature checks, its request log, its routes under /open/v1. */
export const openApiModule = defineModule({
  name: 'open-api',
  dependencies: ['print'],
  async setup(app, { db, config }) {
    const auth = new OpenAuth(db, {
      clockWindowS: config.OPEN_CLOCK_WINDOW_S,
      rateLimit: config.OPEN_RATE_LIMIT,
      consoleSecret: await ensureSecret(db, 'console_test_print_secret'),
    });
    const requestLog = new RequestLog(
      db,
      { flushMs: config.OPEN_LOG_FLUSH_MS, retentionDays: config.OPEN_LOG_RETENTION_DAYS },
      app.log.child({ module: 'open-api' }),
    );
    app.decorate('openAuth', auth);
    app.decorate('requestLog', requestLog);
    app.decorate('openApiMore', []);
    await app.register(openApiUpkeep, { auth, requestLog });
  },
  root: async (app) => {
    await app.register(openApiRoutes, {
      prefix: OPEN_API_PREFIX,
      prints: app.prints,
      auth: app.openAuth,
      requestLog: app.requestLog,
      more: app.openApiMore,
    });
  },
});
