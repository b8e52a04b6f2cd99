import { z } from 'zod';

/**
 * Uploads (DESIGN §5): a short-lived upload token, and what an upload answers. The token names its bucket:
 * `permanentfile` takes jpg and png images (identity, avatars, rich-text images); `attachment` (issue 14: work-order
 * attachments) also takes gif, webp, pdf, zip and plain text, each checked by its bytes against its name.
 */
/** `package` (issue 15): fleet software packages ≤ 2 GiB, uploaded in chunks (`/upload/chunks`, resumable). */
/** `custom` (issue 16): customization media (jpg/png/webp/gif, mp4/webm, zip of frames): see system-custom.ts. */
export const UPLOAD_BUCKETS = ['permanentfile', 'attachment', 'package', 'custom'] as const;
export type UploadBucket = (typeof UPLOAD_BUCKETS)[number];
export const uploadTokenQuery = z.object({ bucket: z.enum(UPLOAD_BUCKETS).default('permanentfile') }).strict();
/** What the `attachment` bucket accepts, by the type its bytes show (text has no magic bytes: see the server). */
export const ATTACHMENT_ACCEPT = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'application/pdf',
  'application/zip',
  'text/plain',
];
/** The file-name extensions of the `attachment` bucket, and the type the bytes must show for each. */
export const ATTACHMENT_EXTENSIONS: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
  txt: 'text/plain',
  log: 'text/plain',
  csv: 'text/plain',
  json: 'text/plain',
};
export const uploadTokenResult = z.object({
  token: z.string(),
  uploadUrl: z.string(),
  maxSize: z.number().int(),
  accept: z.array(z.string()),
  expiresIn: z.number().int(),
});
export type UploadTokenResult = z.infer<typeof uploadTokenResult>;
export const uploadResult = z.object({ key: z.string(), url: z.string(), size: z.number().int(), mime: z.string() });
export type UploadResult = z.infer<typeof uploadResult>;
