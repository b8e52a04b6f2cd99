import { Socket } from 'node:net';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DEVICE_DOWNLOAD_TTL_MAX_S } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import { sendDeviceObject } from '../../lib/storage/device-object.ts';
import { AppError } from '../../plugins/errors.ts';
import { PackageRepository } from './repository.ts';

const PURPOSE = 'device-download';

/**
 * The link a device downloads a task's package from (issue 15): bound to that one task, signed, and expiring with
 * the task (at most DEVICE_DOWNLOAD_TTL_MAX_S). The server also checks, at each request, that the task is still
 * open: a finished, canceled or expired task's link is dead even before it expires.
 */
export function deviceDownloadUrl(storage: ObjectStorage, taskId: string, expireAt: Date, base = ''): string {
  const exp = Math.floor(Math.min(+expireAt, Date.now() + DEVICE_DOWNLOAD_TTL_MAX_S * 1000) / 1000);
  return `${base}/apiAdmin/device-files/${taskId}?exp=${exp}&sig=${storage.signFor(PURPOSE, taskId, exp)}`;
}

/**
 * `GET /device-files/:taskId?exp&sig` (no console sign-in: the signature is the credential): the package of an
 * open task, with HTTP range requests (`Range: bytes=N-` resumes an interrupted download), ETag and Last-Modified.
 */
export const deviceDownloadRoutes: FastifyPluginAsyncZod<{ db: Db; storage: ObjectStorage }> = async (
  app,
  { db, storage },
) => {
  const packages = new PackageRepository(db);
  // downloads under way: a closing node cuts them (a device resumes from where it was, on this node or another)
  // rather than waiting for a 2 GB download on a slow modem, or one a vanished client never finishes reading
  const downloading = new Set<Socket>();
  app.addHook('preClose', (done) => {
    for (const socket of downloading) socket.destroy();
    done();
  });
  app.get(
    '/device-files/:taskId',
    {
      config: { auth: false },
      schema: {
        tags: ['device'],
        summary:
          "A device downloads its task's package through the signed link the task carries (Range requests resume)",
        params: z.object({ taskId: z.uuid('rule.taskId') }).strict(),
        querystring: z.object({ exp: z.coerce.number().int(), sig: z.string().max(100) }).strict(),
      },
    },
    async (req, reply) => {
      const { taskId } = req.params;
      if (!storage.checkSigned(PURPOSE, taskId, req.query.exp, req.query.sig))
        throw new AppError(403, 'upload.linkInvalid');
      const row = await packages.findOpenTaskPackage(taskId);
      if (!row) throw new AppError(404, 'upload.objectMissing');
      return sendDeviceObject(req, reply, storage, { key: row.object_key, sha256: row.sha256 }, (r) => {
        const socket = r.raw.socket;
        if (socket instanceof Socket && !downloading.has(socket)) {
          downloading.add(socket);
          socket.once('close', () => downloading.delete(socket));
        }
      });
    },
  );
};
