import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { PERMISSIONS, envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import { IMPORT_COLUMNS, IMPORT_MAX_BYTES, idBody } from '@cpc/contracts/device';
import {
  deviceRegisterBody,
  registerResult,
  registryItem,
  registryListQuery,
  reissueBindKeyResult,
} from '@cpc/contracts/device-registry';
import { actorOf, restrictToStaff } from '../../plugins/auth.ts';
import { badRequest, ok } from '../../plugins/errors.ts';
import { firstFile, wholeFile } from '../../lib/multipart.ts';
import type { DeviceRegistryService } from './service.ts';
import { parseDeviceCsv } from './csv.ts';

/** Factory registration (staff): every device made, registering one or a CSV of them, reissuing a bind key. */
export const deviceRegistryRoutes: FastifyPluginAsyncZod<{ registry: DeviceRegistryService }> = async (
  app,
  { registry },
) => {
  await app.register(async (scoped) => {
    const staff = scoped.withTypeProvider<ZodTypeProvider>();
    restrictToStaff(staff);

    const register = { permission: PERMISSIONS.deviceRegister };
    staff.get(
      '/system/deviceRegistry/list',
      {
        config: register,
        schema: {
          tags: ['device-registry'],
          summary: 'Every registered device, bound or not, with its owner (staff)',
          querystring: registryListQuery,
          response: { 200: pagedEnvelope(registryItem) },
        },
      },
      async (req) => ok(await registry.list(req.query)),
    );

    staff.post(
      '/system/deviceRegistry/register',
      {
        config: register,
        schema: {
          tags: ['device-registry'],
          summary: 'Register one device; the bind key and secret are shown in this answer only (staff)',
          body: deviceRegisterBody,
          response: { 200: envelopeSchema(registerResult) },
        },
      },
      async (req) => {
        const devices = await registry.registerOne(actorOf(req), req.body);
        return ok({ imported: 1, devices });
      },
    );

    staff.post(
      '/system/deviceRegistry/bindKey',
      {
        config: register,
        schema: {
          tags: ['device-registry'],
          summary: 'Issue a new bind key for a device (the old one stops working); shown in this answer only (staff)',
          body: idBody,
          response: { 200: envelopeSchema(reissueBindKeyResult) },
        },
      },
      async (req) => ok(await registry.reissueBindKey(actorOf(req), req.body.id)),
    );

    staff.post(
      '/system/deviceRegistry/import',
      {
        config: register,
        schema: {
          tags: ['device-registry'],
          summary: `Import devices from a CSV (multipart field \`file\`, header ${IMPORT_COLUMNS.join(',')}); all or nothing, with every row error listed (staff)`,
          consumes: ['multipart/form-data'],
          response: { 200: envelopeSchema(registerResult) },
        },
      },
      async (req) => {
        const part = await firstFile(req, { fileSize: IMPORT_MAX_BYTES });
        const bytes = await wholeFile(
          part,
          badRequest('file', 'upload.tooLargeMb', { n: IMPORT_MAX_BYTES / 1024 / 1024 }),
        );
        const devices = await registry.importRows(actorOf(req), parseDeviceCsv(bytes), part.filename ?? '');
        return ok({ imported: devices.length, devices });
      },
    );
  });
};
