import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import {
  PERMISSIONS,
  deliveryItem,
  deliveryListQuery,
  envelopeSchema,
  pagedEnvelope,
  pushActionResult,
  pushBody,
  pushCancelBody,
  pushCreated,
  pushIdQuery,
  pushItem,
  pushListQuery,
  pushPreview,
  pushPreviewBody,
  pushRetried,
  pushRetryBody,
} from '@cpc/contracts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { PushCaller, PushService } from './service.ts';

const who = (req: FastifyRequest): PushCaller => {
  const u = caller(req);
  return { tenantId: u.tenantId, userId: u.id, ip: req.ip, access: dataAccessOf(u) };
};

type App = Parameters<FastifyPluginAsyncZod>[0];

const view = { permission: PERMISSIONS.pushView };
const edit = { permission: PERMISSIONS.pushEdit };
const tags = ['push'];

/** Previewing the targets and sending. */
function sendRoutes(app: App, pushes: PushService): void {
  app.post(
    '/push/preview',
    {
      config: view,
      schema: {
        tags,
        summary: 'How many devices the targets reach now (inside the caller’s data scope), and how many are online',
        body: pushPreviewBody,
        response: { 200: envelopeSchema(pushPreview) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await pushes.preview(u.scope, dataAccessOf(u), req.body.targets));
    },
  );
  app.post(
    '/push/create',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Sends a push now, or schedules it; a device or group of another account → 404, nothing sent',
        body: pushBody,
        response: { 200: envelopeSchema(pushCreated) },
      },
    },
    async (req) => ok(await pushes.create(who(req), req.body)),
  );
}

/** The pushes, one push and its deliveries (image links signed with `signed`). */
function readRoutes(app: App, pushes: PushService, signed: (key: string) => string): void {
  app.get(
    '/push/list',
    {
      config: view,
      schema: {
        tags,
        summary: 'Pushes, newest first, with their counts per delivery state',
        querystring: pushListQuery,
        response: { 200: pagedEnvelope(pushItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await pushes.list(u.scope, dataAccessOf(u), req.query, signed));
    },
  );
  app.get(
    '/push/detail',
    {
      config: view,
      schema: {
        tags,
        summary: 'One push with its counts per delivery state',
        querystring: pushIdQuery,
        response: { 200: envelopeSchema(pushItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await pushes.detail(u.scope, dataAccessOf(u), req.query.id, signed));
    },
  );
  app.get(
    '/push/deliveries',
    {
      config: view,
      schema: {
        tags,
        summary: 'A push’s per-device deliveries (filter by state)',
        querystring: deliveryListQuery,
        response: { 200: pagedEnvelope(deliveryItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await pushes.deliveries(u.scope, dataAccessOf(u), req.query));
    },
  );
}

/** Retrying the undelivered and canceling a scheduled push. */
function actionRoutes(app: App, pushes: PushService): void {
  app.post(
    '/push/retry',
    {
      config: edit,
      schema: {
        tags,
        summary: 'New tasks for the devices that have not displayed the push (with a new expiry once it expired)',
        body: pushRetryBody,
        response: { 200: envelopeSchema(pushRetried) },
      },
    },
    async (req) => ok(await pushes.retry(who(req), req.body.id, req.body.expireAt)),
  );
  app.post(
    '/push/cancel',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Cancels a scheduled push before it starts',
        body: pushCancelBody,
        response: { 200: envelopeSchema(pushActionResult) },
      },
    },
    async (req) => ok(await pushes.cancel(who(req), req.body.id)),
  );
}

/** Push tasks and push query (issue 16; the table of calls is in contracts push.ts). */
export const pushRoutes: FastifyPluginAsyncZod<{
  pushes: PushService;
  storage: Pick<ObjectStorage, 'signedUrl'>;
}> = async (app, { pushes, storage }) => {
  sendRoutes(app, pushes);
  readRoutes(app, pushes, (key: string) => storage.signedUrl(key));
  actionRoutes(app, pushes);
};
