import { defineModule } from '../../plugins/module.ts';
import { WorkOrderService, workOrderRoutes, workOrderUpkeep } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    workOrders: WorkOrderService;
  }
}

/** Work orders: the customers' questions and the staff's answers, with their deadlines. */
export const workOrderModule = defineModule({
  name: 'work-order',
  async setup(app, { db, storage, events }) {
    const orders = new WorkOrderService(db, storage, events);
    app.decorate('workOrders', orders);
    await app.register(workOrderUpkeep, { db, orders });
  },
  api: async (api) => {
    await api.register(workOrderRoutes, { orders: api.workOrders });
  },
});
