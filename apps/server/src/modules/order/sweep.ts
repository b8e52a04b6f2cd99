import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Periodic } from '../../lib/periodic.ts';
import type { OrderService } from './service.ts';

/** Closes unpaid orders past their 15 minutes every `everyS`: an idempotent UPDATE, safe on N nodes. */
export const orderSweep = fp(async (app: FastifyInstance, opts: { orders: OrderService; everyS: number }) => {
  const periodic = new Periodic((err, job) => app.log.warn({ err, job }, 'order sweep failed'), {
    locks: app.clusterLocks,
    scope: 'orders',
  });
  app.addHook('onReady', async () => {
    periodic.every(opts.everyS * 1000, 'order-close', () => opts.orders.closeExpired(), 'cluster');
  });
  app.addHook('onClose', () => periodic.stop());
});
