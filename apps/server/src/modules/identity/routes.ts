import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  PERMISSIONS,
  authenticateState,
  envelopeSchema,
  identityApproveBody,
  identityBody,
  identityListQuery,
  identityRejectBody,
  identityView,
  pagedEnvelope,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { IdentityService } from './service.ts';

export const identityRoutes: FastifyPluginAsyncZod<{ identity: IdentityService }> = async (app, { identity }) => {
  app.get(
    '/user/v1/user/authenticate',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['identity'],
        summary: 'The tenant identity authentication status and latest submission',
        response: { 200: envelopeSchema(authenticateState) },
      },
    },
    async (req) => ok(await identity.state(caller(req))),
  );

  app.post(
    '/user/v1/user/authenticate',
    {
      config: { access: 'signedIn' },
      // the account rule answers before the body is validated: a sub-account learns it may not, not what to fix
      onRequest: async (req) => IdentityService.assertMaySubmit(caller(req)),
      schema: {
        tags: ['identity'],
        summary: 'Submit the identity authentication (main account of a customer only)',
        body: identityBody,
        response: { 200: envelopeSchema(authenticateState) },
      },
    },
    async (req) => ok(await identity.submit(caller(req), req.body, req.ip)),
  );

  const review = { permission: PERMISSIONS.identityReview };
  app.get(
    '/system/identity/list',
    {
      config: review,
      schema: {
        tags: ['identity'],
        summary: 'Identity submissions (staff)',
        querystring: identityListQuery,
        response: { 200: pagedEnvelope(identityView) },
      },
    },
    async (req) => ok(await identity.list(req.query)),
  );
  app.post(
    '/system/identity/approve',
    {
      config: review,
      schema: {
        tags: ['identity'],
        summary: 'Approve a submission (staff)',
        body: identityApproveBody,
        response: { 200: envelopeSchema(identityView) },
      },
    },
    async (req) => ok(await identity.review(caller(req), req.body.id, 'approve', null, req.ip)),
  );
  app.post(
    '/system/identity/reject',
    {
      config: review,
      schema: {
        tags: ['identity'],
        summary: 'Reject a submission with a reason (staff)',
        body: identityRejectBody,
        response: { 200: envelopeSchema(identityView) },
      },
    },
    async (req) => ok(await identity.review(caller(req), req.body.id, 'reject', req.body.reason, req.ip)),
  );
};
