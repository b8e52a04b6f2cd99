/** The upload module's public entry. */
export { uploadRoutes } from './routes.ts';
export { UploadService } from './service.ts';
