import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Periodic } from '../../lib/periodic.ts';
import type { WebhookSender } from './webhooks.ts';

const REQUEUE_EVERY_MS = 5000;

/**
 * Periodic upkeep of webhooks, once across nodes: deliveries whose first try never reached the queue are queued
 * again. On close the deliveries still being announced are written.
 */
export const webhookUpkeep = fp<{ webhooks: WebhookSender }>(
  async (app: FastifyInstance, { webhooks }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `webhooks: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'webhooks',
    });
    app.addHook('onReady', async () => {
      periodic.every(REQUEUE_EVERY_MS, 'requeuing webhooks', () => webhooks.sweep(), 'cluster');
    });
    app.addHook('onClose', async () => {
      await periodic.stop();
      await webhooks.flush();
    });
  },
  { name: 'webhook-upkeep' },
);
