import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Periodic } from '../../lib/periodic.ts';
import type { PushService } from './service.ts';

export const PUSH_TICK_MS = 1_000;

/**
 * Starts scheduled pushes whose time came (each claimed by one node: a restart in between loses nothing, the push
 * waits in the table) and closes pushes none of whose tasks is open any more.
 */
export const pushUpkeep = fp<{ pushes: PushService; everyMs?: number }>(
  async (app: FastifyInstance, { pushes, everyMs = PUSH_TICK_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `push: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'push',
    });
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'start', () => pushes.startDue(), 'cluster');
      periodic.every(everyMs * 5, 'finish', () => pushes.finishDone(), 'cluster');
    });
    app.addHook('onClose', async () => {
      await periodic.stop();
      pushes.stop();
    });
  },
  { name: 'push-upkeep' },
);
