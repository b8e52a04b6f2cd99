import { z } from 'zod';
import { pageQuery } from './envelope.ts';
import { id, queryId, textLine } from './device.ts';
import { NO_CONTROL_MSG, hasNoControlButLineBreaks } from './validators.ts';

/**
 * System customization (issue 16): configuration profiles a customer builds and assigns to devices or groups. A
 * profile (name, description) has versions, each holding up to six optional parts: boot animation, desktop,
 * wallpaper, default-start app, top-screen (kiosk) mode and application lock. Paths are under /apiAdmin.
 *
 * Versions: a profile has at most one **draft** (editable) and any number of **published** versions (frozen,
 * numbered 1, 2, …). `update` edits the draft; when there is none it first copies the latest published version into a
 * new draft (editing never changes what devices run). `publish` freezes the draft as the next number. Devices always
 * get the profile's **latest published** version: publishing a new version of an assigned profile sends it to every
 * device the profile governs. A profile without a published version can be assigned; its devices get nothing until
 * it is published.
 *
 * Resolution (RESOLUTION_RULE, stated on the screen): a device's own assignment beats any group's; among groups the
 * nearest one (the device's group, then its parent, …) beats farther ones. Unassigning falls back to the next rule;
 * a device left with no profile is sent an empty configuration (back to the system's defaults).
 *
 * Media (boot animation, wallpaper): uploaded through the ordinary upload flow with the `custom` bucket (`GET
 * /user/v1/user/getQnToken?bucket=custom`, then `POST /upload` ≤ 10 MB; bytes checked: jpg/png/webp/gif images,
 * mp4/webm video, zip of PNG/JPG frames — every entry checked, CUSTOM_ZIP_MAX_FRAMES); the profile then refers to the
 * upload's `key`, and saving checks that the object fits the part (wallpaper: an image within
 * WALLPAPER_MAX_BYTES / WALLPAPER_MAX_PIXELS; boot animation: video, gif or frames zip).
 *
 * Passwords (kiosk exit, app-lock unlock) are write-only: stored as a salted scrypt hash (the device gets hash + salt
 * + parameters to verify on its own), never returned (`passwordSet: true`), never logged.
 *
 * | path                                 | method | permission          |
 * |--------------------------------------|--------|---------------------|
 * | /systemCustom/profile/list           | GET    | systemCustom:view   |
 * | /systemCustom/profile/detail?id=     | GET    | systemCustom:view   |
 * | /systemCustom/profile/create         | POST   | systemCustom:edit   |
 * | /systemCustom/profile/update         | POST   | systemCustom:edit   |
 * | /systemCustom/profile/delete         | POST   | systemCustom:edit   |
 * | /systemCustom/profile/publish        | POST   | systemCustom:edit   |
 * | /systemCustom/profile/assign         | POST   | systemCustom:edit   |
 * | /systemCustom/profile/devices?id=    | GET    | systemCustom:view   |
 * | /systemCustom/device?deviceId=       | GET    | systemCustom:view or device:view |
 * | /systemCustom/apps                   | GET    | systemCustom:view   |
 */

export const SYSTEM_CUSTOM_PARTS = [
  'bootAnimation',
  'desktop',
  'wallpaper',
  'defaultStartApp',
  'topScreen',
  'appLock',
] as const;
export type SystemCustomPart = (typeof SYSTEM_CUSTOM_PARTS)[number];

/** The conflict rule, as the screen states it (a message key for zh/en lives in the web). */
export const RESOLUTION_RULE = 'device-beats-group, nearest-group-beats-farther' as const;

export const WALLPAPER_FITS = ['fill', 'fit', 'stretch', 'center', 'tile'] as const;
export const APP_LOCK_MODES = ['allow', 'block'] as const;
export const BOOT_ANIMATION_FORMATS = ['video', 'gif', 'frames'] as const;
export type BootAnimationFormat = (typeof BOOT_ANIMATION_FORMATS)[number];
export const DESKTOP_ICON_SIZES = ['small', 'medium', 'large'] as const;
/** System icons a desktop can hide. */
export const SYSTEM_ICONS = [
  'settings',
  'browser',
  'camera',
  'gallery',
  'files',
  'phone',
  'messages',
  'store',
] as const;

/** What the `custom` upload bucket takes, by the type its bytes show. */
export const CUSTOM_ACCEPT = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'video/mp4',
  'video/webm',
  'application/zip',
];
/** The file-name extensions of the `custom` bucket and the type the bytes must show for each. */
export const CUSTOM_EXTENSIONS: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  zip: 'application/zip',
};
/** A frames zip: at most this many entries, each a PNG or JPG of at most CUSTOM_ZIP_MAX_FRAME_BYTES (uncompressed). */
export const CUSTOM_ZIP_MAX_FRAMES = 600;
export const CUSTOM_ZIP_MAX_FRAME_BYTES = 2 * 1024 * 1024;
/** …and at most this much uncompressed in all. */
export const CUSTOM_ZIP_MAX_TOTAL_BYTES = 100 * 1024 * 1024;
export const WALLPAPER_MAX_BYTES = 8 * 1024 * 1024;
/** Neither side of a wallpaper may be larger than this (pixels), nor smaller than WALLPAPER_MIN_PIXELS. */
export const WALLPAPER_MAX_PIXELS = 7680;
export const WALLPAPER_MIN_PIXELS = 240;
export const PROFILE_PASSWORD_MIN = 4;
export const PROFILE_PASSWORD_MAX = 64;

/** An Android package name (`com.example.app`). */
export const packageName = z
  .string()
  .trim()
  .min(3)
  .max(255)
  .regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'systemCustom.packageName');
const objectKey = textLine(300).pipe(z.string().min(1));
const description = z.string().trim().max(500).refine(hasNoControlButLineBreaks, NO_CONTROL_MSG);
const password = z.string().min(PROFILE_PASSWORD_MIN).max(PROFILE_PASSWORD_MAX);

// ---------------------------------------------------------------------------------------------------------------
// Parts as the console sends them (inputs). Passwords are write-only: absent keeps the one set, a string replaces it.

export const bootAnimationInput = z
  .object({
    /** The upload's key (bucket `custom`): mp4/webm video, gif, or zip of PNG/JPG frames. */
    key: objectKey,
    /** Frames per second of a frames zip (ignored for video/gif). */
    fps: z.number().int().min(1).max(60).default(24),
    /** Loop the frames until boot completes (else play once). */
    loop: z.boolean().default(true),
  })
  .strict();
export const desktopInput = z
  .object({
    columns: z.number().int().min(2).max(10),
    rows: z.number().int().min(2).max(10),
    iconSize: z.enum(DESKTOP_ICON_SIZES).default('medium'),
    /** The customer's applications shown, in this order (package names; each must be one of the customer's apps). */
    apps: z.array(packageName).max(100).default([]),
    hiddenSystemIcons: z.array(z.enum(SYSTEM_ICONS)).max(SYSTEM_ICONS.length).default([]),
  })
  .strict();
export const wallpaperInput = z
  .object({
    /** The upload's key (bucket `custom`): a jpg, png or webp image. */
    key: objectKey,
    fit: z.enum(WALLPAPER_FITS).default('fill'),
  })
  .strict();
export const defaultStartAppInput = z
  .object({
    /** One of the customer's applications. */
    pkg: packageName,
    /** Seconds after boot before it is launched. */
    delaySec: z.number().int().min(0).max(600).default(0),
  })
  .strict();
export const topScreenInput = z
  .object({
    enabled: z.boolean(),
    /** The pinned app: one of the customer's applications. */
    pkg: packageName,
    /** Write-only. Required the first time (no password set yet); absent afterwards keeps the current one. */
    exitPassword: password.optional(),
  })
  .strict();
export const appLockInput = z
  .object({
    mode: z.enum(APP_LOCK_MODES),
    /** allow: only these run; block: these never run. */
    packages: z.array(packageName).min(1).max(200),
    /** Write-only. Required the first time; absent keeps the current one. */
    unlockPassword: password.optional(),
  })
  .strict();

/** Each part: an object sets it, `null` removes it, absent leaves it as it is. */
const partsInput = {
  bootAnimation: bootAnimationInput.nullable().optional(),
  desktop: desktopInput.nullable().optional(),
  wallpaper: wallpaperInput.nullable().optional(),
  defaultStartApp: defaultStartAppInput.nullable().optional(),
  topScreen: topScreenInput.nullable().optional(),
  appLock: appLockInput.nullable().optional(),
};

export const customProfileCreateBody = z
  .object({
    name: textLine(100).pipe(z.string().min(1)),
    description: description.default(''),
    ...partsInput,
    /** Publish the first version right away (else it stays a draft). */
    publish: z.boolean().default(false),
  })
  .strict();
export type CustomProfileCreateBody = z.input<typeof customProfileCreateBody>;
/** Edits the draft (created from the latest published version when there is none). */
export const customProfileUpdateBody = z
  .object({
    id,
    name: textLine(100).pipe(z.string().min(1)).optional(),
    description: description.optional(),
    ...partsInput,
    /** Publish the draft after this edit. */
    publish: z.boolean().default(false),
  })
  .strict();
export type CustomProfileUpdateBody = z.input<typeof customProfileUpdateBody>;
export const profileIdBody = z.object({ id }).strict();
export const profileIdQuery = z.object({ id: queryId });

/**
 * Assign a profile to devices and/or groups (`unassign: false`, the default), or take those assignments away
 * (`unassign: true`). A device or group has at most one profile of its own: assigning replaces the one it had.
 */
export const profileAssignBody = z
  .object({
    id,
    deviceIds: z.array(id).max(5000).default([]),
    groupIds: z.array(id).max(500).default([]),
    unassign: z.boolean().default(false),
  })
  .strict()
  .refine((b) => b.deviceIds.length + b.groupIds.length > 0, {
    path: ['deviceIds'],
    message: 'systemCustom.noTargets',
  });
export type ProfileAssignBody = z.input<typeof profileAssignBody>;
export const profileAssignResult = z.object({
  /** Devices whose effective profile version changed and were sent an apply_profile task. */
  queued: z.number().int(),
  /** Devices affected (governed by the assignment) in all. */
  affected: z.number().int(),
});
export type ProfileAssignResult = z.infer<typeof profileAssignResult>;
export const profilePublishResult = z.object({
  versionId: z.number().int(),
  version: z.number().int(),
  queued: z.number().int(),
});
export type ProfilePublishResult = z.infer<typeof profilePublishResult>;

// ---------------------------------------------------------------------------------------------------------------
// Parts as the server answers them (outputs): no password, ever.

const mediaOut = z.object({
  key: z.string(),
  /** A signed link the console can show (an image, or a download for video/zip). */
  url: z.string(),
  mime: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  originalName: z.string(),
});
export const bootAnimationOut = mediaOut.extend({
  format: z.enum(BOOT_ANIMATION_FORMATS),
  fps: z.number().int(),
  loop: z.boolean(),
  /** Frames in the zip (frames only). */
  frames: z.number().int().nullable(),
});
export const wallpaperOut = mediaOut.extend({
  fit: z.enum(WALLPAPER_FITS),
  width: z.number().int(),
  height: z.number().int(),
});
export const desktopOut = z.object({
  columns: z.number().int(),
  rows: z.number().int(),
  iconSize: z.enum(DESKTOP_ICON_SIZES),
  apps: z.array(z.string()),
  hiddenSystemIcons: z.array(z.enum(SYSTEM_ICONS)),
});
export const defaultStartAppOut = z.object({ pkg: z.string(), delaySec: z.number().int() });
export const topScreenOut = z.object({ enabled: z.boolean(), pkg: z.string(), passwordSet: z.boolean() });
export const appLockOut = z.object({
  mode: z.enum(APP_LOCK_MODES),
  packages: z.array(z.string()),
  passwordSet: z.boolean(),
});
export const profileSettings = z.object({
  bootAnimation: bootAnimationOut.nullable(),
  desktop: desktopOut.nullable(),
  wallpaper: wallpaperOut.nullable(),
  defaultStartApp: defaultStartAppOut.nullable(),
  topScreen: topScreenOut.nullable(),
  appLock: appLockOut.nullable(),
});
export type ProfileSettings = z.infer<typeof profileSettings>;

export const PROFILE_VERSION_STATES = ['draft', 'published'] as const;
export const profileVersion = z.object({
  id: z.number().int(),
  /** 1, 2, … once published; null for the draft. */
  version: z.number().int().nullable(),
  state: z.enum(PROFILE_VERSION_STATES),
  settings: profileSettings,
  /** The hash of the configuration a device gets (what it reports back to show it applied it). */
  hash: z.string(),
  createdAt: z.string(),
  publishedAt: z.string().nullable(),
  publishedBy: z.string().nullable(),
});
export type ProfileVersion = z.infer<typeof profileVersion>;

export const profileItem = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  /** The latest published version's number (null: never published). */
  version: z.number().int().nullable(),
  /** There are unpublished edits. */
  hasDraft: z.boolean(),
  /** Which parts the latest published version (else the draft) sets. */
  parts: z.array(z.enum(SYSTEM_CUSTOM_PARTS)),
  assignedDevices: z.number().int(),
  assignedGroups: z.number().int(),
  /** Devices governed by this profile now (after resolution), and how many of them run its latest version. */
  devices: z.number().int(),
  applied: z.number().int(),
  failed: z.number().int(),
  drifted: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ProfileItem = z.infer<typeof profileItem>;
export const profileListQuery = pageQuery.extend({
  keyword: textLine(50).optional(),
  /** Only profiles whose latest version (published, else draft) sets this part. */
  part: z.enum(SYSTEM_CUSTOM_PARTS).optional(),
});

export const profileDetail = profileItem.extend({
  /** The draft if there is one (what the editor shows), else null. */
  draft: profileVersion.nullable(),
  /** The latest published version, null when never published. */
  current: profileVersion.nullable(),
  /** Every published version, newest first (settings included). */
  history: z.array(profileVersion),
  assignments: z.array(
    z.object({
      target: z.enum(['device', 'group']),
      id: z.number().int(),
      /** Device name/sn or group name. */
      name: z.string(),
      sn: z.string().nullable(),
      at: z.string(),
    }),
  ),
  rule: z.literal(RESOLUTION_RULE),
});
export type ProfileDetail = z.infer<typeof profileDetail>;

/** Where a device's effective profile comes from. */
export const PROFILE_SOURCES = ['device', 'group'] as const;
/**
 * A device's apply state: queued (task waiting or sent), delivered (the device has it), applied (it said ok),
 * failed (it said why, or the task timed out/expired), none (no profile governs it and nothing was sent).
 */
export const PROFILE_APPLY_STATES = ['none', 'queued', 'delivered', 'applied', 'failed'] as const;
export type ProfileApplyState = (typeof PROFILE_APPLY_STATES)[number];

export const profileDevicesQuery = pageQuery.extend({
  id: queryId,
  state: z.enum(PROFILE_APPLY_STATES).optional(),
  drift: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
});
export const profileDeviceItem = z.object({
  deviceId: z.number().int(),
  sn: z.string(),
  name: z.string(),
  online: z.boolean(),
  source: z.enum(PROFILE_SOURCES),
  /** The group it comes from (source group). */
  groupId: z.number().int().nullable(),
  groupName: z.string().nullable(),
  desiredVersionId: z.number().int().nullable(),
  desiredVersion: z.number().int().nullable(),
  appliedVersionId: z.number().int().nullable(),
  appliedVersion: z.number().int().nullable(),
  state: z.enum(PROFILE_APPLY_STATES),
  /** Why it failed (empty otherwise). */
  reason: z.string(),
  drift: z.boolean(),
  driftFields: z.array(z.enum(SYSTEM_CUSTOM_PARTS)),
  taskId: z.string().nullable(),
  reportedAt: z.string().nullable(),
  updatedAt: z.string(),
});
export type ProfileDeviceItem = z.infer<typeof profileDeviceItem>;

export const deviceProfileQuery = z.object({ deviceId: queryId });
/** A device's effective profile (GET /systemCustom/device?deviceId=): for the device detail's card. */
export const deviceProfile = z.object({
  deviceId: z.number().int(),
  /** null: no profile governs the device. */
  profile: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  source: z.enum(PROFILE_SOURCES).nullable(),
  groupId: z.number().int().nullable(),
  groupName: z.string().nullable(),
  /** Every assignment that could apply, nearest first (the first one wins): device, then group, parent, …. */
  candidates: z.array(
    z.object({
      source: z.enum(PROFILE_SOURCES),
      groupId: z.number().int().nullable(),
      groupName: z.string().nullable(),
      profileId: z.number().int(),
      profileName: z.string(),
    }),
  ),
  desiredVersionId: z.number().int().nullable(),
  desiredVersion: z.number().int().nullable(),
  appliedVersionId: z.number().int().nullable(),
  appliedVersion: z.number().int().nullable(),
  state: z.enum(PROFILE_APPLY_STATES),
  reason: z.string(),
  drift: z.boolean(),
  driftFields: z.array(z.enum(SYSTEM_CUSTOM_PARTS)),
  taskId: z.string().nullable(),
  reportedAt: z.string().nullable(),
  /** The desired version's settings (no passwords). */
  settings: profileSettings.nullable(),
  rule: z.literal(RESOLUTION_RULE),
});
export type DeviceProfile = z.infer<typeof deviceProfile>;

/** The customer's applications a profile may name (packages of kind app, one row per package name). */
export const customAppItem = z.object({ pkg: z.string(), name: z.string(), versionName: z.string() });
export type CustomAppItem = z.infer<typeof customAppItem>;
