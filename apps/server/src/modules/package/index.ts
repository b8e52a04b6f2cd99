/** The package module's public entry: fleet software packages (issue 15) and the links devices download them by. */
export { deviceDownloadRoutes, deviceDownloadUrl } from './download.ts';
export { ChunkedUploads, PACKAGE_EDIT_PERMISSIONS, assertMayUploadPackages, chunkedUploadRoutes } from './uploads.ts';
export { packageRoutes } from './catalogue.ts';
export { sha256Of } from './service.ts';
export { packageUpkeep } from './upkeep.ts';
export { readApk, type ApkInfo } from './apk.ts';
