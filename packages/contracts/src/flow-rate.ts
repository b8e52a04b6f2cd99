/**
 * Data traffic (issue 13): the account's SIMs, their daily usage series, the traffic query (`/flowRate/flowRateSearch`)
 * and the alerts when a SIM runs low, runs out or nears its expiry. Packages, orders and payment are the `order`
 * section's; this one is about the SIMs themselves.
 */

/** Alert when a SIM expires within this many days (one message per SIM and state change). */
export const SIM_EXPIRY_REMIND_DAYS = 7;
/** How long the daily usage series is kept: at least 13 months. */
export const SIM_USAGE_KEEP_DAYS = 400;
