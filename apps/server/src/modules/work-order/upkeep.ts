import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Db } from '../../db/database.ts';
import { Periodic } from '../../lib/periodic.ts';
import type { WorkOrderService } from './service.ts';
import { closeResolvedOrders } from './sla.ts';

export const WORK_ORDER_SWEEP_MS = 60_000;

/** Runs the sweep every WORK_ORDER_SWEEP_MS on every node (the lock makes it once across nodes). */
export const workOrderUpkeep = fp<{ db: Db; orders: WorkOrderService; everyMs?: number }>(
  async (app: FastifyInstance, { db, orders, everyMs = WORK_ORDER_SWEEP_MS }) => {
    const periodic = new Periodic((err, job) => app.log.warn({ err }, `work orders: ${job} failed`), {
      locks: app.clusterLocks,
      scope: 'work orders',
    });
    app.addHook('onReady', async () => {
      periodic.every(everyMs, 'close-resolved', () => closeResolvedOrders(db, orders), 'cluster');
    });
    app.addHook('onClose', () => periodic.stop());
  },
  { name: 'work-order-upkeep' },
);
