import { z } from 'zod';

/** What the console reports of an unexpected error a customer met (the panel is for staff): bounded text only. */
export const clientErrorBody = z
  .object({
    message: z.string().trim().min(1).max(500),
    stack: z.string().max(4000).optional(),
    url: z.string().max(500),
  })
  .strict();
export type ClientErrorBody = z.infer<typeof clientErrorBody>;

/** Whether the report was written: false once the session has sent its share. */
export const clientErrorResult = z.object({ logged: z.boolean() });
export type ClientErrorResult = z.infer<typeof clientErrorResult>;
