import type { FastifyBaseLogger } from 'fastify';
import type { OrderDetail, OrderState } from '@cpc/contracts';
import type { ConfigMsg } from '@cpc/contracts/device-protocol';
import type { Db } from '../../db/database.ts';
import type { AuthUser } from '../../plugins/auth.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import type { PaymentGateway } from './payment/index.ts';
import type { OrderRepository } from './repository/index.ts';

/** What fulfilment needs of the device link: one down/config message to a device. */
export interface SimDownlink {
  send(sn: string, kind: 'config', msg: ConfigMsg): Promise<void>;
}

/** What the order's use cases share: its statements, the gateway, the consoles, and reading and telling an order. */
export interface OrderContext {
  /** For the message centre's `sendMessages`. */
  db: Db;
  repo: OrderRepository;
  gateway: PaymentGateway;
  events: LiveEvents;
  link: SimDownlink;
  log: FastifyBaseLogger;
  detail(user: AuthUser, id: number, as?: 'reader' | 'buyer'): Promise<OrderDetail>;
  announce(id: number, orderNo: string, tenantId: number, state: OrderState): Promise<void>;
}
