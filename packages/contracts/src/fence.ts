import { z } from 'zod';
import { DEFAULT_TIME_ZONE, isTimeZone, PAGE_NO_MAX } from './device-constants.ts';
import { hasNoControl, NO_CONTROL_MSG } from './validators.ts';

/**
 * Geofencing (issue 16): circles and polygons a customer draws on the map, assigned to devices and groups (a
 * group includes its sub-groups), with a schedule and a rule (alert on leaving, entering or both, after a dwell
 * time). The server evaluates each location report of a device against its fences and records enter/leave events.
 * Coordinates are WGS-84 `[lng, lat]` (GeoJSON order), sent and stored WGS-84; a console drawing on a GCJ-02 tile
 * layer converts before it sends. Paths are under /apiAdmin.
 */

// ------------------------------------------------------------------------------------------------------------------
// Limits

/** Most vertices of a polygon's ring (the closing point not counted). */
export const FENCE_MAX_VERTICES = 500;
/** A circle's radius in metres: at least 10 m (GPS accuracy), at most 100 km. */
export const FENCE_RADIUS_MIN_M = 10;
export const FENCE_RADIUS_MAX_M = 100_000;
/** Fences a tenant may hold (deleted ones not counted). */
export const FENCE_MAX_PER_TENANT = 200;
/** Seconds a device must stay on the new side before the change counts. */
export const FENCE_DWELL_MAX_S = 3600;
export const FENCE_DWELL_DEFAULT_S = 60;
export const FENCE_NAME_MAX = 50;
/** Devices and groups one fence may name as targets. */
export const FENCE_MAX_TARGET_DEVICES = 1000;
export const FENCE_MAX_TARGET_GROUPS = 100;
/** The track covers at most 7 days (positions are kept 7 days), 24 hours by default. */
export const FENCE_TRACK_MAX_HOURS = 168;
export const FENCE_TRACK_DEFAULT_HOURS = 24;
/** Positions are kept this long, then pruned. */
export const POSITION_KEEP_DAYS = 7;
/** A reported position is stored when it moved at least this far from the last stored one… */
export const POSITION_MIN_MOVE_M = 10;
/** …or this many seconds passed since it. */
export const POSITION_MIN_INTERVAL_S = 300;

export const FENCE_ALERT_ON = ['leave', 'enter', 'both'] as const;
export type FenceAlertOn = (typeof FENCE_ALERT_ON)[number];
export const FENCE_EVENT_KINDS = ['enter', 'leave'] as const;
export type FenceEventKind = (typeof FENCE_EVENT_KINDS)[number];
/** A device's side of a fence: `unknown` until it reported a position while the fence applies to it. */
export const FENCE_SIDES = ['inside', 'outside', 'unknown'] as const;
export type FenceSide = (typeof FENCE_SIDES)[number];
/** The base map's coordinate system: GCJ-02 for Chinese providers (AMap/Autonavi, Tencent), WGS-84 otherwise. */
export const MAP_TILE_CRS = ['wgs84', 'gcj02'] as const;
export type MapTileCrs = (typeof MAP_TILE_CRS)[number];
/** Hosts whose tiles are GCJ-02 (the default `tileCrs` when `MAP_TILE_CRS` is not set). */
export const GCJ02_TILE_HOSTS = ['amap.com', 'autonavi.com', 'tencent.com', 'gtimg.com', 'qq.com'] as const;

// ------------------------------------------------------------------------------------------------------------------
// Shapes and schedules

const lng = z.number().min(-180, 'fence.lngRange').max(180, 'fence.lngRange');
const lat = z.number().min(-90, 'fence.latRange').max(90, 'fence.latRange');
/** `[lng, lat]` in WGS-84. */
export const lngLat = z.tuple([lng, lat]);
export type LngLat = z.infer<typeof lngLat>;

export const circleShape = z
  .object({
    type: z.literal('circle'),
    center: lngLat,
    /** Metres; the server refuses ≤ 0 and outside FENCE_RADIUS_MIN_M..FENCE_RADIUS_MAX_M. */
    radiusM: z
      .number()
      .gt(0, 'fence.radiusPositive')
      .min(FENCE_RADIUS_MIN_M, 'fence.radiusRange')
      .max(FENCE_RADIUS_MAX_M, 'fence.radiusRange'),
  })
  .strict();
/**
 * One outer ring, no holes. The ring may be open or closed (first point repeated last): the server closes it. At
 * least 3 distinct points, at most FENCE_MAX_VERTICES, and no self-intersection (checked on the server with Turf).
 */
export const polygonShape = z
  .object({
    type: z.literal('polygon'),
    ring: z
      .array(lngLat)
      .min(3, 'fence.ringTooFew')
      .max(FENCE_MAX_VERTICES + 1, 'fence.ringTooMany'),
  })
  .strict();
export const fenceShape = z.discriminatedUnion('type', [circleShape, polygonShape]);
export type FenceShape = z.infer<typeof fenceShape>;
export type CircleShape = z.infer<typeof circleShape>;
export type PolygonShape = z.infer<typeof polygonShape>;

const hhmm = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'fence.timeOfDay');
/**
 * When the fence applies. `weekly`: on the listed ISO weekdays (1 = Monday … 7 = Sunday), from `from` to `to` in
 * the zone `tz` (default Asia/Shanghai). `to` before `from` runs over midnight into the next day (the window
 * belongs to the day it starts); `from` equal to `to` is the whole day.
 */
export const fenceSchedule = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('always') }).strict(),
  z
    .object({
      kind: z.literal('weekly'),
      days: z
        .array(z.number().int().min(1, 'fence.weekday').max(7, 'fence.weekday'))
        .min(1, 'fence.daysRequired')
        .max(7)
        .refine((a) => new Set(a).size === a.length, 'rule.entryRepeat'),
      from: hhmm,
      to: hhmm,
      tz: z.string().max(64).refine(isTimeZone, 'rule.timeZone').optional(),
    })
    .strict(),
]);
export type FenceSchedule = z.infer<typeof fenceSchedule>;
export const FENCE_DEFAULT_TZ = DEFAULT_TIME_ZONE;

// ------------------------------------------------------------------------------------------------------------------
// Requests

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const queryId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const uniqueIds = (max: number) =>
  z
    .array(id)
    .max(max, 'rule.maxEntries')
    .refine((a) => new Set(a).size === a.length, 'rule.entryRepeat');

const fenceFields = {
  name: z
    .string()
    .trim()
    .min(1, 'rule.nameRequired')
    .max(FENCE_NAME_MAX, 'rule.maxChars')
    .refine(hasNoControl, NO_CONTROL_MSG),
  shape: fenceShape,
  schedule: fenceSchedule.default({ kind: 'always' }),
  alertOn: z.enum(FENCE_ALERT_ON).default('leave'),
  dwellS: z.number().int().min(0).max(FENCE_DWELL_MAX_S).default(FENCE_DWELL_DEFAULT_S),
  enabled: z.boolean().default(true),
  /** Devices of the tenant in the caller's data scope; another tenant's → 404 naming `deviceIds`. */
  deviceIds: uniqueIds(FENCE_MAX_TARGET_DEVICES).default([]),
  /** Groups of the tenant; each includes its sub-groups' devices. */
  groupIds: uniqueIds(FENCE_MAX_TARGET_GROUPS).default([]),
};

/** `POST /fence/create` → `{ id }`. */
export const fenceCreateBody = z.object(fenceFields).strict();
export type FenceCreateBody = z.input<typeof fenceCreateBody>;
export type FenceCreateParams = z.output<typeof fenceCreateBody>;

/**
 * `POST /fence/update`: `id` and the fields that change (others kept). `version` (from the detail) refuses a
 * stale edit with 409. Changing the shape re-evaluates the targets' last positions at once (dwell not applied).
 */
export const fenceUpdateBody = z
  .object({
    id,
    version: z.number().int().min(1).optional(),
    name: fenceFields.name.optional(),
    shape: fenceShape.optional(),
    schedule: fenceSchedule.optional(),
    alertOn: z.enum(FENCE_ALERT_ON).optional(),
    dwellS: z.number().int().min(0).max(FENCE_DWELL_MAX_S).optional(),
    enabled: z.boolean().optional(),
    deviceIds: uniqueIds(FENCE_MAX_TARGET_DEVICES).optional(),
    groupIds: uniqueIds(FENCE_MAX_TARGET_GROUPS).optional(),
  })
  .strict();
export type FenceUpdateBody = z.input<typeof fenceUpdateBody>;
export type FenceUpdateParams = z.output<typeof fenceUpdateBody>;

/** `POST /fence/delete` `{ id }` (or `ids`, up to 100). */
export const fenceDeleteBody = z
  .object({ id: id.optional(), ids: z.array(id).min(1).max(100).optional() })
  .strict()
  .refine((b) => b.id !== undefined || b.ids !== undefined, { message: 'fence.idRequired', path: ['id'] });
export type FenceDeleteBody = z.input<typeof fenceDeleteBody>;

export const fenceIdQuery = z.object({ id: queryId }).strict();
export type FenceIdQuery = z.input<typeof fenceIdQuery>;

/** `GET /fence/list`: paged, `keyword` in the name; `enabled` filters. */
export const fenceListQuery = z
  .object({
    pageNo: z.coerce.number().int().min(1).max(PAGE_NO_MAX).default(1),
    pageSize: z.coerce.number().int().min(1).max(FENCE_MAX_PER_TENANT).default(20),
    keyword: z.string().trim().max(50).refine(hasNoControl, NO_CONTROL_MSG).optional(),
    enabled: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional(),
  })
  .strict();
export type FenceListQuery = z.input<typeof fenceListQuery>;

/** `GET /fence/devices?id=`: the fence's target devices with their side now; `side` filters. */
export const fenceDevicesQuery = z
  .object({
    id: queryId,
    pageNo: z.coerce.number().int().min(1).max(PAGE_NO_MAX).default(1),
    pageSize: z.coerce.number().int().min(1).max(500).default(20),
    side: z.enum(FENCE_SIDES).optional(),
    keyword: z.string().trim().max(50).refine(hasNoControl, NO_CONTROL_MSG).optional(),
  })
  .strict();
export type FenceDevicesQuery = z.input<typeof fenceDevicesQuery>;

/** `GET /fence/events`: newest first; `from`/`to` ISO date-times (inclusive / exclusive). */
export const fenceEventsQuery = z
  .object({
    pageNo: z.coerce.number().int().min(1).max(PAGE_NO_MAX).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
    fenceId: queryId.optional(),
    deviceId: queryId.optional(),
    kind: z.enum(FENCE_EVENT_KINDS).optional(),
    from: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }).optional(),
    to: z.iso.datetime({ offset: true, message: 'rule.isoDateTime' }).optional(),
  })
  .strict();
export type FenceEventsQuery = z.input<typeof fenceEventsQuery>;

/** `GET /fence/device?deviceId=`: the fences that apply to a device, with its side in each. */
export const fenceDeviceQuery = z.object({ deviceId: queryId }).strict();
export type FenceDeviceQuery = z.input<typeof fenceDeviceQuery>;

/** `GET /fence/track?deviceId=&hours=24`. */
export const fenceTrackQuery = z
  .object({
    deviceId: queryId,
    hours: z.coerce.number().int().min(1).max(FENCE_TRACK_MAX_HOURS).default(FENCE_TRACK_DEFAULT_HOURS),
  })
  .strict();
export type FenceTrackQuery = z.input<typeof fenceTrackQuery>;

// ------------------------------------------------------------------------------------------------------------------
// Responses

export const fenceCreated = z.object({ id: z.number().int() });
export type FenceCreated = z.infer<typeof fenceCreated>;

export const fenceCounts = z.object({
  /** Target devices (direct and through groups) in the caller's data scope. */
  devices: z.number().int(),
  inside: z.number().int(),
  outside: z.number().int(),
  unknown: z.number().int(),
});
export type FenceCounts = z.infer<typeof fenceCounts>;

/** A row of `GET /fence/list`. */
export const fenceItem = z.object({
  id: z.number().int(),
  name: z.string(),
  shape: fenceShape,
  /** `[minLng, minLat, maxLng, maxLat]`, for fitting the map. */
  bbox: z.array(z.number()).length(4),
  schedule: fenceSchedule,
  alertOn: z.enum(FENCE_ALERT_ON),
  dwellS: z.number().int(),
  enabled: z.boolean(),
  /** Whether the schedule applies at this moment (and the fence is enabled). */
  activeNow: z.boolean(),
  deviceIds: z.array(z.number().int()),
  groupIds: z.array(z.number().int()),
  counts: fenceCounts,
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type FenceItem = z.infer<typeof fenceItem>;

/** `GET /fence/detail?id=`: the row plus the targets' names. */
export const fenceDetail = fenceItem.extend({
  devices: z.array(z.object({ id: z.number().int(), sn: z.string(), name: z.string() })),
  groups: z.array(z.object({ id: z.number().int(), name: z.string() })),
});
export type FenceDetail = z.infer<typeof fenceDetail>;

export const fencePosition = z.object({
  lat: z.number(),
  lng: z.number(),
  accuracyM: z.number().nullable(),
  at: z.string(),
});
export type FencePosition = z.infer<typeof fencePosition>;

/** A row of `GET /fence/devices?id=`. */
export const fenceDeviceRow = z.object({
  deviceId: z.number().int(),
  sn: z.string(),
  name: z.string(),
  online: z.boolean(),
  side: z.enum(FENCE_SIDES),
  /** Since when the device is on that side (null when unknown). */
  since: z.string().nullable(),
  /** A side change waiting for its dwell time: the side and since when (null when none). */
  pending: z.object({ side: z.enum(['inside', 'outside']), since: z.string() }).nullable(),
  lastPosition: fencePosition.nullable(),
});
export type FenceDeviceRow = z.infer<typeof fenceDeviceRow>;

/** A row of `GET /fence/events`. */
export const fenceEventItem = z.object({
  id: z.number().int(),
  fenceId: z.number().int(),
  fenceName: z.string(),
  deviceId: z.number().int(),
  deviceSn: z.string(),
  deviceName: z.string(),
  kind: z.enum(FENCE_EVENT_KINDS),
  at: z.string(),
  lat: z.number(),
  lng: z.number(),
});
export type FenceEventItem = z.infer<typeof fenceEventItem>;

/** `GET /fence/device?deviceId=` → `{ list }`: the device's fences with its side in each. */
export const deviceFenceItem = z.object({
  fenceId: z.number().int(),
  name: z.string(),
  shape: fenceShape,
  alertOn: z.enum(FENCE_ALERT_ON),
  enabled: z.boolean(),
  activeNow: z.boolean(),
  side: z.enum(FENCE_SIDES),
  since: z.string().nullable(),
});
export type DeviceFenceItem = z.infer<typeof deviceFenceItem>;
export const deviceFences = z.object({ list: z.array(deviceFenceItem) });
export type DeviceFences = z.infer<typeof deviceFences>;

/** `GET /fence/track`: positions oldest first (WGS-84), and the last reported one (may be newer than stored). */
export const fenceTrack = z.object({
  deviceId: z.number().int(),
  hours: z.number().int(),
  positions: z.array(fencePosition),
  last: fencePosition.nullable(),
});
export type FenceTrack = z.infer<typeof fenceTrack>;

/**
 * `GET /fence/map`: the console's base map. `tileUrl` from `MAP_TILE_URL` (a Leaflet template with {z}/{x}/{y},
 * {s} for `subdomains`), null when none is set: the console then draws its offline base layer. `tileCrs` from
 * `MAP_TILE_CRS`, by default gcj02 for the hosts of GCJ02_TILE_HOSTS, else wgs84.
 */
export const fenceMapSettings = z.object({
  tileUrl: z.string().nullable(),
  tileCrs: z.enum(MAP_TILE_CRS),
  attribution: z.string(),
  subdomains: z.array(z.string()),
  /** Limits the editor enforces before sending. */
  limits: z.object({
    maxVertices: z.number().int(),
    radiusMinM: z.number(),
    radiusMaxM: z.number(),
    dwellMaxS: z.number().int(),
    maxFences: z.number().int(),
  }),
});
export type FenceMapSettings = z.infer<typeof fenceMapSettings>;

// ------------------------------------------------------------------------------------------------------------------
// Webhook (to each active API key's callback URL, signed like the print webhooks)

export const FENCE_WEBHOOK_EVENTS = ['fence.enter', 'fence.leave'] as const;
export type FenceWebhookEvent = (typeof FENCE_WEBHOOK_EVENTS)[number];

/** The body of a `fence.enter` / `fence.leave` delivery. */
export interface FenceWebhookPayload {
  event: FenceWebhookEvent;
  fence: { id: number; name: string };
  device: { id: number; sn: string; name: string };
  position: { lat: number; lng: number };
  /** ISO time of the confirmed change. */
  at: string;
}
