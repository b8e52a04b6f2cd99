import { z } from 'zod';

/**
 * The workbench (issue 14; SPEC §2): what needs the caller now, one card per section, each item one click from
 * its page. `GET /apiAdmin/workbench/summary` (any signed-in user): the sections the caller's permissions reach,
 * within its data scope; a section it may not see is absent, not empty.
 *
 * | section | who | permission | count = what the section's `link` lists |
 * |---|---|---|---|
 * | workOrderWaiting | customer | workOrder:view | work orders in state `waiting` (staff asked a question) |
 * | workOrderUnread | customer | workOrder:view | open work orders with a staff reply the customer has not read |
 * | simLow | customer | flowRate:view | SIMs low, used up or suspended |
 * | simExpiring | customer | flowRate:view | plans expiring within SIM_EXPIRY_REMIND_DAYS |
 * | deviceOffline | customer | device:view | devices offline |
 * | deviceFault | customer | device:view | devices with a paper fault (out, cover open, overheated) |
 * | notices | customer | – | the live announcements of the user's audience not yet opened |
 * | identityWaiting | staff | identity:review | identity submissions waiting for review |
 * | workOrderUnassigned | staff | workOrder:handle | open work orders nobody has taken |
 * | workOrderOverdue | staff | workOrder:handle | open work orders past their response or resolution target |
 * | refundPending | staff | flowRate:refund | orders paid but not fulfilled: refund or fulfil by hand |
 */
export const WORKBENCH_SECTIONS = [
  'workOrderWaiting',
  'workOrderUnread',
  'simLow',
  'simExpiring',
  'deviceOffline',
  'deviceFault',
  'notices',
  'identityWaiting',
  'workOrderUnassigned',
  'workOrderOverdue',
  'refundPending',
] as const;
export type WorkbenchSectionKey = (typeof WORKBENCH_SECTIONS)[number];

/** The most items a section lists (all are counted). */
export const WORKBENCH_ITEMS = 5;

export const workbenchItem = z.object({
  /** Unique within its section (a row id, or an ICCID). */
  id: z.string(),
  /** What the item is: a device's name or SN, an ICCID, a work order's title, an account's name… (data, not text). */
  title: z.string(),
  /** A second line of data (an SN, an order number, an account), '' for none. */
  subtitle: z.string(),
  /** A state code the console says in the reader's language (SIM state, paper state, priority…), '' for none. */
  tag: z.string(),
  /** When it happened or falls due (ISO), null when unknown. */
  at: z.string().nullable(),
  /** The console path that opens it. */
  link: z.string(),
});
export type WorkbenchItem = z.infer<typeof workbenchItem>;

export const workbenchSection = z.object({
  key: z.enum(WORKBENCH_SECTIONS),
  count: z.number().int(),
  /** The console path listing every item of the section (the list page with the matching filter). */
  link: z.string(),
  items: z.array(workbenchItem),
});
export type WorkbenchSection = z.infer<typeof workbenchSection>;

export const workbenchSummary = z.object({
  /** `staff`: the platform's own users; `customer`: everyone else. */
  role: z.enum(['customer', 'staff']),
  sections: z.array(workbenchSection),
});
export type WorkbenchSummary = z.infer<typeof workbenchSummary>;
