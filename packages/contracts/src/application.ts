import { z } from 'zod';
import { PAGE_NO_MAX } from './device-constants.ts';
import { textLine } from './device.ts';
import { TASK_STATES, taskState } from './task.ts';

/**
 * Application management (issue 15): deployments (install / uninstall of an app, deploy / remove of an AI model)
 * to devices and groups, each device's reported inventory, "which devices run version X", and the tenant's
 * required apps. Paths are under /apiAdmin/application.
 */

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const queryId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const page = {
  pageNo: z.coerce.number().int().min(1).max(PAGE_NO_MAX).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
};

export const DEPLOYMENT_KINDS = ['app', 'model'] as const;
export const deploymentKind = z.enum(DEPLOYMENT_KINDS);
export type DeploymentKind = z.infer<typeof deploymentKind>;
export const DEPLOYMENT_ACTIONS = ['install', 'uninstall'] as const;
export const deploymentAction = z.enum(DEPLOYMENT_ACTIONS);
export type DeploymentAction = z.infer<typeof deploymentAction>;
/** A deployment's state, derived from its tasks: running while one is open, then done (or canceled). */
export const DEPLOYMENT_STATES = ['running', 'done', 'canceled'] as const;
export type DeploymentState = (typeof DEPLOYMENT_STATES)[number];

/** How long a deployment's tasks wait for an offline device, at most (the default: 7 days). */
export const DEPLOYMENT_EXPIRE_DEFAULT_S = 7 * 24 * 3600;
export const DEPLOYMENT_EXPIRE_MAX_S = 30 * 24 * 3600;
/** The most devices one deployment reaches. */
export const DEPLOYMENT_MAX_DEVICES = 10_000;
/** The policy sends a required app to a device again after a failure, at most this many times in all. */
export const REQUIRED_APP_MAX_ATTEMPTS = 3;

/**
 * `POST /application/deployment`: install (the package `packageId`, kind app or model) or uninstall (by
 * `packageId` or `identifier`) on devices, groups (with their sub-groups) or both.
 */
export const deploymentBody = z
  .object({
    kind: deploymentKind,
    action: deploymentAction,
    /** The version to install; for an uninstall it names the app (any of its versions). */
    packageId: id.optional(),
    /** For an uninstall: the package name (APK) or model id. */
    identifier: textLine(255).min(1).optional(),
    deviceIds: z.array(id).max(DEPLOYMENT_MAX_DEVICES).default([]),
    groupIds: z.array(id).max(500).default([]),
    /** Install over a higher installed version (the device refuses a downgrade otherwise). */
    allowDowngrade: z.boolean().default(false),
    expireInSec: z.number().int().min(60).max(DEPLOYMENT_EXPIRE_MAX_S).optional(),
  })
  .strict();
export type DeploymentBody = z.input<typeof deploymentBody>;

export const deploymentCreated = z.object({
  id: z.number().int(),
  /** Devices that got a task. */
  devices: z.number().int(),
  /** Devices that reported a higher version of the app installed (an install over them is a downgrade). */
  downgrades: z.number().int(),
  /** Uninstall: devices whose inventory shows the app is not there (no task for them). */
  skipped: z.number().int(),
});
export type DeploymentCreated = z.infer<typeof deploymentCreated>;

export const deploymentListQuery = z
  .object({
    ...page,
    kind: deploymentKind.optional(),
    action: deploymentAction.optional(),
    identifier: textLine(255).optional(),
    state: z.enum(DEPLOYMENT_STATES).optional(),
  })
  .strict();
export type DeploymentListQuery = z.input<typeof deploymentListQuery>;

const counts = z.object(
  Object.fromEntries(TASK_STATES.map((s) => [s, z.number().int()])) as Record<
    (typeof TASK_STATES)[number],
    z.ZodNumber
  >,
);

export const deploymentView = z.object({
  id: z.number().int(),
  kind: deploymentKind,
  action: deploymentAction,
  packageId: z.number().int().nullable(),
  name: z.string(),
  identifier: z.string(),
  versionName: z.string(),
  versionCode: z.number().int(),
  targets: z.object({ deviceIds: z.array(z.number().int()), groupIds: z.array(z.number().int()) }),
  source: z.enum(['manual', 'policy']),
  state: z.enum(DEPLOYMENT_STATES),
  total: z.number().int(),
  counts,
  createdBy: z.string(),
  createdAt: z.string(),
});
export type DeploymentView = z.infer<typeof deploymentView>;

export const deploymentDevice = z.object({
  taskId: z.string(),
  deviceId: z.number().int(),
  deviceSn: z.string(),
  deviceName: z.string(),
  online: z.boolean(),
  state: taskState,
  stage: z.string(),
  progress: z.number().int(),
  error: z.string(),
  attempts: z.number().int(),
  updatedAt: z.string(),
});
export type DeploymentDevice = z.infer<typeof deploymentDevice>;

export const deploymentDetail = deploymentView.extend({ devices: z.array(deploymentDevice) });
export type DeploymentDetail = z.infer<typeof deploymentDetail>;

export const deploymentIdParams = z.object({ id: queryId });
export const deploymentChanged = z.object({ id: z.number().int(), tasks: z.number().int() });

/** The versions a deployment can install (the picker of the install drawer): newest first. */
export const deployablePackagesQuery = z.object({ kind: deploymentKind }).strict();
export const deployablePackage = z.object({
  id: z.number().int(),
  name: z.string(),
  identifier: z.string(),
  versionName: z.string(),
  versionCode: z.number().int(),
  size: z.number().int(),
});
export type DeployablePackage = z.infer<typeof deployablePackage>;

/** A device's installed apps and models, as it last reported them. */
export const deviceInventory = z.object({
  deviceId: z.number().int(),
  reportedAt: z.string().nullable(),
  storageFreeMb: z.number().nullable(),
  apps: z.array(
    z.object({ pkg: z.string(), name: z.string(), versionCode: z.number().int(), versionName: z.string() }),
  ),
  models: z.array(z.object({ name: z.string(), version: z.string(), framework: z.string() })),
});
export type DeviceInventory = z.infer<typeof deviceInventory>;
export const deviceIdParams = z.object({ deviceId: queryId });

/** "Which devices run version X": devices with the app (or model), optionally at one version. */
export const installedQuery = z
  .object({
    ...page,
    kind: deploymentKind.default('app'),
    identifier: textLine(255).min(1),
    versionName: textLine(64).optional(),
  })
  .strict();
export type InstalledQuery = z.input<typeof installedQuery>;
export const installedDevice = z.object({
  deviceId: z.number().int(),
  deviceSn: z.string(),
  deviceName: z.string(),
  online: z.boolean(),
  versionName: z.string(),
  versionCode: z.number().int(),
});
export type InstalledDevice = z.infer<typeof installedDevice>;
export const installedResult = z.object({
  list: z.array(installedDevice),
  total: z.number().int(),
  /** Devices per version (all versions, whatever `versionName` filters), most devices first. */
  versions: z.array(z.object({ versionName: z.string(), versionCode: z.number().int(), devices: z.number().int() })),
});
export type InstalledResult = z.infer<typeof installedResult>;

/** Required apps (tenant-wide): every device must have each, at least at `minVersionCode` (null: the latest). */
export const requiredApp = z.object({
  identifier: z.string(),
  name: z.string(),
  minVersionCode: z.number().int().nullable(),
  /** The version a missing device gets: the newest uploaded one. */
  latestVersionName: z.string().nullable(),
  /** Devices that reported an inventory without it (or below the version). */
  missing: z.number().int(),
});
export type RequiredApp = z.infer<typeof requiredApp>;
export const requiredAppsBody = z
  .object({
    apps: z
      .array(
        z
          .object({
            identifier: textLine(255).min(1),
            minVersionCode: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).nullable().default(null),
          })
          .strict(),
      )
      .max(100),
  })
  .strict();
export type RequiredAppsBody = z.input<typeof requiredAppsBody>;
export const requiredAppsResult = z.object({ apps: z.array(requiredApp), tasks: z.number().int() });
