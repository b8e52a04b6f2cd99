import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  PERMISSIONS,
  envelopeSchema,
  pagedEnvelope,
  permissionSectionView,
  roleCandidateQuery,
  roleCopyBody,
  roleCreateBody,
  roleDeleteBody,
  roleIdQuery,
  roleListQuery,
  roleMember,
  roleMemberQuery,
  roleMembersBody,
  roleUpdateBody,
  roleView,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { RoleService } from './service.ts';

const empty = envelopeSchema(z.null());
const tags = ['role'];
const edit = { permission: PERMISSIONS.roleEdit };

/** The role list and the catalogue also serve the user screen's role picker: system:user:edit reads them too. */
const readable = { config: { permission: [PERMISSIONS.roleEdit, PERMISSIONS.userEdit] } };

type App = Parameters<FastifyPluginAsyncZod>[0];

/** Reading roles: the list, the permission catalogue, one role. */
function readRoutes(app: App, roles: RoleService): void {
  app.get(
    '/system/role/list',
    {
      ...readable,
      schema: {
        tags,
        summary: "The tenant's roles, with their permissions, data scope and member count",
        querystring: roleListQuery.strict(),
        response: { 200: pagedEnvelope(roleView) },
      },
    },
    async (req) => ok(await roles.list(caller(req), req.query)),
  );
  app.get(
    '/system/role/permissions',
    {
      ...readable,
      schema: {
        tags,
        summary: 'The permission catalogue by section, as the caller may grant it (customers: tenant codes only)',
        response: { 200: envelopeSchema(z.array(permissionSectionView)) },
      },
    },
    async (req) => ok(roles.catalogue(caller(req))),
  );
  app.get(
    '/system/role/detail',
    {
      config: edit,
      schema: {
        tags,
        summary: 'One role',
        querystring: roleIdQuery.strict(),
        response: { 200: envelopeSchema(roleView) },
      },
    },
    async (req) => ok(await roles.detail(caller(req), req.query.id)),
  );
}

/** Changing roles: create, update, copy, delete. */
function editRoutes(app: App, roles: RoleService): void {
  app.post(
    '/system/role/create',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Create a role (only permissions the caller holds)',
        body: roleCreateBody,
        response: { 200: envelopeSchema(roleView) },
      },
    },
    async (req) => ok(await roles.create(caller(req), req.body, req.ip)),
  );
  app.post(
    '/system/role/update',
    {
      config: edit,
      schema: {
        tags,
        summary: "Change a role's name, code, description, data scope and permissions",
        body: roleUpdateBody,
        response: { 200: envelopeSchema(roleView) },
      },
    },
    async (req) => ok(await roles.update(caller(req), req.body, req.ip)),
  );
  app.post(
    '/system/role/copy',
    {
      config: edit,
      schema: {
        tags,
        summary: 'A new role with the same permissions and data scope',
        body: roleCopyBody,
        response: { 200: envelopeSchema(roleView) },
      },
    },
    async (req) => ok(await roles.copy(caller(req), req.body, req.ip)),
  );
  app.post(
    '/system/role/delete',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Delete a role; one with members needs reassignTo (409 otherwise)',
        body: roleDeleteBody,
        response: { 200: empty },
      },
    },
    async (req) => {
      await roles.remove(caller(req), req.body, req.ip);
      return ok(null);
    },
  );
}

/** A role's members: the list, the picker's candidates, adding and removing. */
function memberRoutes(app: App, roles: RoleService): void {
  app.get(
    '/system/role/members',
    {
      config: edit,
      schema: {
        tags,
        summary: "A role's members",
        querystring: roleMemberQuery.strict(),
        response: { 200: pagedEnvelope(roleMember) },
      },
    },
    async (req) => ok(await roles.memberList(caller(req), req.query)),
  );
  app.get(
    '/system/role/candidates',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Users of the tenant not yet in the role',
        querystring: roleCandidateQuery.strict(),
        response: { 200: envelopeSchema(z.array(roleMember)) },
      },
    },
    async (req) => ok(await roles.candidates(caller(req), req.query.id, req.query.keyword)),
  );
  app.post(
    '/system/role/addMembers',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Give the role to users of the tenant',
        body: roleMembersBody,
        response: { 200: empty },
      },
    },
    async (req) => {
      await roles.addMembers(caller(req), req.body.id, req.body.userIds, req.ip);
      return ok(null);
    },
  );
  app.post(
    '/system/role/removeMembers',
    {
      config: edit,
      schema: { tags, summary: 'Take the role from users', body: roleMembersBody, response: { 200: empty } },
    },
    async (req) => {
      await roles.removeMembers(caller(req), req.body.id, req.body.userIds, req.ip);
      return ok(null);
    },
  );
}

/** Roles of the caller's tenant under /system/role (issue 12). */
export const roleRoutes: FastifyPluginAsyncZod<{ roles: RoleService }> = async (app, { roles }) => {
  readRoutes(app, roles);
  editRoutes(app, roles);
  memberRoutes(app, roles);
};
