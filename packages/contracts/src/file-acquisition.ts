import { z } from 'zod';
import { pageQuery } from './envelope.ts';
import { NO_CONTROL_MSG, hasNoControl } from './validators.ts';

/**
 * File acquisition (issue 15): the console asks devices for files — a predefined set (system log, print log, crash
 * dumps) or a path pattern inside an allowed set of roots — and each device uploads what matched through a signed,
 * expiring, chunked upload link bound to its own request. Paths are under /apiAdmin.
 */

/** The predefined sets, each a fixed path pattern on the device. */
export const FILE_PRESETS = {
  system_log: '/data/log/system/*.log',
  print_log: '/data/log/print/*.log',
  crash_dumps: '/data/tombstones/tombstone_*',
} as const;
export type FilePreset = keyof typeof FILE_PRESETS;
export const FILE_PRESET_NAMES = Object.keys(FILE_PRESETS) as FilePreset[];

/**
 * Where a path pattern may point: below one of these roots. `<pkg>` is an Android package name (an application's
 * own files). Anything else — another folder, `..`, `.`, an empty segment, a backslash, a glob other than `*`/`?` —
 * is refused.
 */
export const FILE_ROOTS = [
  '/data/log/',
  '/data/anr/',
  '/data/tombstones/',
  '/sdcard/Download/',
  '/sdcard/Android/data/<pkg>/files/',
] as const;

const PKG = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
/** One path segment: letters, digits, `._-+@`, and the globs `*` `?`; never `.` or `..`. */
const SEGMENT = /^[A-Za-z0-9._\-+@*?]{1,100}$/;

/** Whether a path pattern is inside the allowed roots (see FILE_ROOTS). */
export function isAllowedPath(p: string): boolean {
  if (p.length > 255 || !p.startsWith('/')) return false;
  const segs = p.slice(1).split('/');
  const rest = (() => {
    if (segs[0] === 'data' && ['log', 'anr', 'tombstones'].includes(segs[1] ?? '')) return segs.slice(2);
    if (segs[0] === 'sdcard' && segs[1] === 'Download') return segs.slice(2);
    if (
      segs[0] === 'sdcard' &&
      segs[1] === 'Android' &&
      segs[2] === 'data' &&
      PKG.test(segs[3] ?? '') &&
      segs[4] === 'files'
    )
      return segs.slice(5);
    return null;
  })();
  if (!rest || rest.length === 0) return false;
  return rest.every((s) => SEGMENT.test(s) && s !== '.' && s !== '..');
}

/** The largest file a request may ask for, and the default. */
export const FILE_ACQUISITION_MAX_BYTES = 512 * 1024 ** 2;
export const FILE_ACQUISITION_DEFAULT_BYTES = 20 * 1024 ** 2;
/** A chunk of a device's upload (`PUT` with `Content-Range`). */
export const FILE_CHUNK_MAX_BYTES = 8 * 1024 ** 2;
/** How long a request waits for an offline device, at most (days), and the default (hours). */
export const FILE_REQUEST_MAX_DAYS = 7;
/** Acquired files are kept this many days, then deleted with their request. */
export const FILE_KEEP_DAYS = 30;

/**
 * What the console shows of a request: waiting (the device has not taken it: offline), delivered (the device has it),
 * uploading (with %), ready, failed (with the reason), expired (the device did not answer in time).
 */
export const FILE_REQUEST_STATES = ['waiting', 'delivered', 'uploading', 'ready', 'failed', 'expired'] as const;
export const fileRequestState = z.enum(FILE_REQUEST_STATES);
export type FileRequestState = z.infer<typeof fileRequestState>;

export const fileRequestBody = z
  .object({
    deviceIds: z.array(z.number().int().positive()).min(1, 'rule.required').max(200),
    /** A predefined set, or … */
    preset: z.enum(['system_log', 'print_log', 'crash_dumps']).optional(),
    /** … a path pattern below FILE_ROOTS. */
    path: z.string().trim().max(255).refine(hasNoControl, NO_CONTROL_MSG).optional(),
    maxBytes: z.number().int().min(1).max(FILE_ACQUISITION_MAX_BYTES).default(FILE_ACQUISITION_DEFAULT_BYTES),
    /** How long the request waits for an offline device. */
    expireHours: z
      .number()
      .int()
      .min(1)
      .max(FILE_REQUEST_MAX_DAYS * 24)
      .default(72),
  })
  .strict();
export type FileRequestBody = z.input<typeof fileRequestBody>;

export const fileRequestListQuery = pageQuery
  .extend({
    keyword: z.string().trim().max(64).refine(hasNoControl, NO_CONTROL_MSG).optional(),
    state: fileRequestState.optional(),
    preset: z.enum(['system_log', 'print_log', 'crash_dumps', 'path']).optional(),
  })
  .strict();
export type FileRequestListQuery = z.infer<typeof fileRequestListQuery>;

export const fileRequestItem = z.object({
  id: z.number().int(),
  deviceId: z.number().int(),
  deviceSn: z.string(),
  deviceName: z.string(),
  /** The predefined set, or '' for a path. */
  preset: z.string(),
  pattern: z.string(),
  maxBytes: z.number().int(),
  state: fileRequestState,
  /** Uploading: the percentage received. */
  progress: z.number().int(),
  error: z.string(),
  fileName: z.string(),
  size: z.number().int(),
  createdAt: z.string(),
  expireAt: z.string(),
  completedAt: z.string().nullable(),
  taskId: z.string(),
});
export type FileRequestItem = z.infer<typeof fileRequestItem>;

export const fileRequestIds = z.object({ ids: z.array(z.number().int().positive()).min(1).max(200) }).strict();

/** What a fetch_file task tells the device (its `params`; `uploadUrl` is added at each delivery). */
export const fetchFileParams = z.object({
  requestId: z.number().int(),
  pattern: z.string(),
  preset: z.string(),
  maxBytes: z.number().int(),
  chunkBytes: z.number().int(),
  /** Signed, expiring: `PUT` chunks with `Content-Range: bytes a-b/total`, `HEAD` answers the offset received. */
  uploadUrl: z.string(),
});
export type FetchFileParams = z.infer<typeof fetchFileParams>;
