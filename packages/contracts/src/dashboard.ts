import { z } from 'zod';
import { deviceStatus, paperState, provinceCount } from './device.ts';
import { DEFAULT_TIME_ZONE, SIM_STATES, TREND_UNITS, isTimeZone } from './device-constants.ts';
import { orderWidget } from './order.ts';

/**
 * The home dashboard's widgets (SPEC §2) from the tenant's real data: `GET /apiAdmin/dashboard/overview`
 * (everything at once) and `GET /apiAdmin/dashboard/trend` (the trend alone, to switch hour/day).
 * Days, "today" and "this month" are counted in the caller's time zone (`tz`, default Asia/Shanghai).
 */

export {
  DEFAULT_TIME_ZONE,
  INSTALL_DAYS,
  OFFLINE_REMIND_HOURS,
  RANK_SIZE,
  TREND_DAYS,
  TREND_UNITS,
  isTimeZone,
} from './device-constants.ts';

const tzField = z.string().max(64).refine(isTimeZone, 'rule.timeZone').default(DEFAULT_TIME_ZONE);
export const trendUnit = z.enum(TREND_UNITS);
export type TrendUnit = z.infer<typeof trendUnit>;

export const dashboardQuery = z.object({ tz: tzField, unit: trendUnit.default('day') }).strict();
export type DashboardQuery = z.input<typeof dashboardQuery>;

export const topCards = z.object({
  /** Devices bound to the account. */
  devices: z.number().int(),
  online: z.number().int(),
  /** Device tasks created since local midnight. */
  tasksToday: z.number().int(),
  /**
   * SIM data used since the first of the month, MB: per device, the telemetry's used counter now minus its first
   * value this month (after a counter reset, the value since the reset).
   */
  dataUsedMonthMb: z.number(),
});
export type TopCards = z.infer<typeof topCards>;

export const trendPoint = z.object({
  /** Start of the hour or day (ISO). */
  at: z.string(),
  /** The most devices online at the same time during the bucket (from the status history). */
  online: z.number().int(),
  /** Tasks created in the bucket. */
  tasks: z.number().int(),
});
export const trend = z.object({ unit: trendUnit, points: z.array(trendPoint) });
export type Trend = z.infer<typeof trend>;

export const rankedDevice = z.object({ id: z.number().int(), sn: z.string(), name: z.string(), value: z.number() });
export type RankedDevice = z.infer<typeof rankedDevice>;

export const groupRank = z.object({
  /** A top-level group (with the devices of the groups below it); null = devices in no group. */
  id: z.number().int().nullable(),
  name: z.string(),
  devices: z.number().int(),
  online: z.number().int(),
});
export type GroupRank = z.infer<typeof groupRank>;

export const installDay = z.object({ date: z.string(), count: z.number().int() });

export const remindDevice = z.object({
  id: z.number().int(),
  sn: z.string(),
  name: z.string(),
  status: deviceStatus,
  paper: paperState,
  lastSeenAt: z.string().nullable(),
  simDataLeftMb: z.number().nullable(),
});
export type RemindDevice = z.infer<typeof remindDevice>;
const remindList = z.object({ count: z.number().int(), devices: z.array(remindDevice) });

export const versionCount = z.object({
  /** '' when the device has not reported one yet. */
  firmware: z.string(),
  count: z.number().int(),
  online: z.number().int(),
});

/**
 * The dashboard's "plan" widget (issue 13): the account's SIMs by state and the plans expiring within
 * SIM_EXPIRY_REMIND_DAYS (7), soonest first (at most RANK_SIZE listed, all counted). Part of `dashboardOverview`.
 */
export const planExpiringSim = z.object({
  iccid: z.string(),
  deviceId: z.number().int().nullable(),
  deviceSn: z.string().nullable(),
  deviceName: z.string().nullable(),
  expiresAt: z.string(),
  /** MB left of the plan (2 decimals). */
  leftMb: z.number(),
});
export const planWidget = z.object({
  total: z.number().int(),
  byState: z.object(
    Object.fromEntries(SIM_STATES.map((s) => [s, z.number().int()])) as Record<
      (typeof SIM_STATES)[number],
      z.ZodNumber
    >,
  ),
  expiring: z.object({ count: z.number().int(), sims: z.array(planExpiringSim) }),
});
export type PlanWidget = z.infer<typeof planWidget>;

/**
 * The "target" widget (issue 14): print jobs created this month (the caller's time zone, devices of its data
 * scope) against the monthly target the account set (`POST /dashboard/target`; null: none set yet). Null in the
 * overview without print:view.
 */
export const DASHBOARD_TARGET_MAX = 100_000_000;
export const targetWidget = z.object({
  /** The month counted, YYYY-MM (local). */
  month: z.string(),
  /** Print jobs created this month. */
  jobs: z.number().int(),
  /** Of them, printed. */
  printed: z.number().int(),
  /** The account's monthly target, null when none is set. */
  target: z.number().int().nullable(),
  /** Whether the caller may change the target (the main account). */
  canEdit: z.boolean(),
});
export type TargetWidget = z.infer<typeof targetWidget>;

/** Sets the account's monthly print-job target (whole jobs, 1…DASHBOARD_TARGET_MAX), or clears it with null. */
export const targetBody = z
  .object({ monthlyJobs: z.number().int('rule.wholeNumber').min(1).max(DASHBOARD_TARGET_MAX).nullable() })
  .strict();
export type TargetBody = z.infer<typeof targetBody>;

/**
 * The "my project" widget (issue 14): the account's top-level device groups (each with the devices of the groups
 * below it) with their devices (online/total, data scope) and print jobs this month, most jobs first, at most
 * RANK_SIZE. Each opens the device list filtered by the group (`/device/index?groupId=`).
 */
export const projectItem = z.object({
  id: z.number().int(),
  name: z.string(),
  devices: z.number().int(),
  online: z.number().int(),
  jobsMonth: z.number().int(),
});
export type ProjectItem = z.infer<typeof projectItem>;

export const dashboardOverview = z.object({
  cards: topCards,
  provinces: z.array(provinceCount),
  trend,
  deviceRanking: z.object({
    /** Tasks created this month. */
    byTasks: z.array(rankedDevice),
    /** SIM data used this month, MB. */
    byData: z.array(rankedDevice),
  }),
  groupRanking: z.array(groupRank),
  /** Devices bound per day over the last INSTALL_DAYS days (local dates, oldest first). */
  installs: z.array(installDay),
  remind: z.object({
    /** Paper out, cover open or overheated. */
    paper: remindList,
    /** Offline (or never connected) for more than OFFLINE_REMIND_HOURS. */
    offline: remindList,
    /** SIM low (less than SIM_LOW_MB or SIM_LOW_RATIO of its plan left) or suspended. */
    simLow: remindList,
  }),
  versions: z.array(versionCount),
  /** The order widget (recent orders, this month's spend); null without a flowRate permission to read orders. */
  orders: orderWidget.nullable(),
  /** SIMs by state and the plans expiring soon (issue 13). */
  plan: planWidget,
  /** Print jobs this month against the account's target; null without print:view (issue 14). */
  target: targetWidget.nullable(),
  /** The account's groups with devices and jobs this month (issue 14). */
  projects: z.array(projectItem),
});
export type DashboardOverview = z.infer<typeof dashboardOverview>;
