import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ATTACHMENT_ACCEPT,
  CUSTOM_ACCEPT,
  PACKAGE_MAX_BYTES,
  UPLOAD_ACCEPT,
  UPLOAD_MAX_BYTES,
  envelopeSchema,
  uploadResult,
  uploadTokenQuery,
  uploadTokenResult,
} from '@cpc/contracts';
import { NO_CONTROL_MSG, hasNoControl } from '@cpc/contracts/validators';
import { caller } from '../../plugins/auth.ts';
import { AppError, badRequest, ok } from '../../plugins/errors.ts';
import type { ObjectStorage, UploadClaims } from '../../lib/storage.ts';
import { assertWhole, cutShort, firstFile } from '../../lib/multipart.ts';
import { assertMayUploadPackages } from '../package/index.ts';
import type { UploadService } from './service.ts';

const TOKEN_TTL = 3600;

type App = Parameters<FastifyPluginAsyncZod>[0];

/** Upload tokens, at two paths: what a signed-in user may upload to which bucket, for an hour. */
function tokenRoutes(app: App, storage: ObjectStorage): void {
  const tokenFor = (req: Parameters<typeof caller>[0], bucket: string) => {
    const u = caller(req);
    // a package upload can only become a package in the hands of an editor of firmware, apps or models
    if (bucket === 'package') assertMayUploadPackages(u);
    return ok({
      token: storage.uploadToken({ tenantId: u.tenantId, userId: u.id, sessionId: u.sessionId, bucket }, TOKEN_TTL),
      // packages (issue 15) go in chunks, resumable: see the package module's /upload/chunks
      uploadUrl: bucket === 'package' ? '/apiAdmin/upload/chunks' : '/apiAdmin/upload',
      maxSize: bucket === 'package' ? PACKAGE_MAX_BYTES : UPLOAD_MAX_BYTES,
      accept:
        bucket === 'attachment'
          ? ATTACHMENT_ACCEPT
          : bucket === 'package'
            ? []
            : bucket === 'custom'
              ? CUSTOM_ACCEPT
              : UPLOAD_ACCEPT,
      expiresIn: TOKEN_TTL,
    });
  };

  app.get(
    '/user/v1/user/getQnToken',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['upload'],
        summary: 'An upload token',
        querystring: uploadTokenQuery,
        response: { 200: envelopeSchema(uploadTokenResult) },
      },
    },
    async (req) => tokenFor(req, req.query.bucket),
  );
  app.post(
    '/admin/admin/getQiniuToken',
    {
      config: { access: 'signedIn' },
      schema: {
        tags: ['upload'],
        summary: 'An upload token (alternative path)',
        body: z
          .object({ bucket: z.enum(['permanentfile']).default('permanentfile') })
          .strict()
          .optional(),
        response: { 200: envelopeSchema(uploadTokenResult) },
      },
    },
    async (req) => tokenFor(req, req.body?.bucket ?? 'permanentfile'),
  );
}

/** The upload itself: checked before a byte is written, then stored by the upload service. */
function uploadRoute(app: App, storage: ObjectStorage, uploads: UploadService): void {
  app.post(
    '/upload',
    {
      config: { auth: false },
      schema: {
        tags: ['upload'],
        summary:
          'Upload a file (≤ 10 MB) with an upload token: multipart fields `token` then `file`. ' +
          "The token's bucket decides what is taken: `permanentfile` jpg or png, `attachment` also gif, webp, pdf, " +
          'zip and UTF-8 text (.txt .log .csv .json), `custom` jpg, png, webp, gif, mp4, webm and zips of ' +
          'PNG/JPG frames, its bytes matching its name',
        consumes: ['multipart/form-data'],
        response: { 200: envelopeSchema(uploadResult) },
      },
    },
    async (req) => {
      const part = await firstFile(req, { fileSize: UPLOAD_MAX_BYTES, fields: 5 });
      // Everything that can refuse the upload is checked before a byte is written; a refused file is drained.
      let claims: UploadClaims;
      const name = part.filename ?? '';
      try {
        const tokenField = part.fields.token as { value?: unknown } | undefined;
        const token =
          typeof tokenField?.value === 'string'
            ? tokenField.value
            : String((req.query as { token?: string }).token ?? '');
        claims = await uploads.claimsOf(token);
        if (!hasNoControl(name)) throw badRequest('filename', NO_CONTROL_MSG);
      } catch (e) {
        part.file.resume();
        throw e;
      }

      const { temp, size } = await storage.receive(part.file).catch(cutShort);
      try {
        assertWhole(part, badRequest('file', 'upload.tooLarge'));
        if (size === 0) throw badRequest('file', 'upload.fileEmpty');
        const { key, mime } = await uploads.store(claims, temp, name, size);
        return ok({ key, url: storage.signedUrl(key), size, mime });
      } finally {
        await storage.discard(temp);
      }
    },
  );
}

/** Reading an object through a signed link (from the bucket, or through this node). */
function objectRoute(app: App, storage: ObjectStorage, uploads: UploadService): void {
  app.get(
    '/objects/*',
    {
      config: { auth: false },
      schema: {
        tags: ['upload'],
        summary: 'Read an object through a signed URL',
        querystring: z.object({ exp: z.coerce.number().int(), sig: z.string().max(100) }).strict(),
      },
    },
    async (req, reply) => {
      // the router has already decoded the path once; decoding again would read '%25ZZ' as a bad escape
      const key = (req.params as { '*': string })['*'];
      if (!storage.checkSignedUrl(key, req.query.exp, req.query.sig)) throw new AppError(403, 'upload.linkInvalid');
      const mime = await uploads.mimeOf(key);
      const row = mime === undefined ? undefined : { mime };
      if (row && storage.remote) {
        // S3 (issue 17): the bytes come from the bucket, not through this node; the presigned link lives as long
        // as this one still does (at most an hour), with the same type and disposition as below
        const link = await storage.presignedGet(key, {
          ttl: Math.max(60, Math.min(3600, req.query.exp - Math.floor(Date.now() / 1000))),
          contentType: row.mime === 'text/plain' ? 'text/plain; charset=utf-8' : row.mime,
          attachment: !row.mime.startsWith('image/'),
          cacheControl: 'private, max-age=3600',
        });
        if (link) return reply.header('cache-control', 'private, max-age=300').redirect(link, 302);
      }
      const bytes = row ? await storage.read(key) : null;
      if (!row || !bytes) throw new AppError(404, 'upload.objectMissing');
      // anything but an image is a download, never a page the browser would render
      if (!row.mime.startsWith('image/')) reply.header('content-disposition', 'attachment');
      reply
        .header('content-type', row.mime === 'text/plain' ? 'text/plain; charset=utf-8' : row.mime)
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff');
      return reply.send(bytes);
    },
  );
}

/** The upload flow: get a token, upload to the server's own object storage, get a key back. */
export const uploadRoutes: FastifyPluginAsyncZod<{ storage: ObjectStorage; uploads: UploadService }> = async (
  app,
  { storage, uploads },
) => {
  tokenRoutes(app, storage);
  uploadRoute(app, storage, uploads);
  objectRoute(app, storage, uploads);
};
