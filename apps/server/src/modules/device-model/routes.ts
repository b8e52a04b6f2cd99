import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PERMISSIONS, envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import {
  IMPORT_COLUMNS,
  IMPORT_MAX_BYTES,
  deviceModelBody,
  deviceModelEditBody,
  deviceModelListQuery,
  deviceModelOption,
  deviceModelView,
  deviceRegisterBody,
  idBody,
  registerResult,
  registryItem,
  registryListQuery,
  reissueBindKeyResult,
} from '@cpc/contracts/device';
import type { Db } from '../../db/database.ts';
import { caller } from '../../plugins/auth.ts';
import { AppError, badRequest, ok } from '../../plugins/errors.ts';
import { audit } from '../../lib/audit.ts';
import { firstFile, wholeFile } from '../../lib/multipart.ts';
import { DeviceModelService } from './service.ts';
import { checkRows, registerDevices, reissueBindKey, rowErrors, sortRowErrors } from './registry.ts';
import { parseDeviceCsv } from './csv.ts';

const CSV_FIELD: Record<string, string> = { bind_key: 'bindKey' };

/** The platform's catalogue and factory registration (staff), and the catalogue as customers see it. */
export const deviceModelRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  const models = new DeviceModelService(db);

  app.get('/device/model/options', { config: { permission: PERMISSIONS.deviceView }, schema: { tags: ['device'], summary: 'Device models, for filters and forms', response: { 200: envelopeSchema(z.array(deviceModelOption)) } } }, async () =>
    ok(await models.options()),
  );

  await app.register(async (scoped) => {
    const staff = scoped.withTypeProvider<ZodTypeProvider>();
    // Staff permissions are never meant for customers; a customer role that somehow holds one is still refused.
    staff.addHook('preHandler', async (req) => {
      if (caller(req).tenantKind !== 'platform') throw new AppError(403, 'platform staff only');
    });

    const manage = { permission: PERMISSIONS.deviceModelManage };
    staff.get('/system/deviceModel/list', { config: manage, schema: { tags: ['device-model'], summary: 'Device models (staff)', querystring: deviceModelListQuery, response: { 200: pagedEnvelope(deviceModelView) } } }, async (req) =>
      ok(await models.list(req.query)),
    );
    staff.post('/system/deviceModel/add', { config: manage, schema: { tags: ['device-model'], summary: 'Add a device model (staff)', body: deviceModelBody, response: { 200: envelopeSchema(deviceModelView) } } }, async (req) => {
      const m = await models.add(req.body);
      await audit(db, { tenantId: caller(req).tenantId, userId: caller(req).id, ip: req.ip, action: 'device-model.add', result: 'ok', resource: 'device_model', resourceId: m.id, details: { code: m.code } });
      return ok(m);
    });
    staff.post('/system/deviceModel/edit', { config: manage, schema: { tags: ['device-model'], summary: 'Edit a device model (staff)', body: deviceModelEditBody, response: { 200: envelopeSchema(deviceModelView) } } }, async (req) => {
      const m = await models.edit(req.body);
      await audit(db, { tenantId: caller(req).tenantId, userId: caller(req).id, ip: req.ip, action: 'device-model.edit', result: 'ok', resource: 'device_model', resourceId: m.id });
      return ok(m);
    });
    staff.post('/system/deviceModel/delete', { config: manage, schema: { tags: ['device-model'], summary: 'Delete a device model no device uses (staff)', body: idBody, response: { 200: envelopeSchema(z.null()) } } }, async (req) => {
      await models.remove(req.body.id);
      await audit(db, { tenantId: caller(req).tenantId, userId: caller(req).id, ip: req.ip, action: 'device-model.delete', result: 'ok', resource: 'device_model', resourceId: req.body.id });
      return ok(null);
    });

    const register = { permission: PERMISSIONS.deviceRegister };
    staff.get('/system/deviceRegistry/list', { config: register, schema: { tags: ['device-model'], summary: 'Every registered device, bound or not, with its owner (staff)', querystring: registryListQuery, response: { 200: pagedEnvelope(registryItem) } } }, async (req) =>
      ok(await models.registry(req.query)),
    );

    staff.post('/system/deviceRegistry/register', { config: register, schema: { tags: ['device-model'], summary: 'Register one device; the bind key and secret are shown in this answer only (staff)', body: deviceRegisterBody, response: { 200: envelopeSchema(registerResult) } } }, async (req) => {
      const row = { ...req.body, row: 1 };
      const { errors } = await checkRows(db, [row]);
      if (errors.length) throw badRequest(CSV_FIELD[errors[0].field] ?? errors[0].field, errors[0].message);
      const devices = await registerDevices(db, [row]);
      await audit(db, { tenantId: caller(req).tenantId, userId: caller(req).id, ip: req.ip, action: 'device.register', result: 'ok', resource: 'device', resourceId: devices[0].id, details: { sn: devices[0].sn } });
      return ok({ imported: 1, devices });
    });

    staff.post('/system/deviceRegistry/bindKey', { config: register, schema: { tags: ['device-model'], summary: 'Issue a new bind key for a device (the old one stops working); shown in this answer only (staff)', body: idBody, response: { 200: envelopeSchema(reissueBindKeyResult) } } }, async (req) => {
      const result = await reissueBindKey(db, req.body.id);
      await audit(db, { tenantId: caller(req).tenantId, userId: caller(req).id, ip: req.ip, action: 'device.bindKey.reissue', result: 'ok', resource: 'device', resourceId: result.id, details: { sn: result.sn } });
      return ok(result);
    });

    staff.post(
      '/system/deviceRegistry/import',
      {
        config: register,
        schema: {
          tags: ['device-model'],
          summary: `Import devices from a CSV (multipart field \`file\`, header ${IMPORT_COLUMNS.join(',')}); all or nothing, with every row error listed (staff)`,
          consumes: ['multipart/form-data'],
          response: { 200: envelopeSchema(registerResult) },
        },
      },
      async (req) => {
        const part = await firstFile(req, { fileSize: IMPORT_MAX_BYTES });
        const bytes = await wholeFile(part, badRequest('file', `file must not exceed ${IMPORT_MAX_BYTES / 1024 / 1024} MB`));
        const { rows, shapeErrors } = parseDeviceCsv(bytes);
        const { errors } = await checkRows(db, rows);
        const all = sortRowErrors([...shapeErrors, ...errors]);
        if (all.length) throw rowErrors(all);
        const devices = await registerDevices(db, rows);
        await audit(db, { tenantId: caller(req).tenantId, userId: caller(req).id, ip: req.ip, action: 'device.import', result: 'ok', resource: 'device', details: { imported: devices.length, file: (part.filename ?? '').slice(0, 100) } });
        return ok({ imported: devices.length, devices });
      },
    );
  });
};
