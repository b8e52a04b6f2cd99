import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { envelopeSchema, workbenchSummary } from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { WorkbenchService } from './service.ts';

/**
 * The workbench (issue 14): any signed-in user; each section is checked against the caller's permissions in the
 * service (a section the caller may not open is left out), and its rows against the caller's data scope.
 */
export const workbenchRoutes: FastifyPluginAsyncZod<{ workbench: WorkbenchService }> = async (app, { workbench }) => {
  app.get(
    '/workbench/summary',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['workbench'],
        summary: 'What needs the caller now: per section a count, the first items and the page listing them',
        response: { 200: envelopeSchema(workbenchSummary) },
      },
    },
    async (req) => ok(await workbench.summary(caller(req))),
  );
};
