import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PERMISSIONS, envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import { idBody } from '@cpc/contracts/device';
import {
  orderCreateBody,
  orderDetail,
  orderIdQuery,
  orderLinesBody,
  orderListQuery,
  orderPayBody,
  orderQuote,
  orderRefundBody,
  orderView,
  packageBody,
  packageEditBody,
  packageListQuery,
  packageShelfBody,
  packageView,
  payStart,
  simOption,
  simOptionsQuery,
} from '@cpc/contracts/order';
import type { Db } from '../../db/database.ts';
import { actorOf, caller, restrictToStaff } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import type { OrderService } from './service.ts';

const tags = ['order'];

type App = Parameters<FastifyPluginAsyncZod>[0];

const buy = { permission: PERMISSIONS.flowRateBuy };
const read = {
  permission: [PERMISSIONS.flowRateView, PERMISSIONS.flowRateBuy, PERMISSIONS.flowRateRefund],
};

/** Buying: the catalogue, the SIM picker, the quote and the order's creation. */
function buyRoutes(app: App, orders: OrderService): void {
  app.get(
    '/order/package/list',
    {
      config: { permission: [PERMISSIONS.flowRateGoods, PERMISSIONS.flowRateBuy] },
      schema: {
        tags,
        summary: 'Traffic packages: all (staff) or on sale, fitting a SIM (customers)',
        querystring: packageListQuery,
        response: { 200: pagedEnvelope(packageView) },
      },
    },
    async (req) => ok(await orders.listPackages(caller(req), req.query)),
  );
  app.get(
    '/order/sim/options',
    {
      config: buy,
      schema: {
        tags,
        summary: "The caller's SIMs to buy for (tenant and data scope)",
        querystring: simOptionsQuery,
        response: { 200: envelopeSchema(z.array(simOption)) },
      },
    },
    async (req) => ok(await orders.simOptions(caller(req), req.query)),
  );
  app.post(
    '/order/quote',
    {
      config: buy,
      schema: {
        tags,
        summary: 'Prices SIM × package lines from the catalogue, without ordering',
        body: orderLinesBody,
        response: { 200: envelopeSchema(orderQuote) },
      },
    },
    async (req) => ok(await orders.quote(caller(req), req.body.lines)),
  );
  app.post(
    '/order/create',
    {
      config: buy,
      schema: {
        tags,
        summary: 'Creates an order priced by the server; the same clientRequestId answers the same order',
        body: orderCreateBody,
        response: { 200: envelopeSchema(orderDetail) },
      },
    },
    async (req) => ok((await orders.create(caller(req), req.body, req.ip)).order),
  );
}

/** An order's life: paying, canceling, the list and one order. */
function orderLifeRoutes(app: App, orders: OrderService, origin: () => string): void {
  app.post(
    '/order/pay',
    {
      config: buy,
      schema: {
        tags,
        summary: "Starts payment of a pending order: the cashier's URL and QR content",
        body: orderPayBody,
        response: { 200: envelopeSchema(payStart) },
      },
    },
    async (req) =>
      ok(
        await orders.pay(caller(req), req.body.id, {
          // from configuration only: a forged Host would otherwise get the signed notification sent to it
          origin: origin(),
          lang: req.body.lang ?? 'zh',
          ip: req.ip,
        }),
      ),
  );
  app.post(
    '/order/cancel',
    {
      config: buy,
      schema: {
        tags,
        summary: 'Cancels a pending order',
        body: idBody,
        response: { 200: envelopeSchema(orderDetail) },
      },
    },
    async (req) => ok(await orders.cancel(caller(req), req.body.id, req.ip)),
  );
  app.get(
    '/order/list',
    {
      config: read,
      schema: {
        tags,
        summary: "Top-up records: the tenant's orders (staff with flowRate:refund: every tenant's)",
        querystring: orderListQuery,
        response: { 200: pagedEnvelope(orderView) },
      },
    },
    async (req) => ok(await orders.list(caller(req), req.query)),
  );
  app.get(
    '/order/detail',
    {
      config: read,
      schema: {
        tags,
        summary: 'One order: lines, payment, fulfilment per SIM, refund',
        querystring: orderIdQuery,
        response: { 200: envelopeSchema(orderDetail) },
      },
    },
    async (req) => ok(await orders.detail(caller(req), req.query.id)),
  );
}

/** A package's fields as the system log records them (no id or times). */
const fields = (p: Record<string, unknown>) => {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = p;
  return rest;
};

/** Writes a change of a package to the system log. */
const packageLog =
  (db: Db) =>
  async (
    req: FastifyRequest,
    action: string,
    id: number,
    before: Record<string, unknown>,
    after: Record<string, unknown>,
  ) =>
    audit(db, {
      ...actorOf(req),
      action,
      resource: 'traffic_package',
      resourceId: id,
      result: 'ok',
      changes: changedFields(before, after),
    });

/** The catalogue's upkeep (staff with flowRate:goods), each change in the system log. */
function packageRoutes(staff: App, orders: OrderService, db: Db): void {
  const goods = { permission: PERMISSIONS.flowRateGoods };
  const logPackage = packageLog(db);

  staff.post(
    '/order/package/create',
    {
      config: goods,
      schema: {
        tags,
        summary: 'Adds a traffic package (staff)',
        body: packageBody,
        response: { 200: envelopeSchema(packageView) },
      },
    },
    async (req) => {
      const p = await orders.createPackage(req.body);
      await logPackage(req, 'package.create', p.id, {}, fields(p));
      return ok(p);
    },
  );
  staff.post(
    '/order/package/update',
    {
      config: goods,
      schema: {
        tags,
        summary: 'Edits a traffic package (staff); orders keep the package as sold',
        body: packageEditBody,
        response: { 200: envelopeSchema(packageView) },
      },
    },
    async (req) => {
      const { before, after } = await orders.updatePackage(req.body);
      await logPackage(req, 'package.update', after.id, fields(before), fields(after));
      return ok(after);
    },
  );
  staff.post(
    '/order/package/shelf',
    {
      config: goods,
      schema: {
        tags,
        summary: 'Puts a traffic package on or off sale (staff)',
        body: packageShelfBody,
        response: { 200: envelopeSchema(packageView) },
      },
    },
    async (req) => {
      const { before, after } = await orders.updatePackage({ id: req.body.id, onShelf: req.body.onShelf });
      await logPackage(req, 'package.shelf', after.id, { onShelf: before.onShelf }, { onShelf: after.onShelf });
      return ok(after);
    },
  );
  staff.post(
    '/order/package/delete',
    {
      config: goods,
      schema: {
        tags,
        summary: 'Deletes a traffic package (staff); sold lines keep their copy',
        body: idBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      const before = await orders.deletePackage(req.body.id);
      await logPackage(req, 'package.delete', req.body.id, fields(before), {});
      return ok(null);
    },
  );
}

/** The console's order calls (under /apiAdmin): catalogue, SIM picker, quote, create, pay, list, refund. */
export const orderRoutes: FastifyPluginAsyncZod<{
  db: Db;
  orders: OrderService;
  /** The server's public origin (PUBLIC_URL, or the address it listens on): the cashier and notify URLs are under it. */
  origin: () => string;
}> = async (app, { db, orders, origin }) => {
  buyRoutes(app, orders);
  orderLifeRoutes(app, orders, origin);
  await app.register(async (scoped) => {
    const staff = scoped.withTypeProvider<ZodTypeProvider>();
    restrictToStaff(staff);
    packageRoutes(staff, orders, db);
    staff.post(
      '/order/refund',
      {
        config: { permission: PERMISSIONS.flowRateRefund },
        schema: {
          tags,
          summary: "Refunds a paid order's money through its provider, with a reason (staff)",
          body: orderRefundBody,
          response: { 200: envelopeSchema(orderDetail) },
        },
      },
      async (req) => ok(await orders.refund(caller(req), req.body.id, req.body.reason, req.ip)),
    );
  });
};
