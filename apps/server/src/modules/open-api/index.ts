/** The open-api module's public entry: the signed API integrators print through. */
export { OpenAuth, TEST_PRINT_HEADER } from './auth.ts';
export { RequestLog } from './request-log.ts';
export { signOpenRequest } from './signature.ts';
export { openApiRoutes } from './routes.ts';
export { openApiUpkeep } from './upkeep.ts';
