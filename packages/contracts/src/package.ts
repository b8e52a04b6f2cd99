import { z } from 'zod';
import { hasNoControl, NO_CONTROL_MSG } from './validators.ts';

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

// ---- chunked, resumable upload (bucket `package` of the upload token) ----

/**
 * The chunked upload protocol under `/apiAdmin/upload/chunks` (every request carries the `package` bucket's upload
 * token in the `x-upload-token` header): `POST` {name, size} creates an upload; `PUT /:id` with
 * `Content-Range: bytes start-end/size` (body: the raw bytes, ≤ PACKAGE_CHUNK_MAX_BYTES) appends a chunk that must
 * start at the upload's offset; `GET` (or `HEAD`) `/:id` answers the offset to resume from (header `upload-offset`).
 * A finished upload becomes a package with `POST /package/create`. Unfinished uploads expire after 24 hours.
 */
export const PACKAGE_CHUNK_MAX_BYTES = 16 * 1024 * 1024;
export const PACKAGE_UPLOAD_TTL_S = 24 * 3600;

export const chunkedUploadCreate = z
  .object({
    name: z.string().trim().min(1).max(200).refine(hasNoControl, NO_CONTROL_MSG),
    size: z.number().int().min(1),
  })
  .strict();
export type ChunkedUploadCreate = z.infer<typeof chunkedUploadCreate>;

export const chunkedUploadState = z.object({
  uploadId: z.string(),
  name: z.string(),
  size: z.number().int(),
  /** Bytes received so far: the next chunk starts here. */
  offset: z.number().int(),
  expiresAt: z.string(),
  chunkSize: z.number().int(),
});
export type ChunkedUploadState = z.infer<typeof chunkedUploadState>;

// ---- the catalogue ----

export const MODEL_FRAMEWORKS = ['onnx', 'tflite', 'ncnn', 'other'] as const;
export const modelFramework = z.enum(MODEL_FRAMEWORKS);

const sha256Hex = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[0-9a-f]{64}$/, 'rule.sha256');
const deviceModels = z.array(z.string().trim().min(1).max(64)).max(100).default([]);
const common = { uploadId: z.string().regex(/^[0-9a-f]{24}$/, 'rule.uploadId'), sha256: sha256Hex };

/** `POST /package/create`: a finished upload becomes a package; an APK tells its own name and version. */
export const packageCreateBody = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('app'), ...common }).strict(),
  z
    .object({
      kind: z.literal('firmware'),
      ...common,
      name: z.string().trim().min(1).max(100).refine(hasNoControl, NO_CONTROL_MSG),
      versionName: z.string().trim().min(1).max(64).refine(hasNoControl, NO_CONTROL_MSG),
      models: deviceModels,
      notes: z.string().max(5000).default(''),
    })
    .strict(),
  z
    .object({
      kind: z.literal('model'),
      ...common,
      name: z.string().trim().min(1).max(100).refine(hasNoControl, NO_CONTROL_MSG),
      versionName: z.string().trim().min(1).max(64).refine(hasNoControl, NO_CONTROL_MSG),
      framework: modelFramework,
      inputs: z.string().max(500).default(''),
      outputs: z.string().max(500).default(''),
      models: deviceModels,
      notes: z.string().max(5000).default(''),
    })
    .strict(),
]);
export type PackageCreateBody = z.input<typeof packageCreateBody>;

/** What the server read from an APK (`meta` of an app package). */
export const apkMeta = z.object({
  label: z.string(),
  minSdk: z.number().int().nullable(),
  targetSdk: z.number().int().nullable(),
  permissions: z.array(z.string()),
  /** SHA-256 fingerprint (hex, lower case) of the signing certificate's DER bytes. */
  certSha256: z.string(),
  certSubject: z.string(),
  /** Object key of the icon (png), or null when none was found. */
  iconKey: z.string().nullable(),
  /** This version's code is lower than the newest version's when it was uploaded (allowed; shown as a warning). */
  downgrade: z.boolean(),
});
export type ApkMeta = z.infer<typeof apkMeta>;

export const packageItem = z.object({
  id: z.number().int(),
  kind: packageKind,
  name: z.string(),
  identifier: z.string(),
  versionName: z.string(),
  versionCode: z.number().int(),
  size: z.number().int(),
  sha256: z.string(),
  models: z.array(z.string()),
  notes: z.string(),
  meta: z.record(z.string(), z.unknown()),
  /** A signed URL of the icon (apps), or null. */
  iconUrl: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.string().nullable(),
});
export type PackageItem = z.infer<typeof packageItem>;

export const softwareListQuery = z
  .object({
    kind: packageKind.optional(),
    keyword: z.string().trim().max(100).refine(hasNoControl, NO_CONTROL_MSG).optional(),
    identifier: z.string().trim().max(200).refine(hasNoControl, NO_CONTROL_MSG).optional(),
    pageNo: z.coerce.number().int().min(1).max(1_000_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type SoftwareListQuery = z.input<typeof softwareListQuery>;
export const packageList = z.object({ list: z.array(packageItem), total: z.number().int() });
export type PackageList = z.infer<typeof packageList>;

/** `GET /package/apps`: "my applications", one row per package name with its newest version. */
export const appGroupQuery = z
  .object({
    keyword: z.string().trim().max(100).refine(hasNoControl, NO_CONTROL_MSG).optional(),
    pageNo: z.coerce.number().int().min(1).max(1_000_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();
export type AppGroupQuery = z.input<typeof appGroupQuery>;
export const appGroup = z.object({
  identifier: z.string(),
  latest: packageItem,
  versions: z.number().int(),
  totalSize: z.number().int(),
});
export type AppGroup = z.infer<typeof appGroup>;
export const appGroupList = z.object({ list: z.array(appGroup), total: z.number().int() });
export type AppGroupList = z.infer<typeof appGroupList>;

export const packageDetail = packageItem.extend({
  /** A signed URL the console downloads the bytes from (1 hour). */
  downloadUrl: z.string(),
  /** The device models it fits (empty `models`: every model), with their names. */
  fits: z.array(z.object({ code: z.string(), name: z.string() })),
  /** Unfinished device tasks that carry it (it cannot be deleted while there are any). */
  openTasks: z.number().int(),
});
export type PackageDetail = z.infer<typeof packageDetail>;
export const packageIdParams = z
  .object({
    id: z.coerce
      .number()
      .int()
      .min(1)
      .max(2 ** 53 - 1),
  })
  .strict();
