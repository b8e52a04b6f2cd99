/** The open-api module's public entry: the signed API integrators print through. */
export { OpenAuth, TEST_PRINT_HEADER } from './auth.ts';
export { RequestLog } from './request-log.ts';
export { signOpenRequest } from './signature.ts';
export { withOpenErrorResponses } from './docs.ts';
export { openApiRoutes } from './routes.ts';
