import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  PERMISSIONS,
  customAppItem,
  customProfileCreateBody,
  customProfileUpdateBody,
  deviceProfile,
  deviceProfileQuery,
  envelopeSchema,
  pagedEnvelope,
  profileAssignBody,
  profileAssignResult,
  profileDetail,
  profileDeviceItem,
  profileDevicesQuery,
  profileIdBody,
  profileIdQuery,
  profileItem,
  profileListQuery,
  profilePublishResult,
} from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { scopedCaller } from '../../lib/data-scope.ts';
import type { CustomCaller, SystemCustomService } from './service.ts';

const tags = ['systemCustom'];
const VIEW = PERMISSIONS.systemCustomView;
const EDIT = PERMISSIONS.systemCustomEdit;

const customCaller = (req: FastifyRequest): CustomCaller => scopedCaller(caller(req), req.ip);

type App = Parameters<FastifyPluginAsyncZod>[0];

/**
 * System customization profiles (issue 16): versions, assignment to devices and groups, each device's apply state
 * and drift. Resolution: a device's own assignment beats any group's; the nearest group beats farther ones.
 */
export const systemCustomRoutes: FastifyPluginAsyncZod<{ custom: SystemCustomService }> = async (app, { custom }) => {
  profileReadRoutes(app, custom);
  profileWriteRoutes(app, custom);
  deviceRoutes(app, custom);
};

/** The profiles list and a profile's detail. */
function profileReadRoutes(app: App, custom: SystemCustomService) {
  app.get(
    '/systemCustom/profile/list',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'Customization profiles, most recently changed first, with their devices applied / failed / drifted',
        querystring: profileListQuery,
        response: { 200: pagedEnvelope(profileItem) },
      },
    },
    async (req) => ok(await custom.list(customCaller(req), req.query)),
  );

  app.get(
    '/systemCustom/profile/detail',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'A profile: its draft, current version, published history and assignments (never a password)',
        querystring: profileIdQuery,
        response: { 200: envelopeSchema(profileDetail) },
      },
    },
    async (req) => ok(await custom.detail(customCaller(req), req.query.id)),
  );
}

/** Create, edit, delete, publish and assign a profile. */
function profileWriteRoutes(app: App, custom: SystemCustomService) {
  app.post(
    '/systemCustom/profile/create',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary: 'Create a profile (its first version a draft, or published with `publish: true`)',
        body: customProfileCreateBody,
        response: { 200: envelopeSchema(z.object({ id: z.number().int() })) },
      },
    },
    async (req) => ok(await custom.create(customCaller(req), req.body)),
  );

  app.post(
    '/systemCustom/profile/update',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary:
          'Edit the draft (made from the latest published version when there is none): a part set, null removes it',
        body: customProfileUpdateBody,
        response: { 200: envelopeSchema(z.object({ id: z.number().int() })) },
      },
    },
    async (req) => ok(await custom.update(customCaller(req), req.body)),
  );

  app.post(
    '/systemCustom/profile/delete',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary: 'Delete a profile: its devices fall back to the next assignment (or the system defaults)',
        body: profileIdBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      await custom.remove(customCaller(req), req.body.id);
      return ok(null);
    },
  );

  app.post(
    '/systemCustom/profile/publish',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary: 'Freeze the draft as the next version; the devices the profile governs are sent it',
        body: profileIdBody,
        response: { 200: envelopeSchema(profilePublishResult) },
      },
    },
    async (req) => ok(await custom.publish(customCaller(req), req.body.id)),
  );

  app.post(
    '/systemCustom/profile/assign',
    {
      config: { permission: EDIT },
      schema: {
        tags,
        summary: 'Assign the profile to devices and groups (replacing theirs), or take it away (`unassign: true`)',
        body: profileAssignBody,
        response: { 200: envelopeSchema(profileAssignResult) },
      },
    },
    async (req) => ok(await custom.assign(customCaller(req), req.body)),
  );
}

/** The devices a profile governs, a device's effective profile, and the apps a profile may name. */
function deviceRoutes(app: App, custom: SystemCustomService) {
  app.get(
    '/systemCustom/profile/devices',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: 'The devices the profile governs: desired and applied version, apply state, drift',
        querystring: profileDevicesQuery,
        response: { 200: pagedEnvelope(profileDeviceItem) },
      },
    },
    async (req) => ok(await custom.devices(customCaller(req), req.query)),
  );

  app.get(
    '/systemCustom/device',
    {
      config: { permission: [VIEW, PERMISSIONS.deviceView] },
      schema: {
        tags,
        summary: "A device's effective profile, where it comes from, the applied version and drift",
        querystring: deviceProfileQuery,
        response: { 200: envelopeSchema(deviceProfile) },
      },
    },
    async (req) => ok(await custom.device(customCaller(req), req.query.deviceId)),
  );

  app.get(
    '/systemCustom/apps',
    {
      config: { permission: VIEW },
      schema: {
        tags,
        summary: "The customer's applications a profile may name (package name, name, latest version)",
        response: { 200: envelopeSchema(z.array(customAppItem)) },
      },
    },
    async (req) => ok(await custom.apps(customCaller(req))),
  );
}
