import { defineModule } from '../../plugins/module.ts';
import { ensureSecret } from '../../lib/secrets.ts';
import { OrderService, PAY_PREFIX, createGateway, orderRoutes, orderSweep, paymentGatewayRoutes } from './index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    orders: OrderService;
  }
}

/** Top-up orders: the payment gateway, the close sweep, the gateway-facing routes under /pay. */
export const orderModule = defineModule({
  name: 'order',
  async setup(app, { db, events, link, config }) {
    const orders = new OrderService(
      db,
      events,
      link,
      createGateway(config, await ensureSecret(db, 'sandbox_pay_secret')),
      app.log.child({ module: 'order' }),
    );
    app.decorate('orders', orders);
    await app.register(orderSweep, { orders, everyS: config.ORDER_SWEEP_S });
  },
  root: async (app) => {
    await app.register(paymentGatewayRoutes, { prefix: PAY_PREFIX, orders: app.orders, origin: app.core.origin });
  },
  api: async (api) => {
    await api.register(orderRoutes, { db: api.core.db, orders: api.orders, origin: api.core.origin });
  },
});
