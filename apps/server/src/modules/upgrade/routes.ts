import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  PERMISSIONS,
  envelopeSchema,
  firmwareHistoryItem,
  firmwareHistoryQuery,
  pagedEnvelope,
  releaseBody,
  releaseDetail,
  releaseDeviceItem,
  releaseDevicesQuery,
  releaseIdBody,
  releaseIdQuery,
  releaseItem,
  releaseListQuery,
  releasePreview,
  releasePreviewBody,
  RELEASE_STATES,
} from '@cpc/contracts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import type { UpgradeCaller, UpgradeService } from './service.ts';

const who = (req: FastifyRequest): UpgradeCaller => {
  const u = caller(req);
  return { tenantId: u.tenantId, userId: u.id, ip: req.ip, access: dataAccessOf(u) };
};
const actionResult = envelopeSchema(z.object({ id: z.number().int(), state: z.enum(RELEASE_STATES) }));

type App = Parameters<FastifyPluginAsyncZod>[0];

const view = { permission: PERMISSIONS.upgradeView };
const edit = { permission: PERMISSIONS.upgradeEdit };
const tags = ['upgrade'];

/** Starting a release, its preview first. */
function releaseWriteRoutes(app: App, upgrades: UpgradeService): void {
  app.post(
    '/upgrade/release/preview',
    {
      config: view,
      schema: {
        tags,
        summary: 'How many devices the targets match (inside the caller’s data scope), and how many are left out',
        body: releasePreviewBody,
        response: { 200: envelopeSchema(releasePreview) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await upgrades.preview(u.scope, dataAccessOf(u), req.body.packageId, req.body.targets));
    },
  );
  app.post(
    '/upgrade/release/create',
    {
      config: edit,
      schema: {
        tags,
        summary: 'Starts a release: the devices are resolved now; wave 1 (the canary) starts at once',
        body: releaseBody,
        response: {
          200: envelopeSchema(
            z.object({ id: z.number().int(), total: z.number().int(), incompatible: z.number().int() }),
          ),
        },
      },
    },
    async (req) => ok(await upgrades.create(who(req), req.body)),
  );
}

/** Reading releases and their devices. */
function releaseReadRoutes(app: App, upgrades: UpgradeService): void {
  app.get(
    '/upgrade/release/list',
    {
      config: view,
      schema: {
        tags,
        summary: 'Releases, newest first, with their counts per device state',
        querystring: releaseListQuery,
        response: { 200: pagedEnvelope(releaseItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await upgrades.list(u.scope, dataAccessOf(u), req.query));
    },
  );
  app.get(
    '/upgrade/release/detail',
    {
      config: view,
      schema: {
        tags,
        summary: 'One release: counts per state and wave, failure reasons',
        querystring: releaseIdQuery,
        response: { 200: envelopeSchema(releaseDetail) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await upgrades.detail(u.scope, dataAccessOf(u), req.query.id));
    },
  );
  app.get(
    '/upgrade/release/devices',
    {
      config: view,
      schema: {
        tags,
        summary: 'The devices of a release with their step and percentage',
        querystring: releaseDevicesQuery,
        response: { 200: pagedEnvelope(releaseDeviceItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await upgrades.devices(u.scope, dataAccessOf(u), req.query));
    },
  );
}

/** Acting on a release: promote, pause, resume, cancel, retry. */
function releaseActionRoutes(app: App, upgrades: UpgradeService): void {
  const actions = {
    promote: 'Starts wave 2 of a release waiting after its canary',
    pause: 'Pauses a release: no device starts; those under way finish',
    resume: 'Resumes a paused release',
    cancel: 'Cancels a release and the unfinished tasks of its devices',
    retry: 'Gives every failed device of a release a new task (the release runs again)',
  } as const;
  for (const [action, summary] of Object.entries(actions) as Array<[keyof typeof actions, string]>) {
    app.post(
      `/upgrade/release/${action}`,
      { config: edit, schema: { tags, summary, body: releaseIdBody, response: { 200: actionResult } } },
      async (req) => ok(await upgrades[action](who(req), req.body.id)),
    );
  }
}

/** A device's firmware history. */
function historyRoutes(app: App, upgrades: UpgradeService): void {
  app.get(
    '/upgrade/history',
    {
      config: { permission: [PERMISSIONS.upgradeView, PERMISSIONS.deviceView] },
      schema: {
        tags,
        summary: 'A device’s firmware changes, newest first',
        querystring: firmwareHistoryQuery,
        response: { 200: pagedEnvelope(firmwareHistoryItem) },
      },
    },
    async (req) => {
      const u = caller(req);
      return ok(await upgrades.history(u.scope, dataAccessOf(u), req.query));
    },
  );
}

/** Firmware releases and version history (issue 15; the table of calls is in contracts upgrade.ts). */
export const upgradeRoutes: FastifyPluginAsyncZod<{ upgrades: UpgradeService }> = async (app, { upgrades }) => {
  releaseWriteRoutes(app, upgrades);
  releaseReadRoutes(app, upgrades);
  releaseActionRoutes(app, upgrades);
  historyRoutes(app, upgrades);
};
