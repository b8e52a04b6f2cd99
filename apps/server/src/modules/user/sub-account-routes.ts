import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  PERMISSIONS,
  envelopeSchema,
  pagedEnvelope,
  roleOption,
  subAccountCreateBody,
  subAccountIdBody,
  subAccountListQuery,
  subAccountPasswordBody,
  subAccountStateBody,
  subAccountUpdateBody,
  subAccountView,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { AppError, ok } from '../../plugins/errors.ts';
import type { SubAccountService } from './sub-account-service.ts';

const empty = envelopeSchema(z.null());
const tags = ['sub-account'];

/** Sub-accounts under /system/subAccount (DESIGN §3, §5): only a main account (is_super = 1) may call them. */
export const subAccountRoutes: FastifyPluginAsyncZod<{ subAccounts: SubAccountService }> = async (
  app,
  { subAccounts },
) => {
  // onRequest runs after authentication and before validation: a sub-account gets 403 whatever it sends
  app.addHook('onRequest', async (req) => {
    if (!req.routeOptions.url) return;
    if (caller(req).isSuper !== 1) throw new AppError(403, 'user.mainAccountOnly');
  });

  app.get(
    '/system/subAccount/list',
    {
      config: { permission: PERMISSIONS.userEdit },
      schema: {
        tags,
        summary: "The tenant's sub-accounts (main account only)",
        querystring: subAccountListQuery,
        response: { 200: pagedEnvelope(subAccountView) },
      },
    },
    async (req) => ok(await subAccounts.list(caller(req), req.query)),
  );
  app.get(
    '/system/subAccount/roles',
    {
      config: { permission: PERMISSIONS.userEdit },
      schema: {
        tags,
        summary: 'The roles of the tenant a sub-account may be given',
        response: { 200: envelopeSchema(z.array(roleOption)) },
      },
    },
    async (req) => ok(await subAccounts.roles(caller(req))),
  );
  app.post(
    '/system/subAccount/create',
    {
      config: { permission: PERMISSIONS.userEdit },
      schema: {
        tags,
        summary: 'Create a sub-account with an initial password and roles',
        body: subAccountCreateBody,
        response: { 200: envelopeSchema(subAccountView) },
      },
    },
    async (req) => ok(await subAccounts.create(caller(req), req.body, req.ip)),
  );
  app.post(
    '/system/subAccount/update',
    {
      config: { permission: PERMISSIONS.userEdit },
      schema: {
        tags,
        summary: "Change a sub-account's nickname, mobile, e-mail and roles",
        body: subAccountUpdateBody,
        response: { 200: envelopeSchema(subAccountView) },
      },
    },
    async (req) => ok(await subAccounts.update(caller(req), req.body, req.ip)),
  );
  app.post(
    '/system/subAccount/state',
    {
      config: { permission: PERMISSIONS.userEdit },
      schema: {
        tags,
        summary: 'Enable or disable a sub-account; disabling ends its sessions',
        body: subAccountStateBody,
        response: { 200: envelopeSchema(subAccountView) },
      },
    },
    async (req) => ok(await subAccounts.setState(caller(req), req.body.id, req.body.state, req.ip)),
  );
  app.post(
    '/system/subAccount/resetPassword',
    {
      config: { permission: PERMISSIONS.userEdit },
      schema: {
        tags,
        summary: 'Set a new password for a sub-account; its sessions end',
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
    '/system/subAccount/delete',
    {
      config: { permission: PERMISSIONS.userEdit },
      schema: { tags, summary: 'Delete a sub-account', body: subAccountIdBody, response: { 200: empty } },
    },
    async (req) => {
      await subAccounts.remove(caller(req), req.body.id, req.ip);
      return ok(null);
    },
  );
};
