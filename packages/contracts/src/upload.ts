import { z } from 'zod';

/** Uploads (DESIGN §5): a short-lived upload token, and what an upload answers. */
export const uploadTokenQuery = z.object({ bucket: z.enum(['permanentfile']).default('permanentfile') }).strict();
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
