import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import {
  PERMISSIONS,
  deploymentBody,
  deploymentChanged,
  deploymentCreated,
  deploymentDetail,
  deploymentIdParams,
  deploymentListQuery,
  deploymentView,
  deployablePackage,
  deployablePackagesQuery,
  deviceIdParams,
  deviceInventory,
  envelopeSchema,
  installedQuery,
  installedResult,
  pagedEnvelope,
  requiredAppsBody,
  requiredAppsResult,
  type DeploymentKind,
} from '@cpc/contracts';
import { z } from 'zod';
import { caller, hasPermission } from '../../plugins/auth.ts';
import { AppError, ok } from '../../plugins/errors.ts';
import { scopedCaller } from '../../lib/data-scope.ts';
import type { AppCaller, ApplicationService } from './service.ts';

const tags = ['application'];
const VIEW = [PERMISSIONS.applicationView, PERMISSIONS.aiLibraryView];
const EDIT = [PERMISSIONS.applicationEdit, PERMISSIONS.aiLibraryEdit];

/** Apps need the application section's permission, models the AI library's (checked once the kind is known). */
function need(req: FastifyRequest, kind: DeploymentKind, edit: boolean): void {
  const u = caller(req);
  const permission =
    kind === 'app'
      ? edit
        ? PERMISSIONS.applicationEdit
        : PERMISSIONS.applicationView
      : edit
        ? PERMISSIONS.aiLibraryEdit
        : PERMISSIONS.aiLibraryView;
  if (!hasPermission(u, permission)) throw new AppError(403, 'auth.permissionRequired', { permission });
}

const appCaller = (req: FastifyRequest): AppCaller => scopedCaller(caller(req), req.ip);

type Api = Parameters<FastifyPluginAsyncZod>[0];

/** Deployments of apps and AI models, inventories, "which devices run version X", required apps (issue 15). */
export const applicationRoutes: FastifyPluginAsyncZod<{ apps: ApplicationService }> = async (app, { apps }) => {
  deploymentRoutes(app, apps);
  deploymentActionRoutes(app, apps);
  inventoryRoutes(app, apps);
};

/** Deployments: create, list, read. */
function deploymentRoutes(app: Api, apps: ApplicationService): void {
  app.post(
    '/application/deployment',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary: 'Install / uninstall an app or deploy / remove a model on devices and groups (with sub-groups)',
        body: deploymentBody,
        response: { 200: envelopeSchema(deploymentCreated) },
      },
    },
    async (req) => {
      need(req, req.body.kind, true);
      return ok(await apps.create(appCaller(req), req.body));
    },
  );

  app.get(
    '/application/deployment/list',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'Deployments, newest first, with their counts per task state',
        querystring: deploymentListQuery,
        response: { 200: pagedEnvelope(deploymentView) },
      },
    },
    async (req) => {
      const u = caller(req);
      // one who sees only one of the two kinds lists only that kind
      const canApp = hasPermission(u, PERMISSIONS.applicationView);
      const canModel = hasPermission(u, PERMISSIONS.aiLibraryView);
      const kind = req.query.kind ?? (canApp && canModel ? undefined : canApp ? 'app' : 'model');
      need(req, kind ?? 'app', false);
      return ok(await apps.list(appCaller(req), { ...req.query, kind }));
    },
  );

  app.get(
    '/application/deployment/:id',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'A deployment with each device’s task (state, stage, progress, reason)',
        params: deploymentIdParams,
        response: { 200: envelopeSchema(deploymentDetail) },
      },
    },
    async (req) => {
      const d = await apps.detail(appCaller(req), req.params.id);
      need(req, d.kind, false);
      return ok(d);
    },
  );
}

/** Cancel and retry a deployment; the versions a deployment can install. */
function deploymentActionRoutes(app: Api, apps: ApplicationService): void {
  for (const verb of ['cancel', 'retry'] as const) {
    app.post(
      `/application/deployment/:id/${verb}`,
      {
        config: { permission: EDIT },
        schema: {
          tags,
          summary: verb === 'cancel' ? 'Cancel the unfinished tasks' : 'Send again to the devices that failed',
          params: deploymentIdParams,
          response: { 200: envelopeSchema(deploymentChanged) },
        },
      },
      async (req) => {
        const u = appCaller(req);
        const d = await apps.detail(u, req.params.id);
        need(req, d.kind, true);
        return ok(verb === 'cancel' ? await apps.cancel(u, req.params.id) : await apps.retry(u, req.params.id));
      },
    );
  }

  app.get(
    '/application/packages',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'The uploaded versions of apps (or models) a deployment can install, newest first',
        querystring: deployablePackagesQuery,
        response: { 200: envelopeSchema(z.array(deployablePackage)) },
      },
    },
    async (req) => {
      need(req, req.query.kind, false);
      return ok(await apps.packages(appCaller(req), req.query.kind));
    },
  );
}

/** Inventories, "which devices run version X", and the required apps. */
function inventoryRoutes(app: Api, apps: ApplicationService): void {
  app.get(
    '/application/device/:deviceId/inventory',
    {
      config: { permission: [...VIEW, PERMISSIONS.deviceView] },
      schema: {
        tags,
        summary: 'The apps and AI models a device last reported',
        params: deviceIdParams,
        response: { 200: envelopeSchema(deviceInventory) },
      },
    },
    async (req) => ok(await apps.inventory(appCaller(req), req.params.deviceId)),
  );

  app.get(
    '/application/installed',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'Which devices run an app (or model), at one version or all, and how many run each version',
        querystring: installedQuery,
        response: { 200: envelopeSchema(installedResult) },
      },
    },
    async (req) => {
      need(req, req.query.kind, false);
      return ok(await apps.installed(appCaller(req), req.query));
    },
  );

  app.get(
    '/application/required',
    {
      config: { permission: PERMISSIONS.applicationView },
      schema: {
        tags,
        summary: 'Apps every device of the account must have, and how many reporting devices lack each',
        response: { 200: envelopeSchema(z.object({ apps: requiredAppsResult.shape.apps })) },
      },
    },
    async (req) => ok({ apps: await apps.requiredApps(appCaller(req)) }),
  );

  app.put(
    '/application/required',
    {
      config: { permission: PERMISSIONS.applicationEdit },
      schema: {
        tags,
        summary: 'Replace the required apps; devices that lack one get an install at once',
        body: requiredAppsBody,
        response: { 200: envelopeSchema(requiredAppsResult) },
      },
    },
    async (req) => ok(await apps.setRequired(appCaller(req), req.body)),
  );
}
