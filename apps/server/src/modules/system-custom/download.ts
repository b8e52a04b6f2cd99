import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEVICE_DOWNLOAD_TTL_MAX_S } from '@cpc/contracts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { sendDeviceObject } from '../../lib/storage/device-object.ts';
import { AppError } from '../../plugins/errors.ts';
import type { SystemCustomService } from './service.ts';

const PURPOSE = 'profile-media';
const PARTS = ['bootAnimation', 'wallpaper'] as const;

/**
 * The link a device downloads a profile's media by (issue 16): bound to one apply task and one part, signed, and
 * expiring with the task (at most DEVICE_DOWNLOAD_TTL_MAX_S); minted at each delivery, never stored.
 */
export function profileMediaUrl(
  storage: ObjectStorage,
  taskId: string,
  part: (typeof PARTS)[number],
  expireAt: Date,
  base = '',
): string {
  const exp = Math.floor(Math.min(+expireAt, Date.now() + DEVICE_DOWNLOAD_TTL_MAX_S * 1000) / 1000);
  return `${base}/apiAdmin/device-media/${taskId}/${part}?exp=${exp}&sig=${storage.signFor(PURPOSE, `${taskId}/${part}`, exp)}`;
}

/**
 * `GET /device-media/:taskId/:part?exp&sig` (no console sign-in: the signature is the credential): the boot
 * animation or wallpaper of an open apply_profile task, with Range requests and its SHA-256 in a header.
 */
export const profileMediaRoutes: FastifyPluginAsyncZod<{
  storage: ObjectStorage;
  custom: SystemCustomService;
}> = async (app, { storage, custom }) => {
  app.get(
    '/device-media/:taskId/:part',
    {
      config: { auth: false },
      schema: {
        tags: ['device'],
        summary: "A device downloads a profile's boot animation or wallpaper through the signed link its task carries",
        params: z.object({ taskId: z.uuid('rule.taskId'), part: z.enum(PARTS) }).strict(),
        querystring: z.object({ exp: z.coerce.number().int(), sig: z.string().max(100) }).strict(),
      },
    },
    async (req, reply) => {
      const { taskId, part } = req.params;
      if (!storage.checkSigned(PURPOSE, `${taskId}/${part}`, req.query.exp, req.query.sig))
        throw new AppError(403, 'upload.linkInvalid');
      const m = await custom.mediaOfTask(taskId, part);
      if (!m) throw new AppError(404, 'upload.objectMissing');
      return sendDeviceObject(req, reply, storage, { key: m.key, sha256: m.sha256 });
    },
  );
};
