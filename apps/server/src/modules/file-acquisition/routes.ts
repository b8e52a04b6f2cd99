import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FILE_CHUNK_MAX_BYTES, PERMISSIONS, envelopeSchema, pagedEnvelope } from '@cpc/contracts';
import {
  fileRequestBody,
  fileRequestIds,
  fileRequestItem,
  fileRequestListQuery,
} from '@cpc/contracts/file-acquisition';
import { actorOf, caller } from '../../plugins/auth.ts';
import { AppError, ok } from '../../plugins/errors.ts';
import type { FileAcquisitionService } from './service.ts';
import { attachmentHeader } from '../../lib/storage.ts';

const signedQuery = z.object({ exp: z.coerce.number().int(), sig: z.string().max(100) }).strict();
const idParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) }).strict();

/** The console's side: ask devices for files, list the requests, download and delete what arrived. */
export const fileAcquisitionRoutes: FastifyPluginAsyncZod<{ files: FileAcquisitionService }> = async (
  app,
  { files },
) => {
  app.post(
    '/fileAcquisition/request',
    {
      config: { permission: PERMISSIONS.fileAcquisitionEdit },
      schema: {
        tags: ['file-acquisition'],
        summary:
          'Ask devices for a predefined set of files or a path pattern below the allowed roots (one request per device)',
        body: fileRequestBody,
        response: { 200: envelopeSchema(z.array(fileRequestItem)) },
      },
    },
    async (req) => {
      const items = await files.create(caller(req), req.body);
      await files.logRequested(actorOf(req), items);
      return ok(items);
    },
  );

  app.get(
    '/fileAcquisition/list',
    {
      config: { permission: PERMISSIONS.fileAcquisitionView },
      schema: {
        tags: ['file-acquisition'],
        summary: 'File requests and acquired files, newest first',
        querystring: fileRequestListQuery,
        response: { 200: pagedEnvelope(fileRequestItem) },
      },
    },
    async (req) => ok(await files.list(caller(req), req.query)),
  );

  app.get(
    '/fileAcquisition/download',
    {
      config: { permission: PERMISSIONS.fileAcquisitionView },
      schema: {
        tags: ['file-acquisition'],
        summary: 'A signed link (one hour) to download an acquired file, served as an attachment',
        querystring: idParams,
        response: {
          200: envelopeSchema(z.object({ url: z.string(), fileName: z.string(), size: z.number().int() })),
        },
      },
    },
    async (req) => {
      const item = await files.get(caller(req), req.query.id);
      if (item.state !== 'ready' || !item.objectKey) throw new AppError(409, 'fileAcquisition.notReady');
      await files.logDownload(actorOf(req), item);
      return ok({ url: files.fileUrl(item.id), fileName: item.fileName, size: item.size });
    },
  );

  app.post(
    '/fileAcquisition/delete',
    {
      config: { permission: PERMISSIONS.fileAcquisitionEdit },
      schema: {
        tags: ['file-acquisition'],
        summary: 'Delete requests: open ones are canceled, acquired files removed',
        body: fileRequestIds,
        response: { 200: envelopeSchema(z.object({ deleted: z.number().int() })) },
      },
    },
    async (req) => {
      const items = await files.remove(caller(req), req.body.ids);
      await files.logDeleted(actorOf(req), items);
      return ok({ deleted: items.length });
    },
  );
};

/**
 * The device's side, under /device-files (no console sign-in, no payload crypto: the signature is the credential).
 * `HEAD /device-files/upload/:id` answers the bytes received so far (`Upload-Offset`), `PUT` takes one chunk
 * (`Content-Range: bytes a-b/total`, ≤ FILE_CHUNK_MAX_BYTES); `GET /device-files/acquired/:id` is the console's
 * signed download of a finished file.
 */
export const deviceUploadRoutes: FastifyPluginAsyncZod<{ files: FileAcquisitionService }> = async (app, { files }) => {
  // chunks are raw bytes, whatever type the device says they are
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: FILE_CHUNK_MAX_BYTES }, (_req, body, done) =>
    done(null, body),
  );

  const checked = (id: number, q: { exp: number; sig: string }) => {
    if (!files.checkUpload(id, q.exp, q.sig)) throw new AppError(403, 'upload.linkInvalid');
  };

  app.head(
    '/device-files/upload/:id',
    {
      config: { auth: false },
      schema: {
        tags: ['device'],
        summary: 'How many bytes of its file the server has (Upload-Offset), to resume an upload',
        params: idParams,
        querystring: signedQuery,
      },
    },
    async (req, reply) => {
      checked(req.params.id, req.query);
      const { offset, total } = await files.offset(req.params.id);
      reply
        .header('upload-offset', String(offset))
        .header('upload-length', String(total))
        .header('cache-control', 'no-store');
      return reply.code(200).send();
    },
  );

  app.put(
    '/device-files/upload/:id',
    {
      config: { auth: false },
      schema: {
        tags: ['device'],
        summary:
          'A device uploads one chunk of its requested file (Content-Range: bytes a-b/total, at most 8 MB); the last chunk completes it',
        params: idParams,
        querystring: signedQuery.extend({ name: z.string().max(200).optional() }).strict(),
        response: {
          200: envelopeSchema(z.object({ offset: z.number().int(), total: z.number().int(), complete: z.boolean() })),
        },
      },
    },
    async (req) => {
      checked(req.params.id, req.query);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      return ok(await files.chunk(req.params.id, req.headers['content-range'], body, req.query.name ?? ''));
    },
  );

  app.get(
    '/device-files/acquired/:id',
    {
      config: { auth: false },
      schema: {
        tags: ['file-acquisition'],
        summary: 'Download an acquired file through the signed link /fileAcquisition/download answered',
        params: idParams,
        querystring: signedQuery,
      },
    },
    async (req, reply) => {
      if (!files.checkFile(req.params.id, req.query.exp, req.query.sig)) throw new AppError(403, 'upload.linkInvalid');
      const f = await files.fileOf(req.params.id);
      const got = f
        ? await files.download(f, Math.max(60, Math.min(3600, req.query.exp - Math.floor(Date.now() / 1000))))
        : null;
      if (!f || !got) throw new AppError(404, 'upload.objectMissing');
      reply.header('cache-control', 'private, no-store');
      if ('link' in got) return reply.redirect(got.link, 302);
      reply
        .header('content-type', f.mime === 'text/plain' ? 'text/plain; charset=utf-8' : f.mime)
        .header('content-length', String(got.size))
        .header('content-disposition', attachmentHeader(f.name))
        .header('x-content-type-options', 'nosniff');
      return reply.send(got.stream);
    },
  );
};
