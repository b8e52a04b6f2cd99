import type { FastifyReply, FastifyRequest } from 'fastify';
import send from '@fastify/send';
import { AppError } from '../app-error.ts';
import { PRESIGNED_TTL_S, type ObjectStorage } from './index.ts';

/**
 * Answers a device's signed download (a package, a profile's media) with the object at `key`, once its route has
 * checked the link and the task: with S3, a 302 to a short presigned link (the bytes never pass through a node;
 * the device follows it with its Range header and comes back here to resume, the task checked again); on the
 * local disk, the file with Range requests, ETag and Last-Modified. Either way its SHA-256 in a header.
 * `onLocal` sees the request before a local file is streamed (a route that cuts downloads on close tracks it).
 */
export async function sendDeviceObject(
  req: FastifyRequest,
  reply: FastifyReply,
  storage: ObjectStorage,
  object: { key: string; sha256: string },
  onLocal?: (req: FastifyRequest) => void,
): Promise<FastifyReply> {
  const link = await storage.presignedGet(object.key, {
    ttl: PRESIGNED_TTL_S,
    contentType: 'application/octet-stream',
    cacheControl: 'private, no-store',
  });
  if (link)
    return reply
      .header('x-content-sha256', object.sha256)
      .header('cache-control', 'private, no-store')
      .redirect(link, 302);
  const file = storage.localPathOf(object.key)!;
  const out = await send(req.raw, encodeURIComponent(file.slice(storage.localRoot!.length + 1)).replace(/%2F/g, '/'), {
    root: storage.localRoot!,
    dotfiles: 'deny',
    cacheControl: false,
    contentType: false,
  });
  if (out.type === 'error') {
    const status = (out.metadata as { error?: { status?: number } }).error?.status ?? 500;
    throw new AppError(status === 416 ? 416 : 404, status === 416 ? 'upload.badRange' : 'upload.objectMissing');
  }
  onLocal?.(req);
  reply.code(out.statusCode).headers(out.headers);
  reply
    .header('content-type', 'application/octet-stream')
    .header('x-content-sha256', object.sha256)
    .header('cache-control', 'private, no-store');
  return reply.send(out.stream);
}
