import { z } from 'zod';
import { SIM_STATES } from './device-constants.ts';

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
