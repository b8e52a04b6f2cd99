import { z } from 'zod';

/**
 * Fleet software packages (issue 15): firmware images, Android applications (APK) and AI models a tenant uploads
 * and sends to its devices. Each row is one version; the bytes are an object kept by the storage layer, checked by
 * their SHA-256. Paths are under /apiAdmin.
 */

export const PACKAGE_KINDS = ['firmware', 'app', 'model'] as const;
export const packageKind = z.enum(PACKAGE_KINDS);
export type PackageKind = z.infer<typeof packageKind>;

/** The largest package: 2 GiB (uploaded in chunks, resumable). */
export const PACKAGE_MAX_BYTES = 2 * 1024 ** 3;

/** How long a device's download link lives at most (it is bound to one task, and dies with it). */
export const DEVICE_DOWNLOAD_TTL_MAX_S = 7 * 24 * 3600;

/** What a task that carries a package tells the device (`params` of upgrade, install_app and deploy_model). */
export const packageTaskParams = z.object({
  packageId: z.number().int(),
  kind: packageKind,
  /** APK package name, firmware product line or model id. */
  identifier: z.string(),
  versionName: z.string(),
  versionCode: z.number().int(),
  size: z.number().int(),
  sha256: z.string(),
  /** A signed, expiring HTTPS(or HTTP) URL of the bytes, with Range support: an interrupted download resumes. */
  url: z.string(),
});
export type PackageTaskParams = z.infer<typeof packageTaskParams>;
