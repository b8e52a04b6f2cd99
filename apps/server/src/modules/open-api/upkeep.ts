import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Periodic } from '../../lib/periodic.ts';
import type { OpenAuth } from './auth.ts';
import type { RequestLog } from './request-log.ts';

const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Periodic upkeep of the open API, once across nodes (each step is idempotent): expired nonces, old rate
 * counters, request-log lines past their retention. On close the request log's last batch is written.
 */
export const openApiUpkeep = fp<{ auth: OpenAuth; requestLog: RequestLog }>(
  async (app: FastifyInstance, { auth, requestLog }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `open API: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'open-api',
    });
    app.addHook('onReady', async () => {
      periodic.every(
        PRUNE_EVERY_MS,
        'pruning',
        async () => {
          await auth.prune();
          await requestLog.prune();
        },
        'cluster',
      );
    });
    app.addHook('onClose', async () => {
      // a step under way finishes before the database goes
      await periodic.stop();
      await requestLog.flush();
    });
  },
  { name: 'open-api-upkeep' },
);
