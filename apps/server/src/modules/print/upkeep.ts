import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { OpenAuth, RequestLog } from '../open-api/index.ts';
import type { WebhookSender } from '../integration/index.ts';
import { Periodic } from '../../lib/periodic.ts';

const PRUNE_EVERY_MS = 10 * 60_000;
const REQUEUE_EVERY_MS = 5000;

/**
 * Periodic upkeep of printing, on every node (each step is idempotent): expired nonces, old rate counters,
 * request-log lines past their retention, and webhook deliveries whose first try never reached the queue.
 * On close the request log's last batch is written.
 */
export const printUpkeep = fp<{ auth: OpenAuth; requestLog: RequestLog; webhooks: WebhookSender }>(
  async (app: FastifyInstance, { auth, requestLog, webhooks }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `printing: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'printing',
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
      periodic.every(REQUEUE_EVERY_MS, 'requeuing webhooks', () => webhooks.sweep(), 'cluster');
    });
    app.addHook('onClose', async () => {
      // steps under way finish before the database goes
      await periodic.stop();
      await requestLog.flush();
      await webhooks.flush();
    });
  },
  { name: 'print-upkeep' },
);
