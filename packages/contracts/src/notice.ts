import { z } from 'zod';

export const noticeItem = z.object({
  id: z.number().int(),
  title: z.string(),
  notice: z.string(),
  image: z.string(),
  email: z.string(),
  pinned: z.boolean(),
  publishedAt: z.string(),
});
export type NoticeItem = z.infer<typeof noticeItem>;
