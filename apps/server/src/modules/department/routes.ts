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
import { caller, hasPermission } from '../../plugins/auth.ts';
import { AppError, ok } from '../../plugins/errors.ts';
import type { DepartmentService } from './service.ts';

const tags = ['department'];
/** Reading the tree: the department screen, the user forms (a user's department), the device screens (names). */
const TREE_READERS = [PERMISSIONS.departmentEdit, PERMISSIONS.userEdit, PERMISSIONS.deviceView];

/** The caller's tenant's department tree (issue 12). */
export const departmentRoutes: FastifyPluginAsyncZod<{ departments: DepartmentService }> = async (
  app,
  { departments },
) => {
  const edit = { permission: PERMISSIONS.departmentEdit };
  app.get(
    '/system/department/tree',
    {
      // any of three permissions: checked in the handler, so the route is declared signed-in
      config: { access: 'signedIn' },
      schema: {
        tags,
        summary: 'The department tree with the users and devices of each (department, user or device rights)',
        response: { 200: envelopeSchema(departmentTree) },
      },
    },
    async (req) => {
      const u = caller(req);
      if (!TREE_READERS.some((p) => hasPermission(u, p)))
        throw new AppError(403, 'auth.permissionRequired', { permission: PERMISSIONS.departmentEdit });
      return ok(await departments.tree(u));
    },
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
