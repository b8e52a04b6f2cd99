import { Socket } from 'node:net';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import send from '@fastify/send';
import { sql } from 'kysely';
import { z } from 'zod';
import { DEVICE_DOWNLOAD_TTL_MAX_S } from '@cpc/contracts';
import type { Db } from '../../db/database.ts';
import { PRESIGNED_TTL_S, type ObjectStorage } from '../../lib/storage.ts';
import { AppError } from '../../plugins/errors.ts';

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
      const { rows } = await sql<{ object_key: string; sha256: string }>`
        SELECT p.object_key, p.sha256 FROM device_tasks t
        JOIN packages p ON p.id = (t.params->>'packageId')::bigint AND p.tenant_id = t.tenant_id
        WHERE t.id = ${taskId} AND t.state IN ('sent', 'delivered', 'running', 'timeout')
          AND t.type IN ('upgrade', 'install_app', 'deploy_model')`.execute(db);
      const row = rows[0];
      if (!row) throw new AppError(404, 'upload.objectMissing');
      // S3 (issue 17): a short presigned link to the bucket, the bytes never pass through a node; the device follows
      // the redirect with its Range header, and comes back here to resume (the task is checked again)
      const link = await storage.presignedGet(row.object_key, {
        ttl: PRESIGNED_TTL_S,
        contentType: 'application/octet-stream',
        cacheControl: 'private, no-store',
      });
      if (link)
        return reply
          .header('x-content-sha256', row.sha256)
          .header('cache-control', 'private, no-store')
          .redirect(link, 302);
      const file = storage.localPathOf(row.object_key)!;
      const out = await send(
        req.raw,
        encodeURIComponent(file.slice(storage.localRoot!.length + 1)).replace(/%2F/g, '/'),
        {
          root: storage.localRoot!,
          dotfiles: 'deny',
          cacheControl: false,
          contentType: false,
        },
      );
      if (out.type === 'error') {
        const status = (out.metadata as { error?: { status?: number } }).error?.status ?? 500;
        throw new AppError(status === 416 ? 416 : 404, status === 416 ? 'upload.badRange' : 'upload.objectMissing');
      }
      const socket = req.raw.socket;
      if (socket instanceof Socket && !downloading.has(socket)) {
        downloading.add(socket);
        socket.once('close', () => downloading.delete(socket));
      }
      reply.code(out.statusCode).headers(out.headers);
      reply
        .header('content-type', 'application/octet-stream')
        .header('x-content-sha256', row.sha256)
        .header('cache-control', 'private, no-store');
      return reply.send(out.stream);
    },
  );
};
