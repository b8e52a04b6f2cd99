/** The package module's public entry: fleet software packages (issue 15) and the links devices download them by. */
export { deviceDownloadRoutes, deviceDownloadUrl } from './download.ts';
