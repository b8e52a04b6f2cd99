import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  PERMISSIONS,
  envelopeSchema,
  pagedEnvelope,
  roleChoice,
  subAccountCreateBody,
  subAccountIdBody,
  subAccountListQuery,
  subAccountPasswordBody,
  subAccountStateBody,
  subAccountUpdateBody,
  subAccountView,
} from '@cpc/contracts';
import { caller, restrictToStaff } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { SubAccountService } from './sub-account-service.ts';

const empty = envelopeSchema(z.null());

type App = Parameters<FastifyPluginAsyncZod>[0];
const tags = ['user'];
const config = { permission: PERMISSIONS.userEdit };

/** The managed users and the roles they may be given. */
function readRoutes(app: App, subAccounts: SubAccountService, base: string, who: string): void {
  app.get(
    `${base}/list`,
    {
      config,
      schema: {
        tags,
        summary: `The tenant's ${who}s: search by name, mobile, state, department (and below), role; paged`,
        querystring: subAccountListQuery,
        response: { 200: pagedEnvelope(subAccountView) },
      },
    },
    async (req) => ok(await subAccounts.list(caller(req), req.query)),
  );
  app.get(
    `${base}/roles`,
    {
      config,
      schema: {
        tags,
        summary: `The roles of the tenant a ${who} may be given`,
        response: { 200: envelopeSchema(z.array(roleChoice)) },
      },
    },
    async (req) => ok(await subAccounts.roles(caller(req))),
  );
}

/** Creating and changing a managed user. */
function editRoutes(app: App, subAccounts: SubAccountService, base: string, who: string): void {
  app.post(
    `${base}/create`,
    {
      config,
      schema: {
        tags,
        summary: `Create a ${who} with an initial password, roles (only what the caller holds) and a department`,
        body: subAccountCreateBody,
        response: { 200: envelopeSchema(subAccountView) },
      },
    },
    async (req) => ok(await subAccounts.create(caller(req), req.body, req.ip)),
  );
  app.post(
    `${base}/update`,
    {
      config,
      schema: {
        tags,
        summary: `Change a ${who}'s nickname, mobile, e-mail, department and roles (never one's own roles)`,
        body: subAccountUpdateBody,
        response: { 200: envelopeSchema(subAccountView) },
      },
    },
    async (req) => ok(await subAccounts.update(caller(req), req.body, req.ip)),
  );
}

/** A managed user's access: enabled or not, a new password, force logout, deletion. */
function accessRoutes(app: App, subAccounts: SubAccountService, base: string, who: string): void {
  app.post(
    `${base}/state`,
    {
      config,
      schema: {
        tags,
        summary: `Enable or disable a ${who}; disabling ends its sessions (never oneself, never the last administrator)`,
        body: subAccountStateBody,
        response: { 200: envelopeSchema(subAccountView) },
      },
    },
    async (req) => ok(await subAccounts.setState(caller(req), req.body.id, req.body.state, req.ip)),
  );
  app.post(
    `${base}/resetPassword`,
    {
      config,
      schema: {
        tags,
        summary: `Set a new password for a ${who}; its sessions end`,
        body: subAccountPasswordBody,
        response: { 200: empty },
      },
    },
    async (req) => {
      await subAccounts.resetPassword(caller(req), req.body.id, req.body.password, req.ip);
      return ok(null);
    },
  );
  app.post(
    `${base}/logout`,
    {
      config,
      schema: {
        tags,
        summary: `Force a ${who} to log out: every session of it ends`,
        body: subAccountIdBody,
        response: { 200: envelopeSchema(z.object({ sessions: z.number().int() })) },
      },
    },
    async (req) => ok({ sessions: await subAccounts.logout(caller(req), req.body.id, req.ip) }),
  );
  app.post(
    `${base}/delete`,
    {
      config,
      schema: {
        tags,
        summary: `Delete a ${who} (never oneself, never the last administrator)`,
        body: subAccountIdBody,
        response: { 200: empty },
      },
    },
    async (req) => {
      await subAccounts.remove(caller(req), req.body.id, req.ip);
      return ok(null);
    },
  );
}

/**
 * The tenant's users (issue 12), under `base`: `/system/subAccount` for a customer's sub-accounts (the hidden
 * /person/subAccount page and the user screen; a staff caller reaches the staff users there, as before),
 * `/system/user` for the platform's staff users (`staff`: platform only). Every route needs `system:user:edit` (a customer's main account holds it); the service keeps a
 * caller off its own account, off users holding more than it does and off the last administrator.
 */
export const subAccountRoutes: FastifyPluginAsyncZod<{
  subAccounts: SubAccountService;
  base: '/system/subAccount' | '/system/user';
  staff?: boolean;
}> = async (app, { subAccounts, base, staff }) => {
  const who = staff ? 'staff user' : 'sub-account';
  // staff routes: a customer holding system:user:edit is still refused (after validation, so a bad body or a
  // bad payload-crypto header is answered as such first)
  if (staff) restrictToStaff(app);

  readRoutes(app, subAccounts, base, who);
  editRoutes(app, subAccounts, base, who);
  accessRoutes(app, subAccounts, base, who);
};
