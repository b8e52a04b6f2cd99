import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { OpenAuth } from '../open-api/auth.ts';
import type { RequestLog } from '../open-api/request-log.ts';
import type { WebhookSender } from '../integration/webhooks.ts';

const PRUNE_EVERY_MS = 10 * 60_000;
const REQUEUE_EVERY_MS = 5000;

/**
 * Periodic upkeep of printing, on every node (each step is idempotent): expired nonces, old rate counters,
 * request-log lines past their retention, and webhook deliveries whose first try never reached the queue.
 * On close the request log's last batch is written.
 */
export const printUpkeep = fp<{ auth: OpenAuth; requestLog: RequestLog; webhooks: WebhookSender }>(
  async (app: FastifyInstance, { auth, requestLog, webhooks }) => {
    const timers: NodeJS.Timeout[] = [];
    // each step's run under way, which closing waits for before the database goes; one run of a step at a time
    const running = new Map<string, Promise<unknown>>();
    const every = (ms: number, what: string, fn: () => Promise<unknown>) => {
      const t = setInterval(() => {
        if (running.has(what)) return;
        const run = fn()
          .catch((err) => app.log.warn({ err }, `printing: ${what} failed`))
          .finally(() => running.delete(what));
        running.set(what, run);
      }, ms);
      t.unref();
      timers.push(t);
    };
    app.addHook('onReady', async () => {
      every(PRUNE_EVERY_MS, 'pruning', async () => {
        await auth.prune();
        await requestLog.prune();
      });
      every(REQUEUE_EVERY_MS, 'requeuing webhooks', () => webhooks.sweep());
    });
    app.addHook('onClose', async () => {
      timers.forEach(clearInterval);
      await Promise.all(running.values());
      await requestLog.flush();
      await webhooks.flush();
    });
  },
  { name: 'print-upkeep' },
);
