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
import type { Db } from '../../db/database.ts';
import { actorOf, restrictToStaff } from '../../plugins/auth.ts';
import { AppError, badRequest, ok } from '../../plugins/errors.ts';
import type { MessageKey } from '@cpc/contracts/messages';
import { audit, changedFields } from '../../lib/audit.ts';
import { firstFile, wholeFile } from '../../lib/multipart.ts';
import { checkRows, listRegistry, registerDevices, reissueBindKey, rowErrors, sortRowErrors } from './service.ts';
import { parseDeviceCsv } from './csv.ts';

const CSV_FIELD: Record<string, string> = { bind_key: 'bindKey' };

/** Factory registration (staff): every device made, registering one or a CSV of them, reissuing a bind key. */
export const deviceRegistryRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
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
      async (req) => ok(await listRegistry(db, req.query)),
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
        const row = { ...req.body, row: 1 };
        const { errors } = await checkRows(db, [row]);
        if (errors.length) {
          const first = errors[0];
          const field = CSV_FIELD[first.field] ?? first.field;
          // every row error is keyed (service.ts rowError)
          throw new AppError<MessageKey>(400, first.key as MessageKey, (first.params ?? null) as never, { field });
        }
        const devices = await registerDevices(db, [row]);
        await audit(db, {
          ...actorOf(req),
          action: 'device.register',
          result: 'ok',
          resource: 'device',
          resourceId: devices[0].id,
          // the bind key and secret are named as set, their values masked by audit()
          changes: changedFields(
            {},
            {
              sn: devices[0].sn,
              model: req.body.model,
              iccid: devices[0].iccid,
              imei: devices[0].imei,
              bindKey: 'set',
              secret: 'set',
            },
          ),
        });
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
      async (req) => {
        const result = await reissueBindKey(db, req.body.id);
        await audit(db, {
          ...actorOf(req),
          action: 'device.bindKey.reissue',
          result: 'ok',
          resource: 'device',
          resourceId: result.id,
          changes: changedFields({ bindKey: 'old' }, { bindKey: 'new' }),
          details: { sn: result.sn },
        });
        return ok(result);
      },
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
        const { rows, shapeErrors } = parseDeviceCsv(bytes);
        const { errors } = await checkRows(db, rows);
        const all = sortRowErrors([...shapeErrors, ...errors]);
        if (all.length) throw rowErrors(all);
        const devices = await registerDevices(db, rows);
        await audit(db, {
          ...actorOf(req),
          action: 'device.import',
          result: 'ok',
          resource: 'device',
          details: { imported: devices.length, file: (part.filename ?? '').slice(0, 100) },
        });
        return ok({ imported: devices.length, devices });
      },
    );
  });
};
