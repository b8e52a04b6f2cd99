import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Periodic } from '../../lib/periodic.ts';
import type { FenceService } from './service.ts';

/** How often pending side changes whose dwell time passed are confirmed, and old positions pruned. */
export const FENCE_DWELL_CHECK_MS = 5_000;
export const POSITION_PRUNE_MS = 60 * 60_000;

/**
 * A device that crossed a fence's edge and then stopped reporting still has its change confirmed once the dwell
 * time passed (every few seconds on every node: the confirming statement has one winner); positions older than 7
 * days are pruned hourly by one node at a time.
 */
export const fenceUpkeep = fp<{ fences: FenceService; dwellCheckMs?: number; pruneMs?: number }>(
  async (app: FastifyInstance, { fences, dwellCheckMs = FENCE_DWELL_CHECK_MS, pruneMs = POSITION_PRUNE_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `fence: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'fence',
    });
    app.addHook('onReady', async () => {
      periodic.every(dwellCheckMs, 'dwell check', () => fences.confirmDue(), 'cluster');
      periodic.every(pruneMs, 'position prune', () => fences.prunePositions(), 'cluster');
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'fence-upkeep' },
);
