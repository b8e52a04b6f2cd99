import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import send from '@fastify/send';
import { z } from 'zod';
import { DEVICE_DOWNLOAD_TTL_MAX_S } from '@cpc/contracts';
import { PRESIGNED_TTL_S, type ObjectStorage } from '../../lib/storage.ts';
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
      // S3 (issue 17): a short presigned link to the bucket, as for packages
      const link = await storage.presignedGet(m.key, {
        ttl: PRESIGNED_TTL_S,
        contentType: 'application/octet-stream',
        cacheControl: 'private, no-store',
      });
      if (link)
        return reply
          .header('x-content-sha256', m.sha256)
          .header('cache-control', 'private, no-store')
          .redirect(link, 302);
      const file = storage.localPathOf(m.key)!;
      const out = await send(
        req.raw,
        encodeURIComponent(file.slice(storage.localRoot!.length + 1)).replace(/%2F/g, '/'),
        { root: storage.localRoot!, dotfiles: 'deny', cacheControl: false, contentType: false },
      );
      if (out.type === 'error') {
        const status = (out.metadata as { error?: { status?: number } }).error?.status ?? 500;
        throw new AppError(status === 416 ? 416 : 404, status === 416 ? 'upload.badRange' : 'upload.objectMissing');
      }
      reply.code(out.statusCode).headers(out.headers);
      reply
        .header('content-type', 'application/octet-stream')
        .header('x-content-sha256', m.sha256)
        .header('cache-control', 'private, no-store');
      return reply.send(out.stream);
    },
  );
};
