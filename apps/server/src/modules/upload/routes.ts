import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { fileTypeFromBuffer } from 'file-type';
import { UPLOAD_ACCEPT, UPLOAD_MAX_BYTES, envelopeSchema, uploadResult, uploadTokenQuery, uploadTokenResult } from '@cpc/contracts';
import { caller } from '../../plugins/auth.ts';
import { AppError, badRequest, ok } from '../../plugins/errors.ts';
import type { ObjectStorage } from '../../lib/storage.ts';
import type { Db } from '../../db/database.ts';
import { TenantScope } from '../../db/tenant-scope.ts';

const TOKEN_TTL = 3600;

/** SPEC §7's upload flow: get a token, upload to the server's own object storage, get a key back. */
export const uploadRoutes: FastifyPluginAsyncZod<{ storage: ObjectStorage; db: Db }> = async (app, { storage, db }) => {
  const tokenFor = (req: Parameters<typeof caller>[0], bucket: string) => {
    const u = caller(req);
    return ok({ token: storage.uploadToken({ tenantId: u.tenantId, userId: u.id, bucket }, TOKEN_TTL), uploadUrl: '/apiAdmin/upload', maxSize: UPLOAD_MAX_BYTES, accept: UPLOAD_ACCEPT, expiresIn: TOKEN_TTL });
  };

  app.get('/user/v1/user/getQnToken', { schema: { tags: ['upload'], summary: 'An upload token', querystring: uploadTokenQuery, response: { 200: envelopeSchema(uploadTokenResult) } } }, async (req) => tokenFor(req, req.query.bucket));
  app.post('/admin/admin/getQiniuToken', { schema: { tags: ['upload'], summary: 'An upload token (alternative path)', body: z.object({ bucket: z.enum(['permanentfile']).default('permanentfile') }).strict().optional(), response: { 200: envelopeSchema(uploadTokenResult) } } }, async (req) => tokenFor(req, req.body?.bucket ?? 'permanentfile'));

  app.post('/upload', { config: { auth: false }, schema: { tags: ['upload'], summary: 'Upload a jpg or png (≤ 10 MB) with an upload token: multipart fields `token` then `file`', consumes: ['multipart/form-data'], response: { 200: envelopeSchema(uploadResult) } } }, async (req) => {
    if (!req.isMultipart()) throw badRequest('file', 'must be sent as multipart/form-data');
    const part = await req.file({ limits: { fileSize: UPLOAD_MAX_BYTES, files: 1, fields: 5 } });
    if (!part) throw badRequest('file', 'file required');
    const tokenField = part.fields.token as { value?: unknown } | undefined;
    const token = typeof tokenField?.value === 'string' ? tokenField.value : String((req.query as { token?: string }).token ?? '');
    const claims = storage.readUploadToken(token);
    if (!claims) {
      part.file.resume();
      throw new AppError(401, 'upload token invalid or expired');
    }
    let bytes: Buffer;
    try {
      bytes = await part.toBuffer();
    } catch {
      throw badRequest('file', 'file must not exceed 10MB');
    }
    if (bytes.length === 0) throw badRequest('file', 'file is empty');
    const type = await fileTypeFromBuffer(bytes);
    if (!type || !UPLOAD_ACCEPT.includes(type.mime)) throw badRequest('file', 'uploads must be jpg or png');
    const key = storage.newKey(part.filename || `upload.${type.ext}`);
    await storage.put(key, bytes);
    await new TenantScope(db, claims.tenantId).insertInto('objects', { key, user_id: claims.userId, bucket: claims.bucket, size: bytes.length, mime: type.mime, original_name: (part.filename || '').slice(0, 200) }).execute();
    return ok({ key, url: storage.signedUrl(key), size: bytes.length, mime: type.mime });
  });

  app.get('/objects/*', { config: { auth: false }, schema: { tags: ['upload'], summary: 'Read an object through a signed URL', querystring: z.object({ exp: z.coerce.number().int(), sig: z.string().max(100) }).strict() } }, async (req, reply) => {
    const key = decodeURIComponent((req.params as { '*': string })['*']);
    if (!storage.checkSignedUrl(key, req.query.exp, req.query.sig)) throw new AppError(403, 'link invalid or expired');
    const row = await db.selectFrom('objects').select('mime').where('key', '=', key).executeTakeFirst();
    if (!row) throw new AppError(404, 'object does not exist');
    reply.header('content-type', row.mime).header('cache-control', 'private, max-age=3600').header('x-content-type-options', 'nosniff');
    return reply.send(await storage.read(key));
  });
};
