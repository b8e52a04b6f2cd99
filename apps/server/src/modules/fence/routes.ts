import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  PERMISSIONS,
  deviceFences,
  envelopeSchema,
  fenceCreateBody,
  fenceCreated,
  fenceDeleteBody,
  fenceDetail,
  fenceDeviceQuery,
  fenceDeviceRow,
  fenceDevicesQuery,
  fenceEventItem,
  fenceEventsQuery,
  fenceIdQuery,
  fenceItem,
  fenceListQuery,
  fenceMapSettings,
  fenceTrack,
  fenceTrackQuery,
  fenceUpdateBody,
  pagedEnvelope,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { dataAccessOf } from '../../lib/data-scope.ts';
import type { FenceCaller, FenceService } from './service.ts';

const tags = ['fence'];
const VIEW = PERMISSIONS.fenceView;
const EDIT = PERMISSIONS.fenceEdit;

function fenceCaller(req: FastifyRequest): FenceCaller {
  const u = caller(req);
  return { tenantId: u.tenantId, userId: u.id, ip: req.ip, scope: u.scope, access: dataAccessOf(u) };
}

type App = Parameters<FastifyPluginAsyncZod>[0];

/** The map's settings, the fences and a fence's detail. */
function fenceReadRoutes(app: App, fences: FenceService): void {
  app.get(
    '/fence/map',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'The base map settings of the console',
        response: { 200: envelopeSchema(fenceMapSettings) },
      },
    },
    async () => ok(fences.mapSettings()),
  );

  app.get(
    '/fence/list',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'Fences (paged, keyword)',
        querystring: fenceListQuery,
        response: { 200: pagedEnvelope(fenceItem) },
      },
    },
    async (req) => ok(await fences.list(fenceCaller(req), req.query)),
  );

  app.get(
    '/fence/detail',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'A fence with its targets and the counts inside / outside now',
        querystring: fenceIdQuery,
        response: { 200: envelopeSchema(fenceDetail) },
      },
    },
    async (req) => ok(await fences.detail(fenceCaller(req), req.query.id)),
  );
}

/** Creating, changing and deleting fences (fence:edit). */
function fenceEditRoutes(app: App, fences: FenceService): void {
  app.post(
    '/fence/create',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary: 'Create a fence',
        body: fenceCreateBody,
        response: { 200: envelopeSchema(fenceCreated) },
      },
    },
    async (req) => ok(await fences.create(fenceCaller(req), req.body)),
  );

  app.post(
    '/fence/update',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary: 'Change a fence (the fields given); its devices are evaluated against it again',
        body: fenceUpdateBody,
        response: { 200: envelopeSchema(z.object({ id: z.number().int(), version: z.number().int() })) },
      },
    },
    async (req) => ok(await fences.update(fenceCaller(req), req.body)),
  );

  app.post(
    '/fence/delete',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary: 'Delete fences (their events stay)',
        body: fenceDeleteBody,
        response: { 200: envelopeSchema(z.object({ deleted: z.number().int() })) },
      },
    },
    async (req) => {
      const ids = [...new Set([...(req.body.id ? [req.body.id] : []), ...(req.body.ids ?? [])])];
      return ok(await fences.remove(fenceCaller(req), ids));
    },
  );
}

/** A fence's devices, the events, a device's fences and its track. */
function fenceDeviceRoutes(app: App, fences: FenceService): void {
  app.get(
    '/fence/devices',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: "A fence's target devices with their side now",
        querystring: fenceDevicesQuery,
        response: { 200: pagedEnvelope(fenceDeviceRow) },
      },
    },
    async (req) => ok(await fences.devices(fenceCaller(req), req.query)),
  );

  app.get(
    '/fence/events',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'Enter / leave events, newest first',
        querystring: fenceEventsQuery,
        response: { 200: pagedEnvelope(fenceEventItem) },
      },
    },
    async (req) => ok(await fences.eventList(fenceCaller(req), req.query)),
  );

  app.get(
    '/fence/device',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: "A device's fences with its side in each",
        querystring: fenceDeviceQuery,
        response: { 200: envelopeSchema(deviceFences) },
      },
    },
    async (req) => ok(await fences.deviceFences(fenceCaller(req), req.query.deviceId)),
  );

  app.get(
    '/fence/track',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: "A device's positions of the last hours, oldest first",
        querystring: fenceTrackQuery,
        response: { 200: envelopeSchema(fenceTrack) },
      },
    },
    async (req) => ok(await fences.track(fenceCaller(req), req.query.deviceId, req.query.hours)),
  );
}

/** Geofencing (issue 16): fences, their devices and events, a device's fences and track, the map's settings. */
export const fenceRoutes: FastifyPluginAsyncZod<{ fences: FenceService }> = async (app, { fences }) => {
  fenceReadRoutes(app, fences);
  fenceEditRoutes(app, fences);
  fenceDeviceRoutes(app, fences);
};
