/** The order module's public entry: packages ("mall goods"), orders, payment, fulfilment (issue 13). */
export { orderRoutes } from './routes.ts';
export { paymentGatewayRoutes, PAY_PREFIX } from './gateway-routes.ts';
export { OrderService, type SimDownlink } from './service.ts';
export { createGateway } from './payment/index.ts';
export { orderSweep } from './sweep.ts';
