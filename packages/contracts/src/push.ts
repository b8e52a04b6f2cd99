import { z } from 'zod';
import { pageQuery } from './envelope.ts';
import { hasNoControl, NO_CONTROL_MSG } from './validators.ts';

/**
 * Push tasks and push query (issue 16): a message (text, image, link, or a screen notice shown for N seconds) sent
 * to devices, groups (with their sub-groups) or the whole fleet, now or at a scheduled time, until an expiry. Each
 * device's delivery is a `push_message` device task, queued while the device is offline and sent again on its
 * reconnect until the push expires. Paths are under /apiAdmin.
 *
 * | path                    | method | permission |
 * |-------------------------|--------|------------|
 * | /push/create            | POST   | push:edit  |
 * | /push/list              | GET    | push:view  |
 * | /push/detail?id=        | GET    | push:view  |
 * | /push/deliveries?id=    | GET    | push:view  |
 * | /push/retry             | POST   | push:edit  |
 * | /push/cancel            | POST   | push:edit  |
 * | /push/preview           | POST   | push:view  |
 */

export const PUSH_KINDS = ['text', 'image', 'link', 'notice'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/** scheduled (waits for its time) → sending (its tasks are out) → done (every device final) | canceled. */
export const PUSH_STATES = ['scheduled', 'sending', 'done', 'canceled'] as const;
export type PushState = (typeof PUSH_STATES)[number];

/**
 * A device's delivery, derived from its `push_message` task: queued (the device is offline: waits for it),
 * sent (handed to the broker), delivered (the device acknowledged it), displayed (the device showed it),
 * clicked (the user tapped it), expired (the push expired before the device took it), failed.
 */
export const DELIVERY_STATES = ['queued', 'sent', 'delivered', 'displayed', 'clicked', 'expired', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];
/** Not (yet) shown on the device: what "retry undelivered" sends again. */
export const UNDELIVERED_STATES = ['queued', 'sent', 'expired', 'failed'] as const satisfies readonly DeliveryState[];

export const PUSH_TITLE_MAX = 100;
export const PUSH_BODY_MAX = 2000;
export const PUSH_LINK_MAX = 2000;
/** How far ahead a push may be scheduled. */
export const PUSH_SCHEDULE_MAX_DAYS = 30;
/** A screen notice's display time, in seconds. */
export const NOTICE_SECONDS_MIN = 3;
export const NOTICE_SECONDS_MAX = 3600;

/** Which devices: listed devices, groups (and every group below them), or the whole fleet in the sender's scope. */
export const pushTargets = z
  .object({
    deviceIds: z.array(z.number().int().positive()).max(10_000).optional(),
    groupIds: z.array(z.number().int().positive()).max(200).optional(),
    /** Every device of the account in the sender's data scope, counted when the push starts. */
    all: z.boolean().optional(),
  })
  .strict();
export type PushTargets = z.infer<typeof pushTargets>;

const isHttpUrl = (s: string) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

export const pushBody = z
  .object({
    kind: z.enum(PUSH_KINDS),
    title: z.string().trim().min(1).max(PUSH_TITLE_MAX, 'rule.maxChars').refine(hasNoControl, NO_CONTROL_MSG),
    body: z.string().max(PUSH_BODY_MAX, 'rule.maxChars').default(''),
    /** kind image: the key of an image uploaded through the upload flow (its bytes checked there). */
    imageKey: z.string().min(1).max(300).nullish(),
    /** kind link: an http(s) address. */
    link: z.string().trim().max(PUSH_LINK_MAX, 'rule.maxChars').refine(isHttpUrl, 'push.linkHttp').nullish(),
    /** kind notice: seconds the notice stays on the screen. */
    noticeSeconds: z.number().int().min(NOTICE_SECONDS_MIN).max(NOTICE_SECONDS_MAX).nullish(),
    targets: pushTargets,
    /** null: now; else a time in the future, at most 30 days ahead. */
    scheduledAt: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }).nullish(),
    /** After it, devices that have not taken the push are `expired`. */
    expireAt: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }),
  })
  .strict();
export type PushBody = z.input<typeof pushBody>;

export const pushPreviewBody = z.object({ targets: pushTargets }).strict();
export const pushPreview = z.object({
  /** Devices the push would go to now. */
  devices: z.number().int(),
  online: z.number().int(),
});
export type PushPreview = z.infer<typeof pushPreview>;

export const pushCreated = z.object({ id: z.number().int(), state: z.enum(PUSH_STATES), devices: z.number().int() });

export const deliveryCounts = z.object(
  Object.fromEntries(DELIVERY_STATES.map((s) => [s, z.number().int()])) as Record<DeliveryState, z.ZodNumber>,
);
export type DeliveryCounts = Record<DeliveryState, number>;

export const pushItem = z.object({
  id: z.number().int(),
  kind: z.enum(PUSH_KINDS),
  title: z.string(),
  body: z.string(),
  imageUrl: z.string().nullable(),
  link: z.string().nullable(),
  noticeSeconds: z.number().int().nullable(),
  targets: pushTargets,
  state: z.enum(PUSH_STATES),
  scheduledAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  expireAt: z.string(),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
  total: z.number().int(),
  counts: deliveryCounts,
});
export type PushItem = z.infer<typeof pushItem>;

export const pushListQuery = pageQuery
  .extend({
    state: z.enum(PUSH_STATES).optional(),
    kind: z.enum(PUSH_KINDS).optional(),
    /** Created at or after / before (ISO). */
    from: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }).optional(),
    to: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }).optional(),
    keyword: z.string().trim().max(100, 'rule.maxChars').refine(hasNoControl, NO_CONTROL_MSG).optional(),
  })
  .strict();
export type PushListQuery = z.infer<typeof pushListQuery>;

export const pushIdQuery = z.object({ id: z.coerce.number().int().positive() }).strict();

export const deliveryListQuery = pageQuery
  .extend({ id: z.coerce.number().int().positive(), state: z.enum(DELIVERY_STATES).optional() })
  .strict();
export type DeliveryListQuery = z.infer<typeof deliveryListQuery>;

export const deliveryItem = z.object({
  deviceId: z.number().int(),
  sn: z.string(),
  deviceName: z.string(),
  online: z.boolean(),
  taskId: z.string().nullable(),
  state: z.enum(DELIVERY_STATES),
  error: z.string(),
  attempts: z.number().int(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  displayedAt: z.string().nullable(),
  clickedAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type DeliveryItem = z.infer<typeof deliveryItem>;

export const pushRetryBody = z
  .object({
    id: z.number().int().positive(),
    /** A new expiry (required once the push has expired). */
    expireAt: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }).optional(),
  })
  .strict();
export const pushRetried = z.object({ id: z.number().int(), retried: z.number().int() });
export const pushCancelBody = z.object({ id: z.number().int().positive() }).strict();
export const pushActionResult = z.object({ id: z.number().int(), state: z.enum(PUSH_STATES) });

/**
 * What a device gets in `command.params` of a `push_message` task (docs/device-protocol.md). The device acks it,
 * reports `progress` stage "displayed" when it shows it (or a `result` ok), and a click as an `event` with kind
 * `push.clicked` and data {taskId}.
 */
export interface PushMessageParams {
  pushId: number;
  kind: PushKind;
  title: string;
  body: string;
  /** kind image: a signed link to the image, fresh at each delivery. */
  imageUrl?: string;
  link?: string;
  noticeSeconds?: number;
}
export const PUSH_CLICKED_EVENT = 'push.clicked';
export const PUSH_DISPLAYED_STAGE = 'displayed';
