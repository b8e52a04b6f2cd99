import type { FastifyRequest } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import { type AppError, badRequest } from './app-error.ts';

/**
 * @fastify/multipart stops a file at its size limit and ends the stream as if it were whole; only
 * `file.truncated` says it was cut. Every multipart route refuses such a file whole, with its own message.
 */
export function assertWhole(part: MultipartFile, tooLarge: AppError): void {
  if (part.file.truncated) throw tooLarge;
}

/** A stream error while reading a part: a failing disk is the server's, a body that stops early the caller's. */
export function cutShort(e: unknown): never {
  if ((e as NodeJS.ErrnoException).syscall) throw e;
  throw badRequest('file', 'upload.incomplete');
}

/** The bytes of a file part, refused whole when cut at its limit or cut short (never a truncated prefix). */
export async function wholeFile(part: MultipartFile, tooLarge: AppError): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of part.file) chunks.push(chunk as Buffer);
  } catch (e) {
    cutShort(e);
  }
  assertWhole(part, tooLarge);
  return Buffer.concat(chunks);
}

/**
 * The form's file part, or 400 on `file` when the request is no multipart form, the form cannot be read (no
 * boundary, junk, cut off: the parser's own errors carry no status) or holds no file.
 */
export async function firstFile(
  req: FastifyRequest,
  limits: { fileSize: number; fields?: number },
): Promise<MultipartFile> {
  if (!req.isMultipart()) throw badRequest('file', 'upload.notMultipart');
  let part: MultipartFile | undefined;
  try {
    part = await req.file({ limits: { files: 1, ...limits } });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode) throw err;
    throw badRequest('file', 'upload.badMultipart');
  }
  if (!part) throw badRequest('file', 'upload.fileRequired');
  return part;
}
