/** The AI library's plain values (no zod: the console imports them without the schemas). */

/** What an OCR image may be, told by its bytes (not its name). */
export const OCR_ACCEPT = ['image/jpeg', 'image/png', 'image/webp'] as const;
/** Largest OCR image. */
export const OCR_MAX_BYTES = 10 * 1024 * 1024;
/** How long a job and its result are kept. */
export const OCR_RETENTION_DAYS = 7;
/** The languages recognised together. */
export const OCR_LANGUAGES = ['chi_sim', 'eng'] as const;

/**
 * Why a job failed (its `error`): the image could not be read, its stored image was gone, no node finished it in
 * time (three takes), or — the job itself done — printing its receipt was refused (open API `print`).
 */
export const OCR_ERRORS = ['unreadable', 'image_gone', 'timeout', 'print_failed'] as const;
export type OcrError = (typeof OCR_ERRORS)[number];

export const OCR_JOB_STATES = ['queued', 'running', 'done', 'failed'] as const;
export type OcrJobState = (typeof OCR_JOB_STATES)[number];
