import { OCR_ACCEPT, OCR_MAX_BYTES } from '@cpc/contracts/ai-library-constants';

/** Why an image may not be sent for recognition: not a jpg/png/webp, or over 10 MB (the server checks the bytes again). */
export type OcrImageProblem = 'type' | 'size';

const EXTENSIONS = /\.(jpe?g|png|webp)$/i;

export function checkOcrImage(file: { name?: string; type?: string; size: number }): OcrImageProblem | null {
  const typeOk = file.type ? (OCR_ACCEPT as readonly string[]).includes(file.type) : EXTENSIONS.test(file.name ?? '');
  if (!typeOk) return 'type';
  if (file.size > OCR_MAX_BYTES) return 'size';
  return null;
}

export const OCR_ACCEPT_ATTR = [...OCR_ACCEPT, '.jpg', '.jpeg', '.png', '.webp'].join(',');

/** A job's state as an antd Tag colour. */
export const STATE_COLOR = { queued: 'default', running: 'processing', done: 'success', failed: 'error' } as const;
