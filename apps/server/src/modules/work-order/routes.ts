import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  PERMISSIONS,
  cannedReply,
  cannedReplyBody,
  cannedReplyEditBody,
  envelopeSchema,
  pagedEnvelope,
  workOrderAssignBody,
  workOrderBody,
  workOrderDetail,
  workOrderEditBody,
  workOrderItem,
  workOrderListQuery,
  workOrderRateBody,
  workOrderReplyBody,
  workOrderTarget,
  workOrderTargetsBody,
} from '@cpc/contracts';
import { id, keywordField, queryId } from '@cpc/contracts/device';
import { caller, hasPermission } from '../../plugins/auth.ts';
import { AppError, ok } from '../../plugins/errors.ts';
import { callerOf, type WorkOrderService } from './service.ts';

const TAGS = ['work-order'];
const idBody = z.object({ id }).strict();
const idQuery = z.object({ id: queryId }).strict();
const person = z.object({ id: z.number().int(), name: z.string() });
const options = z.object({
  devices: z.array(z.object({ id: z.number().int(), sn: z.string(), name: z.string() })),
  orders: z.array(z.object({ id: z.number().int(), orderNo: z.string() })),
});

type App = Parameters<FastifyPluginAsyncZod>[0];
type Routes = (app: App, orders: WorkOrderService) => void;

/** The caller, held to its side's permission: customers `customer`, staff workOrder:handle. */
const who = (req: FastifyRequest, customer: string) => {
  const c = callerOf(caller(req), req.ip);
  const needed = c.staff ? PERMISSIONS.workOrderHandle : customer;
  if (!hasPermission(c.user, needed)) throw new AppError(403, 'auth.permissionRequired', { permission: needed });
  return c;
};
const reading = [PERMISSIONS.workOrderView, PERMISSIONS.workOrderHandle];
const writing = [PERMISSIONS.workOrderEdit, PERMISSIONS.workOrderHandle];
const staffOnly = (req: FastifyRequest) => {
  const c = callerOf(caller(req), req.ip);
  if (!c.staff) throw new AppError(403, 'auth.staffOnly');
  return c;
};
const detail = envelopeSchema(workOrderDetail);

/** Reading, both sides: the list (staff: the queue), one order, marking it read. */
const readingRoutes: Routes = (app, orders) => {
  app.get(
    '/workOrder/list',
    {
      config: { permission: reading },
      schema: {
        tags: TAGS,
        summary: "Work orders: a customer's within its data scope, or (staff) every tenant's queue",
        querystring: workOrderListQuery,
        response: { 200: pagedEnvelope(workOrderItem) },
      },
    },
    async (req) => ok(await orders.list(who(req, PERMISSIONS.workOrderView), req.query)),
  );
  app.get(
    '/workOrder/detail',
    {
      config: { permission: reading },
      schema: {
        tags: TAGS,
        summary: 'One work order with its timeline (internal notes for staff only)',
        querystring: idQuery,
        response: { 200: detail },
      },
    },
    async (req) => ok(await orders.detail(who(req, PERMISSIONS.workOrderView), req.query.id)),
  );
  app.post(
    '/workOrder/read',
    {
      config: { permission: reading },
      schema: {
        tags: TAGS,
        summary: "Mark the caller's side of a work order read",
        body: idBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      await orders.read(who(req, PERMISSIONS.workOrderView), req.body.id);
      return ok(null);
    },
  );
};

/** A customer's order: opening, editing, withdrawing, reopening, closing it. */
const customerRoutes: Routes = (app, orders) => {
  app.post(
    '/workOrder/create',
    {
      config: { permission: PERMISSIONS.workOrderEdit },
      schema: { tags: TAGS, summary: 'Open a work order', body: workOrderBody, response: { 200: detail } },
    },
    async (req) => {
      const c = who(req, PERMISSIONS.workOrderEdit);
      return ok(await orders.detail(c, await orders.create(c, req.body)));
    },
  );
  app.post(
    '/workOrder/update',
    {
      config: { permission: PERMISSIONS.workOrderEdit },
      schema: {
        tags: TAGS,
        summary: 'Edit a work order staff have not taken yet',
        body: workOrderEditBody,
        response: { 200: detail },
      },
    },
    async (req) => {
      const c = who(req, PERMISSIONS.workOrderEdit);
      await orders.update(c, req.body);
      return ok(await orders.detail(c, req.body.id));
    },
  );
  for (const action of ['withdraw', 'reopen', 'close'] as const) {
    app.post(
      `/workOrder/${action}`,
      {
        config: { permission: PERMISSIONS.workOrderEdit },
        schema: {
          tags: TAGS,
          summary: {
            withdraw: 'Withdraw a work order staff have not taken yet',
            reopen: 'Reopen a resolved work order (within WORK_ORDER_REOPEN_DAYS of its resolution)',
            close: 'Close a resolved work order',
          }[action],
          body: idBody,
          response: { 200: detail },
        },
      },
      async (req) => {
        const c = who(req, PERMISSIONS.workOrderEdit);
        await orders.change(c, req.body.id, action);
        return ok(await orders.detail(c, req.body.id));
      },
    );
  }
};

/** Rating a closed order (customers); replying (both sides). */
const answerRoutes: Routes = (app, orders) => {
  app.post(
    '/workOrder/rate',
    {
      config: { permission: PERMISSIONS.workOrderEdit },
      schema: { tags: TAGS, summary: 'Rate a closed work order', body: workOrderRateBody, response: { 200: detail } },
    },
    async (req) => {
      const c = who(req, PERMISSIONS.workOrderEdit);
      await orders.rate(c, req.body.id, req.body.rating, req.body.comment);
      return ok(await orders.detail(c, req.body.id));
    },
  );
  app.post(
    '/workOrder/reply',
    {
      config: { permission: writing },
      schema: {
        tags: TAGS,
        summary: 'Reply (customers), or reply, ask, note or resolve (staff)',
        body: workOrderReplyBody,
        response: { 200: detail },
      },
    },
    async (req) => {
      const c = who(req, PERMISSIONS.workOrderEdit);
      await orders.reply(c, req.body);
      return ok(await orders.detail(c, req.body.id));
    },
  );
};

/** Staff: taking, assigning and resolving an order; who may handle one. */
const staffRoutes: Routes = (app, orders) => {
  app.post(
    '/workOrder/take',
    {
      config: { permission: PERMISSIONS.workOrderHandle },
      schema: {
        tags: TAGS,
        summary: 'Take a work order (assign it to oneself)',
        body: idBody,
        response: { 200: detail },
      },
    },
    async (req) => {
      const c = staffOnly(req);
      await orders.change(c, req.body.id, 'take');
      return ok(await orders.detail(c, req.body.id));
    },
  );
  app.post(
    '/workOrder/assign',
    {
      config: { permission: PERMISSIONS.workOrderHandle },
      schema: {
        tags: TAGS,
        summary: 'Assign a work order to a staff member, or back to the queue (null)',
        body: workOrderAssignBody,
        response: { 200: detail },
      },
    },
    async (req) => {
      const c = staffOnly(req);
      await orders.assign(c, req.body.id, req.body.assigneeId);
      return ok(await orders.detail(c, req.body.id));
    },
  );
  app.post(
    '/workOrder/resolve',
    {
      config: { permission: PERMISSIONS.workOrderHandle },
      schema: {
        tags: TAGS,
        summary: 'Resolve a work order, with an optional last reply',
        body: workOrderReplyBody,
        response: { 200: detail },
      },
    },
    async (req) => {
      const c = staffOnly(req);
      await orders.reply(c, { ...req.body, action: 'resolve' });
      return ok(await orders.detail(c, req.body.id));
    },
  );
  app.get(
    '/workOrder/assignees',
    {
      config: { permission: PERMISSIONS.workOrderHandle },
      schema: {
        tags: TAGS,
        summary: 'Staff members who may handle work orders',
        response: { 200: envelopeSchema(z.array(person)) },
      },
    },
    async (req) => {
      staffOnly(req);
      return ok(await orders.assignees());
    },
  );
};

/** Staff: the first-response and resolution targets per priority. */
const targetRoutes: Routes = (app, orders) => {
  app.get(
    '/workOrder/targets',
    {
      config: { permission: [PERMISSIONS.workOrderHandle, PERMISSIONS.workOrderSettings] },
      schema: {
        tags: TAGS,
        summary: 'First-response and resolution targets per priority',
        response: { 200: envelopeSchema(z.array(workOrderTarget)) },
      },
    },
    async (req) => {
      staffOnly(req);
      return ok(await orders.targets());
    },
  );
  app.post(
    '/workOrder/targets',
    {
      config: { permission: PERMISSIONS.workOrderSettings },
      schema: {
        tags: TAGS,
        summary: 'Set targets per priority (they apply to work orders opened from then on)',
        body: workOrderTargetsBody,
        response: { 200: envelopeSchema(z.array(workOrderTarget)) },
      },
    },
    async (req) => ok(await orders.setTargets(staffOnly(req), req.body.targets)),
  );
};

/** Staff: canned replies, shared and one's own. */
const cannedRoutes: Routes = (app, orders) => {
  const canned = [PERMISSIONS.workOrderHandle, PERMISSIONS.workOrderSettings];
  app.get(
    '/workOrder/canned/list',
    {
      config: { permission: canned },
      schema: {
        tags: TAGS,
        summary: "Canned replies: the shared ones and the caller's own",
        response: { 200: envelopeSchema(z.array(cannedReply)) },
      },
    },
    async (req) => ok(await orders.cannedList(staffOnly(req))),
  );
  app.post(
    '/workOrder/canned/create',
    {
      config: { permission: canned },
      schema: {
        tags: TAGS,
        summary: 'A canned reply of one’s own (workOrder:handle) or shared (workOrder:settings)',
        body: cannedReplyBody,
        response: { 200: envelopeSchema(cannedReply) },
      },
    },
    async (req) => ok(await orders.cannedCreate(staffOnly(req), req.body)),
  );
  app.post(
    '/workOrder/canned/update',
    {
      config: { permission: canned },
      schema: {
        tags: TAGS,
        summary: 'Edit a canned reply',
        body: cannedReplyEditBody,
        response: { 200: envelopeSchema(cannedReply) },
      },
    },
    async (req) => ok(await orders.cannedUpdate(staffOnly(req), req.body)),
  );
  app.post(
    '/workOrder/canned/delete',
    {
      config: { permission: canned },
      schema: {
        tags: TAGS,
        summary: 'Delete a canned reply',
        body: idBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      await orders.cannedDelete(staffOnly(req), req.body.id);
      return ok(null);
    },
  );
};

/** What a customer may name in an order. */
const optionRoutes: Routes = (app, orders) => {
  app.get(
    '/workOrder/options',
    {
      config: { permission: PERMISSIONS.workOrderEdit },
      schema: {
        tags: TAGS,
        summary: 'The devices (within the data scope) and orders a customer may name, 20 of each',
        querystring: z.object({ keyword: keywordField }).strict(),
        response: { 200: envelopeSchema(options) },
      },
    },
    async (req) => ok(await orders.options(who(req, PERMISSIONS.workOrderEdit), req.query.keyword)),
  );
};

/**
 * Work orders (issue 14). One set of routes for both sides, answering by who calls:
 * - a customer (its tenant; its roles' data scope) reads with workOrder:view and writes with workOrder:edit;
 * - staff (the platform tenant) read and write every tenant's orders with workOrder:handle, and only with it:
 *   a staff member without it gets 403 on every call, also when its role holds workOrder:view or :edit.
 * `/workOrder/list` for staff is the queue: every tenant, with the `tenantId`, `assignee` and `overdue` filters.
 */
export const workOrderRoutes: FastifyPluginAsyncZod<{ orders: WorkOrderService }> = async (app, { orders }) => {
  for (const routes of [
    readingRoutes,
    customerRoutes,
    answerRoutes,
    staffRoutes,
    targetRoutes,
    cannedRoutes,
    optionRoutes,
  ])
    routes(app, orders);
};
