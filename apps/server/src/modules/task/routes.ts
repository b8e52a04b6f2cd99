import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  PERMISSIONS,
  batchIdParams,
  batchListQuery,
  batchView,
  cancelResult,
  commandBody,
  commandResult,
  envelopeSchema,
  pagedEnvelope,
  taskIdParams,
  taskItem,
  taskListQuery,
} from '@cpc/contracts';
import { caller, hasPermission } from '../../plugins/auth.ts';
import { AppError, ok } from '../../plugins/errors.ts';
import type { TaskService } from './service.ts';
import { dataAccessOf, inDataScope, narrowedDevices } from '../../lib/data-scope.ts';

const tags = ['device task'];
const COMMAND_PERMISSION = { reboot: PERMISSIONS.deviceReboot, shutdown: PERMISSIONS.deviceShutdown } as const;

/** Commands and tasks of the caller's devices (DESIGN §6); every id is checked against the tenant (404 otherwise). */
export const taskRoutes: FastifyPluginAsyncZod<{ tasks: TaskService }> = async (app, opts) => {
  await app.register(commandRoutes, opts);
  await app.register(taskListRoutes, opts);
};

/** Reboot and shutdown: the permission the command needs is checked in the handler. */
const commandRoutes: FastifyPluginAsyncZod<{ tasks: TaskService }> = async (app, { tasks }) => {
  app.post(
    '/device/command',
    {
      // one of the two at the gate; the handler checks the one the command needs
      config: { permission: [PERMISSIONS.deviceReboot, PERMISSIONS.deviceShutdown] },
      schema: {
        tags,
        summary: 'Send reboot or shutdown to 1-500 devices: one task per device, a batch for several',
        body: commandBody,
        response: { 200: envelopeSchema(commandResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      // the permission depends on the command, so it is checked here rather than in the route config
      const permission = COMMAND_PERMISSION[req.body.type];
      if (!hasPermission(u, permission)) throw new AppError(403, 'auth.permissionRequired', { permission });
      const devices = inDataScope(dataAccessOf(u));
      return ok(await tasks.createCommands({ ...u, devices }, req.body, req.ip));
    },
  );
};

/** The account's tasks and batches, within the caller's data scope. */
const taskListRoutes: FastifyPluginAsyncZod<{ tasks: TaskService }> = async (app, { tasks }) => {
  app.get(
    '/device/task/list',
    {
      config: { permission: PERMISSIONS.deviceTask },
      schema: {
        tags,
        summary: 'Tasks of the account, newest first',
        querystring: taskListQuery,
        response: { 200: pagedEnvelope(taskItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await tasks.list(u.scope, req.query, inDataScope(dataAccessOf(u))));
    },
  );

  app.get(
    '/device/task/batch/list',
    {
      config: { permission: PERMISSIONS.deviceTask },
      schema: {
        tags,
        summary: 'Batches of the account, newest first, each with how many of its tasks are in each state',
        querystring: batchListQuery,
        response: { 200: pagedEnvelope(batchView) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await tasks.batches(u.scope, req.query, narrowedDevices(dataAccessOf(u))));
    },
  );

  app.get(
    '/device/task/batch/:id',
    {
      config: { permission: PERMISSIONS.deviceTask },
      schema: {
        tags,
        summary: 'A batch and how many of its tasks are in each state',
        params: batchIdParams,
        response: { 200: envelopeSchema(batchView) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await tasks.batch(u.scope, req.params.id, narrowedDevices(dataAccessOf(u))));
    },
  );

  app.post(
    '/device/task/:id/cancel',
    {
      config: { permission: PERMISSIONS.deviceTask },
      schema: {
        tags,
        summary: 'Cancel a task that has not finished',
        params: taskIdParams,
        response: { 200: envelopeSchema(cancelResult) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await tasks.cancel(u.scope, req.params.id, inDataScope(dataAccessOf(u))));
    },
  );
};
