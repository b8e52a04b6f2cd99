import { z } from 'zod';
import { pageQuery } from './envelope.ts';
import { NO_CONTROL_MSG, hasNoControl } from './validators.ts';

/**
 * Firmware upgrades (issue 15): a release sends one firmware package to a set of devices in two waves (a canary
 * share first, then the rest after a soak time or a manual promote), a few devices at a time, inside each device's
 * maintenance window, and halts itself when too many of a wave fail. Paths are under /apiAdmin; the firmware list
 * is the package catalogue's (`GET /package/list?kind=firmware`).
 *
 * | path                                | method | permission   |
 * |-------------------------------------|--------|--------------|
 * | /upgrade/release/preview            | POST   | upgrade:view |
 * | /upgrade/release/create             | POST   | upgrade:edit |
 * | /upgrade/release/list               | GET    | upgrade:view |
 * | /upgrade/release/detail?id=         | GET    | upgrade:view |
 * | /upgrade/release/devices?id=        | GET    | upgrade:view |
 * | /upgrade/release/{promote,pause,resume,cancel,retry} | POST {id} | upgrade:edit |
 * | /upgrade/history?deviceId=          | GET    | upgrade:view or device:view |
 */

export const RELEASE_STATES = ['running', 'waiting', 'paused', 'halted', 'completed', 'canceled'] as const;
export type ReleaseState = (typeof RELEASE_STATES)[number];
/** States a release no longer moves from by itself. */
export const FINAL_RELEASE_STATES = ['completed', 'canceled'] as const satisfies readonly ReleaseState[];

export const UPGRADE_DEVICE_STATES = [
  'queued',
  'downloading',
  'downloaded',
  'installing',
  'rebooting',
  'verified',
  'failed',
  'canceled',
  'skipped',
] as const;
export type UpgradeDeviceState = (typeof UPGRADE_DEVICE_STATES)[number];
export const FINAL_UPGRADE_DEVICE_STATES = ['verified', 'failed', 'canceled', 'skipped'] as const;

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'hh:mm');

/** Which devices a release is for: an explicit list, or every in-scope device matching all the given filters. */
export const releaseTargets = z
  .object({
    deviceIds: z.array(z.number().int().positive()).max(20_000).optional(),
    /** Device model codes. */
    models: z.array(z.string().min(1).max(64)).max(100).optional(),
    groupIds: z.array(z.number().int().positive()).max(200).optional(),
    /** Current firmware versions. */
    versions: z.array(z.string().min(1).max(64)).max(100).optional(),
  })
  .strict();
export type ReleaseTargets = z.infer<typeof releaseTargets>;

export const releasePreviewBody = z.object({ packageId: z.number().int().positive(), targets: releaseTargets });
export const releasePreview = z.object({
  /** Devices the release would go to. */
  matched: z.number().int(),
  /** Devices matching the filters whose model the firmware does not fit (left out). */
  incompatible: z.number().int(),
  /** Devices already on the firmware's version (left out). */
  current: z.number().int(),
});
export type ReleasePreview = z.infer<typeof releasePreview>;

export const releaseBody = z
  .object({
    name: z.string().trim().min(1).max(100).refine(hasNoControl, NO_CONTROL_MSG),
    packageId: z.number().int().positive(),
    targets: releaseTargets,
    /** Share of the devices in the first wave (0: one wave). */
    canaryPercent: z.number().int().min(0).max(50),
    /** Minutes to watch the canary before wave 2 starts by itself; null: promote by hand. */
    soakMinutes: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 60)
      .nullable(),
    /** Devices working on the upgrade at a time. */
    throttle: z.number().int().min(1).max(10_000),
    /** Maintenance window in each device's own time zone (end before start: over midnight). */
    window: z.object({ start: hhmm, end: hhmm }).nullable(),
    /** Halt when this share of a wave's finished devices failed… */
    failPercent: z.number().int().min(1).max(100),
    /** …and at least this many failed. */
    failMinCount: z.number().int().min(1).max(10_000),
    /** No device starts after this time; unfinished devices are skipped. */
    expireAt: z.iso.datetime(),
  })
  .strict();
export type ReleaseBody = z.infer<typeof releaseBody>;

export const releaseIdBody = z.object({ id: z.number().int().positive() }).strict();
export const releaseIdQuery = z.object({ id: z.coerce.number().int().positive() });

const n = z.number().int();
/** Devices in each state (every state present, 0 when none). */
const stateCounts = z.object({
  queued: n,
  downloading: n,
  downloaded: n,
  installing: n,
  rebooting: n,
  verified: n,
  failed: n,
  canceled: n,
  skipped: n,
}) satisfies z.ZodType<Record<UpgradeDeviceState, number>>;

export const releaseItem = z.object({
  id: z.number().int(),
  name: z.string(),
  packageId: z.number().int(),
  packageName: z.string(),
  version: z.string(),
  state: z.enum(RELEASE_STATES),
  wave: z.number().int(),
  haltReason: z.string(),
  canaryPercent: z.number().int(),
  soakMinutes: z.number().int().nullable(),
  throttle: z.number().int(),
  window: z.object({ start: z.string(), end: z.string() }).nullable(),
  failPercent: z.number().int(),
  failMinCount: z.number().int(),
  expireAt: z.string(),
  /** When wave 2 starts by itself (waiting with a soak time). */
  promoteAt: z.string().nullable(),
  total: z.number().int(),
  counts: stateCounts,
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type ReleaseItem = z.infer<typeof releaseItem>;

export const releaseDetail = releaseItem.extend({
  waves: z.array(z.object({ wave: z.number().int(), total: z.number().int(), counts: stateCounts })),
  /** Failure reasons, most frequent first. */
  reasons: z.array(z.object({ reason: z.string(), count: z.number().int() })),
  targets: releaseTargets,
  /** Devices verified and failed so far, over time since the release started (at most 60 points): its progress chart. */
  timeline: z.array(z.object({ at: z.string(), verified: z.number().int(), failed: z.number().int() })),
});
export type ReleaseDetail = z.infer<typeof releaseDetail>;

export const releaseListQuery = pageQuery.extend({ state: z.enum(RELEASE_STATES).optional() });
export const releaseDevicesQuery = pageQuery.extend({
  id: z.coerce.number().int().positive(),
  state: z.enum(UPGRADE_DEVICE_STATES).optional(),
});
export const releaseDeviceItem = z.object({
  deviceId: z.number().int(),
  sn: z.string(),
  name: z.string(),
  wave: z.number().int(),
  state: z.enum(UPGRADE_DEVICE_STATES),
  progress: z.number().int(),
  reason: z.string(),
  fromVersion: z.string(),
  taskId: z.string().nullable(),
  updatedAt: z.string(),
});
export type ReleaseDeviceItem = z.infer<typeof releaseDeviceItem>;

export const FIRMWARE_CHANGE_SOURCES = ['release', 'hello'] as const;
export const firmwareHistoryQuery = pageQuery.extend({ deviceId: z.coerce.number().int().positive() });
export const firmwareHistoryItem = z.object({
  id: z.number().int(),
  fromVersion: z.string(),
  toVersion: z.string(),
  /** release: the device came back on a release's version; hello: it reported a new version on its own. */
  source: z.enum(FIRMWARE_CHANGE_SOURCES),
  releaseId: z.number().int().nullable(),
  releaseName: z.string().nullable(),
  at: z.string(),
});
export type FirmwareHistoryItem = z.infer<typeof firmwareHistoryItem>;
