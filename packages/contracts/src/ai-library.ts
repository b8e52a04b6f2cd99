import { z } from 'zod';
import { pageQuery } from './envelope.ts';
import { OCR_JOB_STATES } from './ai-library-constants.ts';

/**
 * The AI library's cloud side (issue 15): text recognition (OCR) of a document image, run by the platform for a
 * tenant, its result printable as a receipt. The terminal side (model packages on devices) is the application
 * section's deployments of kind 'model'.
 */

export * from './ai-library-constants.ts';

/** One recognised line with its confidence (0–100). */
export const ocrLine = z.object({ text: z.string(), confidence: z.number() });
export type OcrLine = z.infer<typeof ocrLine>;

export const ocrJob = z.object({
  id: z.number().int(),
  state: z.enum(OCR_JOB_STATES),
  /** console | open (the open API) */
  source: z.enum(['console', 'open']),
  fileName: z.string(),
  size: z.number().int(),
  mime: z.string(),
  /** A signed, expiring link to the image. */
  imageUrl: z.string(),
  text: z.string(),
  lines: z.array(ocrLine),
  /** The languages the text was read with, `chi_sim+eng`. */
  language: z.string(),
  /** Recognition time in ms (null until done). */
  durationMs: z.number().int().nullable(),
  /** Why it failed, one of OCR_ERRORS ('' otherwise; `print_failed` on a done job whose receipt was refused). */
  error: z.string(),
  createdBy: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** When the job and its result are deleted. */
  expiresAt: z.string(),
});
export type OcrJob = z.infer<typeof ocrJob>;

/** A job from an image uploaded through the upload flow (its key). */
export const ocrSubmitBody = z.object({ objectKey: z.string().trim().min(1).max(300) }).strict();
export type OcrSubmitBody = z.infer<typeof ocrSubmitBody>;

export const ocrListQuery = pageQuery.extend({ state: z.enum(OCR_JOB_STATES).optional() }).strict();
export type OcrListQuery = z.infer<typeof ocrListQuery>;

export const ocrIdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) }).strict();

/** Print a done job's text as a receipt on a device of the tenant (through an app key of the tenant). */
export const ocrPrintBody = z
  .object({
    deviceId: z.number().int().positive(),
    /** The app key the print job is made under; default the tenant's oldest active one. */
    keyId: z.number().int().positive().optional(),
    copies: z.number().int().min(1).max(5).default(1),
  })
  .strict();
export type OcrPrintBody = z.infer<typeof ocrPrintBody>;

export const ocrPrinted = z.object({ printJobId: z.string(), state: z.string() });
export type OcrPrinted = z.infer<typeof ocrPrinted>;

/** What the tenant may still submit. */
export const ocrStatus = z.object({ active: z.number().int(), limit: z.number().int(), workers: z.number().int() });
export type OcrStatus = z.infer<typeof ocrStatus>;

// ------------------------------------------------------------------------------------------------------------------
// Open API (/open/v1/ai/ocr)

/** Largest base64 text an open-API OCR call may carry (a 10 MB image is about 14 M characters). */
export const OPEN_OCR_MAX_CHARS = 16_000_000;

/** The image as base64 (≤ 10 MB decoded); `print` prints the result on the device once it is done. */
export const openOcrBody = z
  .object({
    /** base64 (a `data:image/...;base64,` prefix is allowed); over 10 MB decoded is refused naming the size. */
    image: z.string().min(1).max(OPEN_OCR_MAX_CHARS),
    fileName: z.string().max(200).optional(),
    print: z
      .object({ deviceSn: z.string().trim().min(1).max(64), copies: z.number().int().min(1).max(5).default(1) })
      .strict()
      .optional(),
  })
  .strict();
export type OpenOcrBody = z.infer<typeof openOcrBody>;

export const openOcrJob = z.object({
  id: z.number().int(),
  state: z.enum(OCR_JOB_STATES),
  text: z.string(),
  lines: z.array(ocrLine),
  language: z.string(),
  durationMs: z.number().int().nullable(),
  error: z.string(),
  /** The print job made for `print`, once made. */
  printJobId: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type OpenOcrJob = z.infer<typeof openOcrJob>;
