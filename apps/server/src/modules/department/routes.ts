import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  PERMISSIONS,
  departmentAddBody,
  departmentEditBody,
  departmentIdBody,
  departmentTree,
  departmentView,
  envelopeSchema,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { LiveEvents } from '../../plugins/live-events.ts';
import type { DepartmentService } from './service.ts';

const tags = ['department'];
/** Reading the tree: the department screen, the user forms (a user's department), the device screens (names). */
const TREE_READERS = [PERMISSIONS.departmentEdit, PERMISSIONS.userEdit, PERMISSIONS.deviceView];

/** The caller's tenant's department tree (issue 12). */
export const departmentRoutes: FastifyPluginAsyncZod<{ departments: DepartmentService; events: LiveEvents }> = async (
  app,
  { departments, events },
) => {
  const edit = { permission: PERMISSIONS.departmentEdit };
  // every console of the tenant that shows the tree (the screen, the pickers, department names) reads it again
  app.addHook('onResponse', async (req, reply) => {
    if (req.method === 'POST' && reply.statusCode === 200 && req.user)
      events.publish(req.user.tenantId, { type: 'department', data: {} });
  });
  app.get(
    '/system/department/tree',
    {
      // any one of the three at the gate
      config: { permission: TREE_READERS },
      schema: {
        tags,
        summary: 'The department tree with the users and devices of each (department, user or device rights)',
        response: { 200: envelopeSchema(departmentTree) },
      },
    },
    async (req) => ok(await departments.tree(caller(req))),
  );
  app.post(
    '/system/department/add',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Add a department',
        body: departmentAddBody,
        response: { 200: envelopeSchema(departmentView) },
      },
    },
    async (req) => ok(await departments.add({ user: caller(req), ip: req.ip }, req.body)),
  );
  app.post(
    '/system/department/edit',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Rename, move (no cycles) or reorder a department',
        body: departmentEditBody,
        response: { 200: envelopeSchema(departmentView) },
      },
    },
    async (req) => ok(await departments.edit({ user: caller(req), ip: req.ip }, req.body)),
  );
  app.post(
    '/system/department/delete',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Delete a department without sub-departments, users or devices (409 otherwise)',
        body: departmentIdBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      await departments.remove({ user: caller(req), ip: req.ip }, req.body.id);
      return ok(null);
    },
  );
};
