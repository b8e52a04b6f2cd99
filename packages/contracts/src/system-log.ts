import { z } from 'zod';
import { hasNoControl, NO_CONTROL_MSG } from './validators.ts';

/**
 * The system log (issue 12, DESIGN §4): sign-ins, changes with their fields before → after, refused access.
 * A customer reads its own tenant's entries, staff read every tenant's. Newest first, paged by a cursor (the
 * key of the last entry shown), so the thousandth page costs what the first does. Paths are under /apiAdmin.
 *
 * | call | permission | request | data |
 * |---|---|---|---|
 * | GET /system/log/list | system:log:view | systemLogQuery | SystemLogPage |
 * | GET /system/log/export | system:log:view | systemLogFilter (+ lang) | text/csv, streamed |
 */

/** How many entries a total counts exactly; past it the total is shown as "10,000+" or as an estimate. */
export const SYSTEM_LOG_COUNT_CAP = 10_000;
/** The most entries one CSV export holds (the newest of the filter). */
export const SYSTEM_LOG_EXPORT_MAX = 1_000_000;
export const SYSTEM_LOG_RESULTS = ['ok', 'fail', 'denied'] as const;
export type SystemLogResult = (typeof SYSTEM_LOG_RESULTS)[number];

const text = (max: number) =>
  z.string().trim().max(max, 'rule.maxChars').refine(hasNoControl, NO_CONTROL_MSG).optional();
/** An instant as ISO 8601 (`2026-11-26T03:00:00Z`) or epoch milliseconds. */
const instant = z
  .union([
    z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }),
    z.string().regex(/^\d{1,15}$/, 'rule.isoDateTime'),
  ])
  .transform((v) => (/^\d+$/.test(v) ? new Date(Number(v)).toISOString() : new Date(v).toISOString()))
  .optional();

export const systemLogFilter = z
  .object({
    /** The account name (case-insensitive; a prefix matches) of who did it or tried to sign in. */
    user: text(50),
    /** An action (`device.edit`) or a prefix of actions (`device.`, `login`). */
    action: text(50),
    /** The kind of object (`device`, `role`…). */
    resource: text(50),
    /** The object's id. */
    resourceId: text(100),
    result: z.enum(SYSTEM_LOG_RESULTS).optional(),
    from: instant,
    to: instant,
    /** Staff only: one tenant's entries. A customer always reads its own. */
    tenantId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .strict();
export type SystemLogFilter = z.input<typeof systemLogFilter>;

export const systemLogQuery = systemLogFilter
  .extend({
    /** The `next` of the previous page; absent for the first (newest) page. */
    cursor: z
      .string()
      .regex(/^\d{1,17}\.\d{1,17}$/, 'rule.logCursor')
      .optional(),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type SystemLogQuery = z.input<typeof systemLogQuery>;

export const systemLogExportQuery = systemLogFilter.extend({ lang: z.enum(['zh', 'en']).optional() }).strict();
export type SystemLogExportQuery = z.input<typeof systemLogExportQuery>;

export const fieldChange = z.object({ before: z.unknown(), after: z.unknown() });

export const systemLogEntry = z.object({
  id: z.number().int(),
  at: z.string(),
  tenantId: z.number().int().nullable(),
  tenantName: z.string(),
  userId: z.number().int().nullable(),
  /** The account's name; for a failed sign-in of an unknown account, the name that was tried. */
  userName: z.string(),
  ip: z.string(),
  /** A short summary of the client's user agent (browser and system) for sign-ins. */
  device: z.string(),
  action: z.string(),
  resource: z.string(),
  resourceId: z.string(),
  result: z.string(),
  /** The fields the change touched, before → after (secrets masked as ***). */
  changes: z.record(z.string(), fieldChange),
  /** Other details (a sign-in failure's reason, the refused permission…). */
  details: z.record(z.string(), z.unknown()),
});
export type SystemLogEntry = z.infer<typeof systemLogEntry>;

export const systemLogPage = z.object({
  list: z.array(systemLogEntry),
  /** The cursor of the next (older) page; null at the end. */
  next: z.string().nullable(),
  /**
   * The first page's total (later pages: null, keep the first's): `exact`, at least `total` (`atLeast`, the count
   * stopped at SYSTEM_LOG_COUNT_CAP), or the planner's `estimate` for a very large result.
   */
  total: z.number().int().nullable(),
  totalKind: z.enum(['exact', 'atLeast', 'estimate']).nullable(),
});
export type SystemLogPage = z.infer<typeof systemLogPage>;
