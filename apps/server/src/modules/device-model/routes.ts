import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PERMISSIONS, envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import { idBody } from '@cpc/contracts/device';
import {
  deviceModelBody,
  deviceModelEditBody,
  deviceModelListQuery,
  deviceModelOption,
  deviceModelView,
} from '@cpc/contracts/device-model';
import type { Db } from '../../db/database.ts';
import { actorOf, restrictToStaff } from '../../plugins/auth.ts';
import { ok } from '../../plugins/errors.ts';
import { audit, changedFields } from '../../lib/audit.ts';
import { DeviceModelService } from './service.ts';

type App = Parameters<FastifyPluginAsyncZod>[0];

const manage = { permission: PERMISSIONS.deviceModelManage };

/** Staff list the catalogue and add to it. */
function catalogueRoutes(staff: App, models: DeviceModelService, db: Db): void {
  staff.get(
    '/system/deviceModel/list',
    {
      config: manage,
      schema: {
        tags: ['device-model'],
        summary: 'Device models (staff)',
        querystring: deviceModelListQuery,
        response: { 200: pagedEnvelope(deviceModelView) },
      },
    },
    async (req) => ok(await models.list(req.query)),
  );
  staff.post(
    '/system/deviceModel/add',
    {
      config: manage,
      schema: {
        tags: ['device-model'],
        summary: 'Add a device model (staff)',
        body: deviceModelBody,
        response: { 200: envelopeSchema(deviceModelView) },
      },
    },
    async (req) => {
      const m = await models.add(req.body);
      await audit(db, {
        ...actorOf(req),
        action: 'device-model.add',
        result: 'ok',
        resource: 'device_model',
        resourceId: m.id,
        changes: changedFields(
          {},
          { code: m.code, name: m.name, kind: m.kind, paperWidthMm: m.paperWidthMm, capabilities: m.capabilities },
        ),
      });
      return ok(m);
    },
  );
}

/** Staff edit a model and delete one no device uses. */
function changeRoutes(staff: App, models: DeviceModelService, db: Db): void {
  staff.post(
    '/system/deviceModel/edit',
    {
      config: manage,
      schema: {
        tags: ['device-model'],
        summary: 'Edit a device model (staff)',
        body: deviceModelEditBody,
        response: { 200: envelopeSchema(deviceModelView) },
      },
    },
    async (req) => {
      const before = (await models.loggedFields(req.body.id)) ?? {};
      const m = await models.edit(req.body);
      await audit(db, {
        ...actorOf(req),
        action: 'device-model.edit',
        result: 'ok',
        resource: 'device_model',
        resourceId: m.id,
        changes: changedFields(before, {
          code: m.code,
          name: m.name,
          kind: m.kind,
          paperWidthMm: m.paperWidthMm,
          capabilities: m.capabilities,
        }),
      });
      return ok(m);
    },
  );
  staff.post(
    '/system/deviceModel/delete',
    {
      config: manage,
      schema: {
        tags: ['device-model'],
        summary: 'Delete a device model no device uses (staff)',
        body: idBody,
        response: { 200: envelopeSchema(z.null()) },
      },
    },
    async (req) => {
      const before = (await models.loggedFields(req.body.id)) ?? {};
      await models.remove(req.body.id);
      await audit(db, {
        ...actorOf(req),
        action: 'device-model.delete',
        result: 'ok',
        resource: 'device_model',
        resourceId: req.body.id,
        changes: changedFields(before, {}),
      });
      return ok(null);
    },
  );
}

/** The platform's device model catalogue (staff), and the catalogue as customers see it. */
export const deviceModelRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  const models = new DeviceModelService(db);

  app.get(
    '/device/model/options',
    {
      config: { permission: PERMISSIONS.deviceView },
      schema: {
        tags: ['device'],
        summary: 'Device models, for filters and forms',
        response: { 200: envelopeSchema(z.array(deviceModelOption)) },
      },
    },
    async () => ok(await models.options()),
  );

  await app.register(async (scoped) => {
    const staff = scoped.withTypeProvider<ZodTypeProvider>();
    restrictToStaff(staff);
    catalogueRoutes(staff, models, db);
    changeRoutes(staff, models, db);
  });
};
