import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PERMISSIONS, envelopeSchema } from '@cpc/contracts';
import { dashboardOverview, dashboardQuery, targetBody, trend } from '@cpc/contracts/dashboard';
import { caller } from '../../plugins/auth.ts';
import { badRequest, ok } from '../../plugins/errors.ts';
import type { DashboardService } from './service.ts';

/** The home dashboard's data (SPEC §2): one call for every widget, and the trend alone to switch hour/day. */
export const dashboardRoutes: FastifyPluginAsyncZod<{ dashboard: DashboardService }> = async (app, { dashboard }) => {
  const config = { permission: PERMISSIONS.deviceView };
  // A zone the runtime knows but this PostgreSQL's zone table does not is still the caller's bad input.
  const zoneKnown = <T>(p: Promise<T>) =>
    p.catch((e: { code?: string; message?: string }) => {
      if (e.code === '22023' && /time zone/i.test(e.message ?? '')) throw badRequest('tz', 'dashboard.unknownTimeZone');
      throw e;
    });
  app.get(
    '/dashboard/overview',
    {
      config,
      schema: {
        tags: ['dashboard'],
        summary: 'Every dashboard widget of the account: cards, provinces, trend, rankings, installs, remind, versions',
        querystring: dashboardQuery,
        response: { 200: envelopeSchema(dashboardOverview) },
      },
    },
    async (req) => ok(await zoneKnown(dashboard.overview(caller(req), req.query.tz, req.query.unit))),
  );
  app.get(
    '/dashboard/trend',
    {
      config,
      schema: {
        tags: ['dashboard'],
        summary: 'Online devices and tasks per hour or day over the last 7 days',
        querystring: dashboardQuery,
        response: { 200: envelopeSchema(trend) },
      },
    },
    async (req) => ok(await zoneKnown(dashboard.trend(caller(req), req.query.tz, req.query.unit))),
  );
  app.post(
    '/dashboard/target',
    {
      // the figure is print jobs: reading them is what the widget needs; setting it is the main account's (checked)
      config: { permission: PERMISSIONS.printView },
      schema: {
        tags: ['dashboard'],
        summary: "Sets the account's monthly print-job target (main account), or clears it with null",
        body: targetBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      await dashboard.setTarget(caller(req), req.body.monthlyJobs, req.ip);
      return ok(null);
    },
  );
};
