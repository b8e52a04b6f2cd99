import { z } from 'zod';
import { ICCID_RULE, MSG, SIM_STATES } from './device-constants.ts';
import { keywordField, pageFields, simState, textLine } from './device.ts';

/**
 * Data traffic (issue 13): the account's SIMs, their daily usage series, the traffic query (`/flowRate/flowRateSearch`)
 * and the alerts when a SIM runs low, runs out or nears its expiry. Packages, orders and payment are the `order`
 * section's; this one is about the SIMs themselves.
 */

/** Alert when a SIM expires within this many days (one message per SIM and state change). */
export const SIM_EXPIRY_REMIND_DAYS = 7;
/** How long the daily usage series is kept: at least 13 months. */
export const SIM_USAGE_KEEP_DAYS = 400;

/*
 * | Route (console prefix) | Permission | Query | Answer |
 * |---|---|---|---|
 * | GET /flowRate/sim/list | flowRate:view | simListQuery | { list: SimItem[], total } |
 * | GET /flowRate/sim/usage | flowRate:view | simUsageQuery | SimUsage |
 * | GET /flowRate/sim/export | flowRate:view | simExportQuery | CSV (UTF-8 with BOM), streamed |
 * | GET /flowRate/sim/summary | flowRate:view | – | SimSummary |
 */

export const SIM_SORTS = ['remaining', 'usedMonth', 'expiry'] as const;
export type SimSort = (typeof SIM_SORTS)[number];
export const SIM_USAGE_RANGES = ['30d', '90d', '12m'] as const;
export type SimUsageRange = (typeof SIM_USAGE_RANGES)[number];
/** The widest "expiring within N days" filter. */
export const SIM_EXPIRING_MAX_DAYS = 366;
/** The most rows one export writes. */
export const SIM_EXPORT_MAX = 1_000_000;

const STATE_LIST = new RegExp(`^(${SIM_STATES.join('|')})(,(${SIM_STATES.join('|')}))*$`);

/** The filters the list and the export share. */
export const simFilterFields = {
  /** Comma-separated states, e.g. `low,exhausted`. */
  state: z.string().trim().regex(STATE_LIST, 'flowRate.states').optional(),
  /** A carrier code (cmcc, cucc, ctcc) or any other carrier text as stored. */
  carrier: textLine(32).optional(),
  /** The SIM's device is in this group or one below it. */
  groupId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  /** The plan expires within this many days from now (already expired SIMs excluded). */
  expiringDays: z.coerce.number().int().min(1).max(SIM_EXPIRING_MAX_DAYS).optional(),
  /** Less than this share of the plan is left, in percent (SIMs with a plan only). */
  belowPercent: z.coerce.number().min(0).max(100).optional(),
  /** Part of the ICCID, the device's serial number or its name. */
  keyword: keywordField,
  /** Default: least data left first. */
  sort: z.enum(SIM_SORTS).default('remaining'),
  order: z.enum(['asc', 'desc']).default('asc'),
};

export const simListQuery = z.object({ ...pageFields, ...simFilterFields }).strict();
export type SimListQuery = z.input<typeof simListQuery>;
export const simExportQuery = z.object({ ...simFilterFields, lang: z.enum(['zh', 'en']).optional() }).strict();
export type SimExportQuery = z.input<typeof simExportQuery>;

export const simItem = z.object({
  iccid: z.string(),
  msisdn: z.string(),
  carrier: z.string(),
  deviceId: z.number().int().nullable(),
  deviceSn: z.string().nullable(),
  deviceName: z.string().nullable(),
  groupName: z.string().nullable(),
  /** MB, 2 decimals; 0 = no plan. */
  planMb: z.number(),
  usedMb: z.number(),
  leftMb: z.number(),
  /** Share of the plan left, 0-100 (1 decimal); null without a plan. */
  leftPercent: z.number().nullable(),
  /** MB used this calendar month (Asia/Shanghai), up and down. */
  usedMonthMb: z.number(),
  expiresAt: z.string().nullable(),
  state: simState,
  /** When the device last reported the SIM's counters. */
  reportedAt: z.string().nullable(),
});
export type SimItem = z.infer<typeof simItem>;

export const simUsageQuery = z
  .object({
    iccid: z.string().trim().regex(ICCID_RULE, MSG.iccid),
    range: z.enum(SIM_USAGE_RANGES).default('30d'),
  })
  .strict();
export type SimUsageQuery = z.input<typeof simUsageQuery>;

export const simUsagePoint = z.object({
  /** YYYY-MM-DD for days, YYYY-MM for months. */
  date: z.string(),
  txBytes: z.number(),
  rxBytes: z.number(),
});
export const simUsage = z.object({
  iccid: z.string(),
  range: z.enum(SIM_USAGE_RANGES),
  unit: z.enum(['day', 'month']),
  /** Oldest first, zero-filled. */
  points: z.array(simUsagePoint),
});
export type SimUsage = z.infer<typeof simUsage>;

export const simSummary = z.object({
  total: z.number().int(),
  byState: z.object(
    Object.fromEntries(SIM_STATES.map((s) => [s, z.number().int()])) as Record<
      (typeof SIM_STATES)[number],
      z.ZodNumber
    >,
  ),
  /** MB used this calendar month by every SIM of the account. */
  usedMonthMb: z.number(),
  /** This month's use plus the last 7 days' daily average for each day left in the month, MB. */
  projectedMonthMb: z.number(),
  /** Plans expiring within SIM_EXPIRY_REMIND_DAYS (not yet expired). */
  expiringSoon: z.number().int(),
});
export type SimSummary = z.infer<typeof simSummary>;
